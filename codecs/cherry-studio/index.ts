/**
 * `cherry-studio`: the transcripts Claude Code writes for Cherry Studio's agents, under Cherry's own config
 * folder. The files are Claude Code's (README.md), so the codec is Claude's engine and discovery under
 * Cherry's roots, its events named `cherry-studio`. Dedup keys stay Claude's (the response's message id): a
 * transcript both Cherry folders hold, or one a `CLAUDE_CONFIG_DIR` also points the `claude` codec at,
 * counts once.
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { Emit, LineCore } from '../../cursors/protocol/line-core.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { claude, claudeCore, createClaudeCore, getSubagentMetaPath, readSubagentMeta, readSubagentMetaSync, type SubagentMeta } from '../claude/index.js';
import { cherryStudioDescriptor } from './descriptor.js';
import { CODEC_ID } from './paths.js';

export { CODEC_ID, getCherryStudioRoots } from './paths.js';

/** `emit` with each event copied under Cherry's name (the core keeps its own events for later lines). */
function renamed(emit: Emit): Emit {
  return (e) => emit({ ...e, agent: CODEC_ID } as SessionfoldEvent);
}

/** Claude's core with every event it emits named `cherry-studio`; its state and cursor are Claude's. */
function renamedCore<S>(core: LineCore<S>): LineCore<S> {
  const { lineWalked } = core;
  return {
    ...core,
    line: (s, line, start, emit) => core.line(s, line, start, renamed(emit)),
    end: (s, emit) => core.end(s, renamed(emit)),
    ...(lineWalked !== undefined && { lineWalked: (s, w, start, emit) => lineWalked(s, w, start, renamed(emit)) }),
  };
}

const plainCore = renamedCore(claudeCore);
const coreWith = (meta: SubagentMeta | undefined) => (meta === undefined ? plainCore : renamedCore(createClaudeCore({ meta })));
const plainRead = createJsonlRead(cherryStudioDescriptor, plainCore);

/** `read()`: a subagent transcript's sidecar is read first and handed to the core, as Claude's read does. */
async function* readCherry(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const metaPath = typeof file === 'string' ? getSubagentMetaPath(file) : undefined;
  const meta = metaPath === undefined ? undefined : await readSubagentMeta(metaPath);
  yield* meta === undefined ? plainRead(file, options) : createJsonlRead(cherryStudioDescriptor, coreWith(meta))(file, options);
}

/** Claude's listing, named Cherry's; a transcript an earlier root already gave (the v1 copy) is left out. */
function* ownFiles(files: Iterable<SessionFile>): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const f of files) {
    const inRoot = f.path.slice(f.root.length);
    if (seen.has(inRoot)) continue;
    seen.add(inRoot);
    yield { ...f, agent: CODEC_ID };
  }
}

async function* discoverCherry(roots: readonly string[]): AsyncGenerator<SessionFile> {
  const files: SessionFile[] = [];
  for await (const f of claude.discover(roots)) files.push(f);
  yield* ownFiles(files);
}

/** The Cherry Studio codec. */
export const cherryStudio: Codec = {
  ...cherryStudioDescriptor,
  detect: (file, head) => claude.detect!(file, head),
  discover: discoverCherry,
  discoverSync: (roots) => ownFiles(claude.discoverSync!(roots)),
  async locate(roots, nativeId) {
    const f = await claude.locate!(roots, nativeId);
    return f === undefined ? undefined : { ...f, agent: CODEC_ID };
  },
  getParseDependencies: (file) => claude.getParseDependencies!(file),
  lineCore: plainCore,
  lineCoreFor(file: string) {
    const metaPath = getSubagentMetaPath(file);
    return coreWith(metaPath === undefined ? undefined : readSubagentMetaSync(metaPath));
  },
  read: readCherry,
};
export default cherryStudio;
