/**
 * Claude Code's whole read, under the name of the agent whose codec it serves: Claude's own, or a host's
 * whose files Claude Code writes (Claude Desktop's Cowork, Cherry Studio's Claude runtime). One factory, so a
 * host's read takes every path Claude's does, by construction rather than by a copy kept in step:
 * - a transcript without a subagent sidecar (the many) is read by the plain read's own generator, which
 *   offers its events by chunk (`EventChunks`) and takes the native line source, the WebAssembly walk or the
 *   JavaScript splitter as the process allows (cursors/read-jsonl.ts);
 * - the core is Claude's, built with the host's name (parse.ts `ClaudeCoreOptions.agent`), so its byte
 *   markers, usage-only filter and walk are Claude's own: nothing wraps its `emit`;
 * - `scanUsage` is the native engine's (native.ts), its events decoded under the host's name.
 * Dedup keys stay Claude's, so a response that both agents' folders hold counts once. Cursors carry the
 * host's parser string (its id and version), so a cache of one never serves the other.
 */
import type { CodecDescriptor, ReadOptions, UsageScanResult } from '../../cursors/protocol/codec.js';
import { eventChunks, withEventChunks, type EventChunks } from '../../cursors/protocol/chunks.js';
import type { LineCore } from '../../cursors/protocol/line-core.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { readSubagentMeta, readSubagentMetaSync } from './meta.js';
import { scanClaudeUsage } from './native.js';
import { claudeCore, createClaudeCore } from './parse.js';
import { CODEC_ID, getSubagentMetaPath } from './paths.js';
import type { SubagentMeta } from './schema.js';
import type { ClaudeState } from './state.js';

/** The reading half of a codec over Claude Code's transcripts (`claudeReadAs`); the listing half is the host's. */
export interface ClaudeRead {
  /** The core of a transcript without a sidecar, named as the host. */
  lineCore: LineCore<ClaudeState>;
  /** `Codec.lineCoreFor`: a subagent transcript's core is given its sidecar. */
  lineCoreFor(file: string): LineCore<ClaudeState>;
  /** `Codec.read`, with its events by chunk too (`EventChunks`). */
  read(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> & EventChunks;
  /** `Codec.scanUsage`: the native engine's full usage read, undefined without the kernel. */
  scanUsage(files: readonly string[]): Promise<(UsageScanResult | false | undefined)[]> | undefined;
}

/**
 * Claude Code's read for the codec `host` (its id names the events, its id and version the cursors).
 *
 * @example
 * const own = claudeReadAs(coworkDescriptor);
 * export const cowork: Codec = { ...coworkDescriptor, discover, ...own };
 */
export function claudeReadAs(host: Pick<CodecDescriptor, 'id' | 'parserVersion'>): ClaudeRead {
  const agent = host.id;
  // Claude's own read keeps the one exported core (`claudeCore`), which callers may compare against.
  const lineCore = agent === CODEC_ID ? claudeCore : createClaudeCore({ agent });
  const coreWith = (meta: SubagentMeta | undefined) => (meta === undefined ? lineCore : createClaudeCore({ meta, agent }));
  const readWithoutMeta = createJsonlRead(host, lineCore);

  /** The plain read of a subagent transcript, on a core given its sidecar when it has one. */
  async function readerWithMeta(file: string, options?: ReadOptions): Promise<ReturnType<typeof readWithoutMeta>> {
    const metaPath = getSubagentMetaPath(file);
    const meta = metaPath === undefined ? undefined : await readSubagentMeta(metaPath);
    return meta === undefined ? readWithoutMeta(file, options) : createJsonlRead(host, coreWith(meta))(file, options);
  }
  async function* readWithMeta(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
    yield* await readerWithMeta(file, options);
  }
  async function* chunksWithMeta(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent[]> {
    yield* eventChunks(await readerWithMeta(file, options)) as AsyncIterable<SessionfoldEvent[]>;
  }

  return {
    lineCore,
    lineCoreFor(file) {
      const metaPath = getSubagentMetaPath(file);
      return coreWith(metaPath === undefined ? undefined : readSubagentMetaSync(metaPath));
    },
    // A transcript without a sidecar is read by the plain read's own generator: delegating to it with `yield*`
    // from another async generator cost a promise and a turn per event. A subagent's read, by chunk too.
    read(file, options) {
      if (typeof file === 'string' && getSubagentMetaPath(file) === undefined) return readWithoutMeta(file, options);
      return withEventChunks(readWithMeta(file, options), () => chunksWithMeta(file, options));
    },
    scanUsage: (files) => scanClaudeUsage(files, agent),
  };
}
