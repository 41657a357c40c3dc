/**
 * `gemini`: Gemini CLI chats (`~/.gemini/tmp/<project-id>/chats/`). Two formats, one codec:
 * - `session-*.jsonl` (and a subagent's `chats/<parent>/<id>.jsonl`): append-only JSONL, read by the pure
 *   engine `geminiCore` (parse.ts) with byte-exact resume from `createJsonlRead`;
 * - the older `session-*.json`: one JSON document, read in constant memory by legacy.ts with a fingerprint
 *   cursor (cursors/read-document.ts).
 * Both are bound to the project paths of the chat's folder (the session's cwd). Format, token semantics and
 * the rules for copies, rewinds and checkpoints: README.md.
 *
 * @example
 * import { gemini } from 'sessionfold/codecs/gemini';
 * for await (const f of gemini.discover(gemini.defaultRoots()))
 *   for await (const e of gemini.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */
import { statSync } from 'node:fs';
import type { Codec, ReadOptions, ResumeStart, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine, headStrings } from '../../cursors/detect.js';
import type { EventKind, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createLegacyParser } from './legacy.js';
import { createGeminiCore, geminiCore } from './parse.js';
import { candidateFiles, discoverGeminiFilesSync, getGeminiDependencies, getProjectPaths, type ProjectPaths } from './paths.js';
import { findRewinds } from './rewinds.js';
import { geminiDescriptor } from './descriptor.js';

export { createGeminiCore, geminiCore, type GeminiCoreOptions, type GeminiState } from './parse.js';
export { createLegacyParser } from './legacy.js';
export { findRewinds } from './rewinds.js';
export { CODEC_ID, getGeminiPathInfo, getGeminiRoots, getProjectPaths, type GeminiPathInfo, type ProjectPaths } from './paths.js';
export { usageEvent, type GeminiTokens } from './schema.js';

export { PARSER_VERSION } from './descriptor.js';

function isDocument(file: string): boolean {
  return file.endsWith('.json');
}

/** Files up to this size get the rewind lookahead in `lineCoreFor`. */
const LOOKAHEAD_MAX_BYTES = 1 << 20;

const CONVERSATION_KINDS: readonly EventKind[] = ['message', 'tool_call', 'tool_result'];

/**
 * A JSONL chat. A read that wants the conversation first finds where the bytes it will read rewind
 * (rewinds.ts), from the cursor's offset on; a read that restarts from byte 0 instead looks again from
 * there (in `onStart`, which comes before the core's state is made).
 */
function readChat(file: string, projects: ProjectPaths, options: ReadOptions | undefined): AsyncIterable<SessionfoldEvent> {
  const kinds = options?.kinds;
  if (kinds !== undefined && !kinds.some((k) => CONVERSATION_KINDS.includes(k))) return createJsonlRead(geminiDescriptor, createGeminiCore({ projects }))(file, options);
  const rewinds = new Map<string, number>();
  const from = options?.resume?.from;
  const at = from !== undefined && from !== null && from.format === 'jsonl' && Number.isSafeInteger(from.offset) && from.offset > 0 ? from.offset : 0;
  findRewinds(file, at, rewinds);
  const resume = options?.resume;
  const onStart = (start: ResumeStart): void => {
    if (start.restarted && at > 0) {
      rewinds.clear();
      findRewinds(file, 0, rewinds);
    }
    resume?.onStart?.(start);
  };
  const read = createJsonlRead(geminiDescriptor, createGeminiCore({ projects, rewinds }));
  return read(file, resume === undefined ? options : { ...options, resume: { ...resume, onStart } });
}

async function* readGemini(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  const projects = getProjectPaths(file);
  if (isDocument(file)) yield* createDocumentRead(geminiDescriptor, createLegacyParser(projects))(file, options);
  else yield* readChat(file, projects, options);
}

async function sessionIdOf(file: string): Promise<string | undefined> {
  for await (const e of readGemini(file, { kinds: ['session'] })) if (e.type === 'session') return e.nativeId;
  return undefined;
}

/**
 * By file name first (a subagent's name is its id, a session's holds its first 8 characters), confirmed by
 * the session event; then, for a file named otherwise (copied or third-party), by every other file's id.
 */
async function locateGemini(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  const named = candidateFiles(roots, nativeId);
  for (const f of named) if ((await sessionIdOf(f.path)) === nativeId) return f;
  const tried = new Set(named.map((f) => f.path));
  for (const f of discoverGeminiFilesSync(roots)) if (!tried.has(f.path) && (await sessionIdOf(f.path)) === nativeId) return f;
  return undefined;
}

/** Gemini CLI chats, JSON or JSONL, open with `sessionId` and `projectHash`. */
function detect(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  if (r !== undefined) return typeof r.sessionId === 'string' && typeof r.projectHash === 'string' ? 2 : 0;
  const keys = headStrings(head);
  return keys.has('sessionId') && keys.has('projectHash') ? 2 : 0;
}

/** Gemini CLI: `~/.gemini/tmp/<project>/chats` (or `GEMINI_CLI_HOME`); see its README. */
export const gemini: Codec = {
  ...geminiDescriptor,
  detect,
  async *discover(roots: readonly string[]) {
    yield* discoverGeminiFilesSync(roots);
  },
  discoverSync: discoverGeminiFilesSync,
  locate: locateGemini,
  getParseDependencies: getGeminiDependencies,
  lineCore: geminiCore,
  lineCoreFor(file: string) {
    if (isDocument(file)) return undefined;
    // Folds feed a small file whole through this core (the session list): it gets the lookahead a read
    // has. A large one is read in windows, where a rewind's reach is not worth a pass over the file.
    const size = statSync(file, { throwIfNoEntry: false })?.size ?? Infinity;
    const rewinds = new Map<string, number>();
    if (size <= LOOKAHEAD_MAX_BYTES) findRewinds(file, 0, rewinds);
    return createGeminiCore({ projects: getProjectPaths(file), rewinds });
  },
  read: readGemini,
  resumeCommand(nativeId: string): string[] {
    return ['gemini', '--resume', nativeId];
  },
};
export default gemini;
