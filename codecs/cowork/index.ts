/**
 * `cowork`: the transcripts of Claude Desktop's local agent mode (README.md). They are Claude Code's files,
 * one private config folder per task, read by Claude's engine and discovery under Cowork's roots. Events are
 * named `cowork`; dedup keys stay Claude's (its message id), so a transcript that `~/.claude` (or a
 * `CLAUDE_CONFIG_DIR` pointed at a task's folder) also holds counts once.
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { renamedCore } from '../../cursors/renamed-core.js';
import { claude, claudeCore, createClaudeCore, getSubagentMetaPath, readSubagentMeta, readSubagentMetaSync, type SubagentMeta } from '../claude/index.js';
import { coworkDescriptor } from './descriptor.js';
import { CODEC_ID, getCoworkProjectDirs } from './paths.js';

export { CODEC_ID, COWORK_ENV, getCoworkProjectDirs, getCoworkRoots } from './paths.js';

const plainCore = renamedCore(claudeCore, CODEC_ID);
const coreWith = (meta: SubagentMeta | undefined) => (meta === undefined ? plainCore : renamedCore(createClaudeCore({ meta }), CODEC_ID));
const plainRead = createJsonlRead(coworkDescriptor, plainCore);

/** `read()`: a subagent's sidecar is read first and handed to the core, as Claude's read does. */
async function* readCowork(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const metaPath = typeof file === 'string' ? getSubagentMetaPath(file) : undefined;
  const meta = metaPath === undefined ? undefined : await readSubagentMeta(metaPath);
  yield* meta === undefined ? plainRead(file, options) : createJsonlRead(coworkDescriptor, coreWith(meta))(file, options);
}

/**
 * Claude's listing of each root's task folders, named Cowork's and under the root handed in (the folds match
 * a file to its root). A file two roots reach (a sessions folder and one of its tasks) is listed once.
 */
function* discoverCoworkSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const f of claude.discoverSync!(getCoworkProjectDirs(root))) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      yield { ...f, agent: CODEC_ID, root };
    }
  }
}

async function* discoverCowork(roots: readonly string[]): AsyncGenerator<SessionFile> {
  yield* discoverCoworkSync(roots);
}

/** The Cowork codec. */
export const cowork: Codec = {
  ...coworkDescriptor,
  detect: (file, head) => claude.detect!(file, head),
  discover: discoverCowork,
  discoverSync: discoverCoworkSync,
  async locate(roots, nativeId) {
    for (const root of roots) {
      const f = await claude.locate!(getCoworkProjectDirs(root), nativeId);
      if (f !== undefined) return { ...f, agent: CODEC_ID, root };
    }
    return undefined;
  },
  getParseDependencies: (file) => claude.getParseDependencies!(file),
  lineCore: plainCore,
  lineCoreFor(file: string) {
    const metaPath = getSubagentMetaPath(file);
    return coreWith(metaPath === undefined ? undefined : readSubagentMetaSync(metaPath));
  },
  read: readCowork,
};
export default cowork;
