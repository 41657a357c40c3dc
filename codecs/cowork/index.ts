/**
 * `cowork`: the transcripts of Claude Desktop's local agent mode (README.md). They are Claude Code's files,
 * one private config folder per task, read by Claude's engine and discovery under Cowork's roots. Events are
 * named `cowork`; dedup keys stay Claude's (its message id), so a transcript that `~/.claude` (or a
 * `CLAUDE_CONFIG_DIR` pointed at a task's folder) also holds counts once.
 */
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { claude, claudeReadAs } from '../claude/index.js';
import { coworkDescriptor } from './descriptor.js';
import { CODEC_ID, getCoworkProjectDirs } from './paths.js';

export { CODEC_ID, COWORK_ENV, getCoworkProjectDirs, getCoworkRoots, USER_DATA_ENV } from './paths.js';

/** Claude's read under Cowork's name: its fast paths (native engine, walk, events by chunk) are Claude's. */
const own = claudeReadAs(coworkDescriptor);

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
  lineCore: own.lineCore,
  lineCoreFor: own.lineCoreFor,
  read: own.read,
  scanUsage: own.scanUsage,
};
export default cowork;
