/**
 * `codex`: OpenAI Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` and
 * `archived_sessions/`). A JSONL codec: the pure line engine is in parse.ts, `read()` with byte-exact resume
 * comes from `createJsonlRead`. Format, token semantics and fallbacks: README.md.
 */
import { basename, join } from 'node:path';
import { promises } from 'node:fs';
import type { Codec, DetectScore, SessionFile } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { isZstdPath } from '../../cursors/zstd-name.js';
import { codexCore } from './parse.js';
import { scanCodexUsage } from './native.js';
import { candidateDayDirs, discoverCodexFilesSync as discoverSync, parseRolloutFileName, plainRolloutName, rolloutFile as sessionFile } from './paths.js';
import { codexDescriptor } from './descriptor.js';

export { codexCore, CODEC_ID, FALLBACK_MODEL, CODEX_USAGE_MARKERS } from './parse.js';
export { mayHoldUsage } from './prefilter.js';
export type { CodexState } from './parse.js';
export { getCodexRoots, parseRolloutFileName } from './paths.js';
export * from './schema.js';


/** `discoverSync` as an async listing (`Codec.discover`). */
async function* discover(roots: readonly string[]): AsyncGenerator<SessionFile> {
  yield* discoverSync(roots);
}

async function findIn(dir: string, suffix: string): Promise<string | undefined> {
  let names: string[];
  try {
    // fs.promises at the call: an import of node:fs/promises loads it (and the internal modules it takes)
    // when this module loads, which every cold report over Codex files does; only a lookup by id lists here
    names = await promises.readdir(dir);
  } catch {
    return undefined;
  }
  // A plain rollout sorts before its compressed sibling (`….jsonl.zst`), and wins as in discovery.
  const hit = names.filter((n) => n.startsWith('rollout-') && plainRolloutName(n).toLowerCase().endsWith(suffix)).sort()[0];
  return hit === undefined ? undefined : join(dir, hit);
}

/**
 * Find a thread's rollout by the uuid at the end of its file name. A UUIDv7 id names its creation time, so
 * its day directories are tried first; otherwise (or on a miss) every root is walked.
 */
async function locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  const id = nativeId.toLowerCase();
  const suffix = `-${id}.jsonl`;
  for (const root of roots) {
    for (const dir of candidateDayDirs(root, id)) {
      const p = await findIn(dir, suffix);
      if (p !== undefined) return sessionFile(p, root, basename(p));
    }
  }
  for await (const f of discover(roots)) if (f.sessionId === id) return f;
  return undefined;
}

/**
 * A rollout line is `{timestamp, type, payload}`; a first line longer than the head
 * (0.137+ session_meta with its base instructions) is told by how it opens; a rollout file name alone
 * (a compressed rollout's head is zstd) is 1.
 */
function detect(file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  if (r !== undefined) return typeof r.timestamp === 'string' && typeof r.type === 'string' && typeof r.payload === 'object' && r.payload !== null ? 2 : 0;
  if (/^\{"timestamp":"[^"]*","type":"[a-z_]+","payload":\{/.test(head.subarray(0, 256).toString('utf8'))) return 2;
  return parseRolloutFileName(basename(file)) !== undefined ? 1 : 0;
}

/** The Codex CLI codec. */
export const codex: Codec = {
  ...codexDescriptor,
  detect,
  discover,
  discoverSync,
  locate,
  getParseDependencies: () => [],
  lineCore: codexCore,
  // A compressed rollout's bytes are no lines: a session list's head and tail windows read it whole through read().
  lineCoreFor: (file: string) => (isZstdPath(file) ? undefined : codexCore),
  read: createJsonlRead(codexDescriptor, codexCore),
  scanUsage: scanCodexUsage,
  resumeCommand: (nativeId: string) => ['codex', 'resume', nativeId],
};
export default codex;
