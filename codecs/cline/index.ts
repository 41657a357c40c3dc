/**
 * `cline`: Cline (VS Code extension `saoudrizwan.claude-dev`), and the engine of its format family: Roo Code
 * (`codecs/roo/`) and Kilo Code (`codecs/kilo/`) are forks that keep Cline's task layout,
 * `<extension storage>/tasks/<taskId>/ui_messages.json` beside `api_conversation_history.json`. One task is one
 * session; its record path is its `ui_messages.json` (the document that holds its requests' tokens), read in
 * constant memory with stream-json behind a fingerprint cursor (cursors/read-document.ts), so an unchanged task
 * is never parsed again. The sibling files are parse dependencies. README.md has the format and the sources.
 */
import { basename, join, sep } from 'node:path';
import type { Codec, CodecDescriptor, DetectScore, SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir, type DirEntry } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { createClineParser, type ClineFlavor } from './parse.js';
import { API_HISTORY, HISTORY_ITEM, SDK_WRITEBACK, TASK_METADATA, UI_MESSAGES, isSdkMessagesFile, siblingOf } from './paths.js';
import { clineDescriptor } from './descriptor.js';
import { createSdkParser } from './sdk-parse.js';
import { discoverSdkSessions, sdkDependencies } from './sdk-session.js';

export { createClineParser, uncachedInput, type ClineFlavor } from './parse.js';
export { HOST_HANDLER_PROVIDERS, LEGACY_RESUME_MARKER, createSdkParser } from './sdk-parse.js';
export { discoverSdkSessions, readSdkManifest, sdkDependencies, sdkFileName } from './sdk-session.js';
export { EDITORS, SERVER_DATA_FOLDERS, envDirs, extensionStorageRoots, getClineRoots, globalStorageDirs, taskIdOf } from './paths.js';
export { clineFamilyDescriptor } from './descriptor.js';

/**
 * The folder of a root whose subfolders are its tasks: `<root>/tasks`, or with `tasksFolderRoots` the root
 * itself when it holds no `tasks/` folder (listed only then, so a storage folder costs no more listing).
 */
function tasksFolderOf(root: string, tasksFolderRoots: boolean): { dir: string; entries: DirEntry[] } {
  const tasks = join(root, 'tasks');
  const entries = listDir(tasks);
  if (entries.length > 0 || !tasksFolderRoots) return { dir: tasks, entries };
  const own = listDir(root);
  return own.some((e) => e.kind === DIR && e.name === 'tasks') ? { dir: tasks, entries } : { dir: root, entries: own };
}

/**
 * Every task's `ui_messages.json` under `<root>/tasks/<taskId>/`, with the stat its listing took; with
 * `tasksFolderRoots`, also under `<root>/<taskId>/` for a root without `tasks/` (a folder of tasks named as a
 * root: Kilo Code's, README.md of codecs/kilo/).
 */
export function discoverTasks(agent: string, roots: readonly string[], tasksFolderRoots = false): Iterable<SessionFile> {
  return (function* () {
    for (const root of roots) {
      const { dir: tasks, entries } = tasksFolderOf(root, tasksFolderRoots);
      for (const t of entries) {
        if (t.kind !== DIR) continue;
        const dir = join(tasks, t.name);
        const e = listDir(dir).find((x) => x.kind === FILE && x.name === UI_MESSAGES);
        const st = e === undefined ? undefined : fileStat(dir, e);
        if (st !== undefined) yield { agent, path: join(dir, UI_MESSAGES), root, sessionId: t.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      }
    }
  })();
}

/** What tells one extension of the family from another. */
export interface ClineFamilySpec {
  /** Its names and roots (descriptor.ts `clineFamilyDescriptor`). */
  descriptor: CodecDescriptor;
  /** The VS Code extension id (`publisher.name`), the name of its globalStorage folder. */
  extensionId: string;
  flavor: Omit<ClineFlavor, 'id'>;
  /** A root without `tasks/` is itself a folder of tasks (`discoverTasks`). */
  tasksFolderRoots?: boolean;
  /** The extension also writes Cline ≥ 4.1 (SDK) sessions, `sessions/<id>/<id>.messages.json` (Cline). */
  sdkSessions?: boolean;
}

const UI_HEAD = /^\s*\[\s*(?:\]|\{)/;

/**
 * A `ui_messages.json` whose head is an array of `say`/`ask` records is the family's: 2 when its path names
 * this extension's storage folder, else 1 (the three share the format; the first registered, Cline, wins).
 */
function detectFor(extensionId: string): (file: string, head: Buffer) => DetectScore {
  return (file, head) => {
    if (basename(file) !== UI_MESSAGES) return 0;
    const text = head.subarray(0, 4096).toString('utf8');
    if (!UI_HEAD.test(text) || !(text.trimEnd() === '[]' || /"(?:say|ask)"\s*:/.test(text))) return 0;
    return file.includes(`${sep}${extensionId}${sep}`) ? 2 : 1;
  };
}

const SDK_HEAD = /^\s*\{\s*"(?:version|updated_at|agent|sessionId|messages)"\s*:/;

/** An SDK session's messages file: its name, and a head that opens the payload object. */
function detectSdk(file: string, head: Buffer): DetectScore {
  return isSdkMessagesFile(file) && SDK_HEAD.test(head.subarray(0, 4096).toString('utf8')) ? 2 : 0;
}

/** A codec of the Cline family: the shared engine under one extension's roots and name. */
export function defineClineFamilyCodec(spec: ClineFamilySpec): Codec {
  const { descriptor } = spec;
  const flavor: ClineFlavor = { id: descriptor.id, ...spec.flavor };
  const deps = [API_HISTORY, ...(flavor.metadataModels ? [TASK_METADATA] : []), ...(flavor.historyItem ? [HISTORY_ITEM] : []), ...(flavor.sdkWriteback ? [SDK_WRITEBACK] : [])];
  const readTask = createDocumentRead(descriptor, createClineParser(flavor));
  const detectTask = detectFor(spec.extensionId);
  const readSdk = spec.sdkSessions === true ? createDocumentRead(descriptor, createSdkParser(descriptor.id)) : undefined;
  const isSdk = (file: string): boolean => readSdk !== undefined && isSdkMessagesFile(file);
  return {
    ...descriptor,
    ...fromSyncListing(function* (roots) {
      // SDK sessions first: a resumed legacy task is both, and the SDK file holds its whole conversation.
      if (readSdk !== undefined) yield* discoverSdkSessions(descriptor.id, roots);
      yield* discoverTasks(descriptor.id, roots, spec.tasksFolderRoots === true);
    }),
    getParseDependencies: (file: string) => (isSdk(file) ? sdkDependencies(file) : deps.map((n) => siblingOf(file, n))),
    read: (file, options) => (isSdk(file) ? readSdk!(file, options) : readTask(file, options)),
    detect: (file, head) => (isSdk(file) ? detectSdk(file, head) : detectTask(file, head)),
  };
}

/** Cline: tasks under the extension's globalStorage, and Cline ≥ 4.1's SDK sessions; see README.md. */
export const cline: Codec = defineClineFamilyCodec({
  descriptor: clineDescriptor,
  extensionId: 'saoudrizwan.claude-dev',
  flavor: { metadataModels: true, sdkWriteback: true },
  sdkSessions: true,
});
export default cline;
