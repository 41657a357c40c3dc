/**
 * `cherry-studio`: the session files Cherry Studio's agent runtimes write under its userData (README.md).
 * Its Claude Code runtime's transcripts are Claude Code's files, read by Claude's engine and discovery; its
 * pi runtime's sessions are pi's, read by pi's (pi.ts). Events are named `cherry-studio`; dedup keys stay
 * the engine's (Claude's message id, pi's entry id and time), so a transcript both Cherry folders hold, or
 * one the runtime's own folder also holds, counts once.
 */
import type { Codec, ReadOptions, SessionFile, UsageScanResult } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { claude, claudeReadAs } from '../claude/index.js';
import { cherryStudioDescriptor } from './descriptor.js';
import { isPiFile, isPiRoot } from './paths.js';
import { detectCherryPi, discoverPi, locatePi, piCore, readPi } from './pi.js';

export { CODEC_ID, getCherryStudioRoots } from './paths.js';

/** Claude's read under Cherry's name: its fast paths (native engine, walk, events by chunk) are Claude's. */
const own = claudeReadAs(cherryStudioDescriptor);

/** Each read is the engine's own (returned, not wrapped), so it keeps its events by chunk. */
function readCherry(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
  return typeof file === 'string' && isPiFile(file) ? readPi(file, options) : own.read(file, options);
}

/** Claude's native engine for the Claude Code transcripts; a pi session is left to `read()` (undefined). */
function scanCherryUsage(files: readonly string[]): Promise<(UsageScanResult | false | undefined)[]> | undefined {
  const claudeFiles = files.filter((f) => !isPiFile(f));
  if (claudeFiles.length === files.length) return own.scanUsage(files);
  const read = own.scanUsage(claudeFiles);
  if (read === undefined) return undefined;
  return read.then((results) => {
    let k = 0;
    return files.map((f) => (isPiFile(f) ? undefined : results[k++]));
  });
}

/** The roots handed to the codec, told apart: pi's session folder, and the Claude Code folders. */
function split(roots: readonly string[]): { claudeRoots: string[]; piRoots: string[] } {
  return { claudeRoots: roots.filter((r) => !isPiRoot(r)), piRoots: roots.filter(isPiRoot) };
}

/** Claude's listing, named Cherry's; a transcript an earlier root already gave (the v1 copy) is left out. */
function* ownFiles(files: Iterable<SessionFile>): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const f of files) {
    const inRoot = f.path.slice(f.root.length);
    if (seen.has(inRoot)) continue;
    seen.add(inRoot);
    yield { ...f, agent: cherryStudioDescriptor.id };
  }
}

async function* discoverCherry(roots: readonly string[]): AsyncGenerator<SessionFile> {
  const { claudeRoots, piRoots } = split(roots);
  const files: SessionFile[] = [];
  for await (const f of claude.discover(claudeRoots)) files.push(f);
  yield* ownFiles(files);
  yield* discoverPi(piRoots);
}

function* discoverCherrySync(roots: readonly string[]): Generator<SessionFile> {
  const { claudeRoots, piRoots } = split(roots);
  yield* ownFiles(claude.discoverSync!(claudeRoots));
  yield* discoverPi(piRoots);
}

/** The Cherry Studio codec. */
export const cherryStudio: Codec = {
  ...cherryStudioDescriptor,
  detect: (file, head) => claude.detect!(file, head) || detectCherryPi(file, head),
  discover: discoverCherry,
  discoverSync: discoverCherrySync,
  async locate(roots, nativeId) {
    const { claudeRoots, piRoots } = split(roots);
    const f = await claude.locate!(claudeRoots, nativeId);
    return f === undefined ? locatePi(piRoots, nativeId) : { ...f, agent: cherryStudioDescriptor.id };
  },
  getParseDependencies: (file) => (isPiFile(file) ? [] : claude.getParseDependencies!(file)),
  lineCore: own.lineCore,
  lineCoreFor: (file) => (isPiFile(file) ? piCore : own.lineCoreFor(file)),
  read: readCherry,
  scanUsage: scanCherryUsage,
};
export default cherryStudio;
