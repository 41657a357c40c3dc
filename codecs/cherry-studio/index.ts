/**
 * `cherry-studio`: the session files Cherry Studio's agent runtimes write under its userData (README.md).
 * Its Claude Code runtime's transcripts are Claude Code's files, read by Claude's engine and discovery; its
 * pi runtime's sessions are pi's, read by pi's (pi.ts). Events are named `cherry-studio`; dedup keys stay
 * the engine's (Claude's message id, pi's entry id and time), so a transcript both Cherry folders hold, or
 * one the runtime's own folder also holds, counts once.
 */
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { renamedCore } from '../../cursors/renamed-core.js';
import { claude, claudeCore, createClaudeCore, getSubagentMetaPath, readSubagentMeta, readSubagentMetaSync, type SubagentMeta } from '../claude/index.js';
import { cherryStudioDescriptor } from './descriptor.js';
import { CODEC_ID, isPiFile, isPiRoot } from './paths.js';
import { detectCherryPi, discoverPi, locatePi, piCore, readPi } from './pi.js';

export { CODEC_ID, getCherryStudioRoots } from './paths.js';

const plainCore = renamedCore(claudeCore, CODEC_ID);
const coreWith = (meta: SubagentMeta | undefined) => (meta === undefined ? plainCore : renamedCore(createClaudeCore({ meta }), CODEC_ID));
const plainRead = createJsonlRead(cherryStudioDescriptor, plainCore);

/** `read()` of a Claude Code transcript: a subagent's sidecar is read first and handed to the core, as Claude's read does. */
async function* readClaude(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const metaPath = typeof file === 'string' ? getSubagentMetaPath(file) : undefined;
  const meta = metaPath === undefined ? undefined : await readSubagentMeta(metaPath);
  yield* meta === undefined ? plainRead(file, options) : createJsonlRead(cherryStudioDescriptor, coreWith(meta))(file, options);
}

function readCherry(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
  return typeof file === 'string' && isPiFile(file) ? readPi(file, options) : readClaude(file, options);
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
  lineCore: plainCore,
  lineCoreFor(file: string) {
    if (isPiFile(file)) return piCore;
    const metaPath = getSubagentMetaPath(file);
    return coreWith(metaPath === undefined ? undefined : readSubagentMetaSync(metaPath));
  },
  read: readCherry,
};
export default cherryStudio;
