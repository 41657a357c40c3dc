/**
 * `pi`: sessions of the pi coding agent (earendil-works/pi, formerly badlogic/pi-mono), `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`.
 * A JSONL codec: the pure line engine is `createPiCore` (parse.ts, with entries.ts and tree.ts), `read()` with
 * byte-exact resume comes from `createJsonlRead`. Format, branches, token semantics: README.md.
 *
 * This folder is also the pi family's public surface: omp (a pi fork) and OpenClaw (which writes its
 * transcripts with pi's SessionManager) write this format, and their codecs take the engine from here
 * (`definePiCodec`, `createPiCore`) instead of keeping a copy (ARCHITECTURE.md, "The walls").
 *
 * @example
 * import { pi } from 'sessionfold/codecs/pi';
 * for await (const f of pi.discover(pi.defaultRoots()))
 *   for await (const e of pi.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.costUsd);
 */
import type { Codec, CodecDescriptor, DetectScore, SessionFile } from '../../cursors/protocol/codec.js';
import type { PiCoreOptions } from './parse.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createPiCore } from './parse.js';
import { discoverPiLayout, locatePiLayout } from './paths.js';
import { piDescriptor } from './descriptor.js';

export { createPiCore, piFileSessionId, TWO_PASS_BYTES, type PiCoreOptions, type PiSessionMeta, type PiState } from './parse.js';
export { agentSessionRoots, discoverPiLayout, getPiRoots, listedFile, listSessionsFolder, locateListed, locatePiLayout } from './paths.js';
export { OPEN_BYTES, OPEN_NODES } from './tree.js';
export type { PiEntry, PiHeader, PiUsage } from './schema.js';

export { PI_PARSER_VERSION, piFamilyDescriptor } from './descriptor.js';

export interface PiCodecSpec {
  /** Its names and roots (descriptor.ts `piFamilyDescriptor`). */
  descriptor: CodecDescriptor;
  /** The agent's executable, for `resumeCommand` (`<command> --session <file>`). */
  command: string;
  /** What the agent writes beyond pi (Prime Agent's `rlm`). */
  core?: Omit<PiCoreOptions, 'agent'>;
  /** Where its files lie, when not in pi's layout. */
  layout?: {
    discover(agent: string, roots: readonly string[]): Generator<SessionFile>;
    locate(agent: string, roots: readonly string[], nativeId: string): SessionFile | undefined;
  };
}

/** A codec for an agent that keeps pi's files in pi's layout under its own roots (pi, omp). */
/** A pi session opens with `{type: "session", id, timestamp}`; its forks write the same, so the path decides between them. */
export function detectPi(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  return r !== undefined && r.type === 'session' && typeof r.id === 'string' && typeof r.timestamp === 'string' ? 1 : 0;
}

export function definePiCodec(spec: PiCodecSpec): Codec {
  const { descriptor } = spec;
  const core = createPiCore({ ...spec.core, agent: descriptor.id });
  const layout = spec.layout ?? { discover: discoverPiLayout, locate: locatePiLayout };
  return {
    ...descriptor,
    detect: detectPi,
    async *discover(roots: readonly string[]) {
      yield* layout.discover(descriptor.id, roots);
    },
    discoverSync: (roots: readonly string[]) => layout.discover(descriptor.id, roots),
    locate: async (roots: readonly string[], nativeId: string) => layout.locate(descriptor.id, roots, nativeId),
    getParseDependencies: () => [],
    lineCore: core,
    read: createJsonlRead(descriptor, core),
    resumeCommand(nativeId: string, file?: SessionFile): string[] {
      return file === undefined ? [spec.command, '--resume'] : [spec.command, '--session', file.path];
    },
  };
}

/** The pi codec. */
export const pi: Codec = definePiCodec({ descriptor: piDescriptor, command: 'pi' });
export default pi;
