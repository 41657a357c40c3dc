/**
 * `copilot-vscode`: GitHub Copilot Chat in VS Code (and its builds: Insiders, VSCodium, the VS Code server).
 * VS Code's chat keeps one file per session under the editor's user folder: the newer `<id>.jsonl`, a log of
 * mutations read by the pure engine in parse.ts with byte-exact resume (`createJsonlRead`), and the older
 * `<id>.json`, one document read by document.ts behind a fingerprint cursor (re-read when it changes). The
 * session's workspace folder comes from `workspace.json` beside its `chatSessions` folder, read here and
 * handed to the pure parsers. Format, token semantics and sources: README.md.
 *
 * @example
 * import { copilotVscode } from 'sessionfold/codecs/copilot-vscode';
 * for await (const f of copilotVscode.discover(copilotVscode.defaultRoots()))
 *   for await (const e of copilotVscode.read(f.path, { kinds: ['usage'] })) console.log(e.model, e.outputTokens);
 */
import { readFileSync } from 'node:fs';
import type { Codec, DetectScore, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { firstJsonLine, headStrings } from '../../cursors/detect.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createDocumentParser } from './document.js';
import { createVscodeChatCore, vscodeChatCore } from './parse.js';
import { cwdOfWorkspace, discoverVscodeChatFiles, workspaceFileOf } from './paths.js';
import { copilotVscodeDescriptor } from './descriptor.js';

export { createVscodeChatCore, vscodeChatCore, type VscodeChatCoreOptions, type VscodeChatState } from './parse.js';
export { createDocumentParser } from './document.js';
export { CODEC_ID, FLAVOURS, cwdOfWorkspace, discoverVscodeChatFiles, getVscodeChatRoots, sessionIdOfPath, workspaceFileOf } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** The workspace folder of a session file, from its `workspace.json` (undefined for an empty window's). */
function cwdOf(file: string): string | undefined {
  const ws = workspaceFileOf(file);
  if (ws === undefined) return undefined;
  try {
    return cwdOfWorkspace(readFileSync(ws, 'utf8'));
  } catch {
    return undefined; // no workspace.json (a copied folder): the session has no cwd
  }
}

const isDocument = (file: string): boolean => file.endsWith('.json');

function coreFor(file: string) {
  const cwd = cwdOf(file);
  return cwd === undefined ? vscodeChatCore : createVscodeChatCore({ cwd });
}

function read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
  if (isDocument(file)) return createDocumentRead(copilotVscodeDescriptor, createDocumentParser(cwdOf(file)))(file, options);
  return createJsonlRead(copilotVscodeDescriptor, coreFor(file))(file, options);
}

/**
 * A log opens with `{"kind":0,"v":{…}}` (often longer than the head: its start is enough); a document names
 * `responderUsername` and holds `requests`.
 */
function detect(_file: string, head: Buffer): DetectScore {
  const r = firstJsonLine(head);
  if (r !== undefined ? r.kind === 0 && r.v !== null && typeof r.v === 'object' : /^\s*\{"kind":0,"v":\{/.test(head.subarray(0, 64).toString('utf8'))) return 2;
  const keys = headStrings(head);
  return keys.has('responderUsername') && head.includes('"requests"') ? 1 : 0;
}

function discoverSync(roots: readonly string[]): Iterable<SessionFile> {
  return discoverVscodeChatFiles(roots);
}

/** GitHub Copilot Chat in VS Code: chat sessions under the editors' user folders; see README.md. */
export const copilotVscode: Codec = {
  ...copilotVscodeDescriptor,
  ...fromSyncListing(discoverSync),
  detect,
  getParseDependencies: (file: string) => {
    const ws = workspaceFileOf(file);
    return ws === undefined ? [] : [ws];
  },
  lineCore: vscodeChatCore,
  lineCoreFor: (file: string) => (isDocument(file) ? undefined : coreFor(file)),
  read,
};
export default copilotVscode;
