/**
 * Where VS Code keeps its chat sessions (README.md, "Where"): under an editor's user folder
 * (`<appData>/<flavour>/User`), `workspaceStorage/<workspace id>/chatSessions/<session id>.json|.jsonl` for a
 * window with a workspace, and `globalStorage/emptyWindowChatSessions/` for an empty window; an empty window's
 * sessions from older builds stay in `workspaceStorage/no-workspace/chatSessions/`, which VS Code reads only for
 * an id the current folder lacks, and so does discovery. `SESSIONFOLD_VSCODE_USER_DIR` (comma-separated user
 * folders, or `chatSessions` folders) replaces the defaults. Cursor is a fork with its own codec: its folders are
 * never read here.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { electronAppData, envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'copilot-vscode';

/** The user-data folder names of VS Code's builds (`nameLong` in each product.json). */
export const FLAVOURS = ['Code', 'Code - Insiders', 'Code - Exploration', 'Code - OSS', 'VSCodium', 'VSCodium - Insiders'] as const;

const SESSION_DIRS = new Set(['chatSessions', 'emptyWindowChatSessions']);
/** The workspace-storage folder an empty window's sessions were kept in before `emptyWindowChatSessions`. */
export const PREVIOUS_EMPTY_WINDOW = 'no-workspace';

/** The user folders to look in: the variable's, else each flavour's, then the VS Code servers' (remote, WSL). */
export function getVscodeChatRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envPathList(env.SESSIONFOLD_VSCODE_USER_DIR);
  if (explicit.length > 0) return explicit;
  const appData = electronAppData(env, platform);
  const home = env.HOME || homedir();
  return [...FLAVOURS.map((f) => join(appData, f, 'User')), join(home, '.vscode-server', 'data', 'User'), join(home, '.vscode-server-insiders', 'data', 'User')];
}

/**
 * The session folders under a root: the root itself when it is one, else the empty window's, then its workspaces'
 * (`no-workspace` among them, an empty window's folder in older builds, read after the current one).
 */
function sessionDirs(root: string): string[] {
  if (SESSION_DIRS.has(basename(root))) return [root];
  const ws = join(root, 'workspaceStorage');
  const dirs = listDir(ws)
    .filter((e) => e.kind === DIR)
    .map((e) => join(ws, e.name, 'chatSessions'));
  return [join(root, 'globalStorage', 'emptyWindowChatSessions'), ...dirs];
}

const idOf = (name: string): string => (name.endsWith('.jsonl') ? name.slice(0, -6) : name.slice(0, -5));

/**
 * The sessions of one folder, by id: a `.jsonl` log wins over a `.json` of the same id (VS Code's newer store);
 * an id in `shadowed` is left out.
 */
function* sessionsIn(root: string, dir: string, shadowed: ReadonlySet<string>): Generator<SessionFile> {
  const entries = listDir(dir).filter((e) => e.kind === FILE && (e.name.endsWith('.json') || e.name.endsWith('.jsonl')));
  const logs = new Set(entries.filter((e) => e.name.endsWith('.jsonl')).map((e) => idOf(e.name)));
  for (const e of entries) {
    const id = idOf(e.name);
    if (id === '' || shadowed.has(id) || (e.name.endsWith('.json') && logs.has(id))) continue;
    const st = fileStat(dir, e);
    if (st === undefined) continue;
    yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: id, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  }
}

/** Whether `dir` is a user folder's `workspaceStorage/no-workspace/chatSessions`. */
const isPreviousEmptyWindow = (dir: string): boolean => basename(dirname(dir)) === PREVIOUS_EMPTY_WINDOW && basename(dirname(dirname(dir))) === 'workspaceStorage';

/**
 * Every session file under the roots, each path once, in a stable order. A session of the previous empty-window
 * folder whose id the current one holds too is left out: VS Code reads the previous folder only for an id the
 * current one lacks (`readSessionFromPreviousLocation`), and saves a session it read there into the current one,
 * so the current file is the later copy of the same session.
 */
export function* discoverVscodeChatFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  const none: ReadonlySet<string> = new Set();
  for (const root of roots) {
    let current: Set<string> | undefined;
    for (const dir of sessionDirs(root)) {
      const shadowed = current !== undefined && isPreviousEmptyWindow(dir) ? current : none;
      for (const f of sessionsIn(root, dir, shadowed)) {
        if (basename(dir) === 'emptyWindowChatSessions') (current ??= new Set()).add(f.sessionId!);
        if (seen.has(f.path)) continue;
        seen.add(f.path);
        yield f;
      }
    }
  }
}

/** The session id of a file: its name without `.json` / `.jsonl` (VS Code names it so). */
export function sessionIdOfPath(file: string): string {
  return basename(file).replace(/\.jsonl?$/, '');
}

/**
 * `workspace.json` beside a workspace's `chatSessions` folder, or undefined for an empty window's session (in
 * `emptyWindowChatSessions`, or in `no-workspace`, which is no workspace and has no `workspace.json`).
 */
export function workspaceFileOf(file: string): string | undefined {
  const dir = dirname(file);
  if (basename(dir) !== 'chatSessions' || basename(dirname(dirname(dir))) !== 'workspaceStorage' || isPreviousEmptyWindow(dir)) return undefined;
  return join(dirname(dir), 'workspace.json');
}

/** The folder of a `workspace.json` (`{"folder": "file:///…"}`); undefined for a multi-root or remote workspace. */
export function cwdOfWorkspace(json: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  const folder = v !== null && typeof v === 'object' ? (v as Record<string, unknown>).folder : undefined;
  if (typeof folder !== 'string' || !folder.startsWith('file://')) return undefined;
  try {
    return fileURLToPath(folder);
  } catch {
    return undefined;
  }
}
