/**
 * Where VS Code keeps its chat sessions (README.md, "Where"): under an editor's user folder
 * (`<appData>/<flavour>/User`), `workspaceStorage/<workspace id>/chatSessions/<session id>.json|.jsonl` for a
 * window with a workspace, and `globalStorage/emptyWindowChatSessions/` for an empty window.
 * `SESSIONFOLD_VSCODE_USER_DIR` (comma-separated user folders, or `chatSessions` folders) replaces the
 * defaults. Cursor is a fork with its own codec: its folders are never read here.
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

/** The user folders to look in: the variable's, else each flavour's, then the VS Code servers' (remote, WSL). */
export function getVscodeChatRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envPathList(env.SESSIONFOLD_VSCODE_USER_DIR);
  if (explicit.length > 0) return explicit;
  const appData = electronAppData(env, platform);
  const home = env.HOME || homedir();
  return [...FLAVOURS.map((f) => join(appData, f, 'User')), join(home, '.vscode-server', 'data', 'User'), join(home, '.vscode-server-insiders', 'data', 'User')];
}

/** The session folders under a root: the root itself when it is one, else its workspaces' and the empty window's. */
function sessionDirs(root: string): string[] {
  if (SESSION_DIRS.has(basename(root))) return [root];
  const ws = join(root, 'workspaceStorage');
  const dirs = listDir(ws)
    .filter((e) => e.kind === DIR)
    .map((e) => join(ws, e.name, 'chatSessions'));
  return [...dirs, join(root, 'globalStorage', 'emptyWindowChatSessions')];
}

/** The sessions of one folder, by id: a `.jsonl` log wins over a `.json` of the same id (VS Code's newer store). */
function* sessionsIn(root: string, dir: string): Generator<SessionFile> {
  const entries = listDir(dir).filter((e) => e.kind === FILE && (e.name.endsWith('.json') || e.name.endsWith('.jsonl')));
  const logs = new Set(entries.filter((e) => e.name.endsWith('.jsonl')).map((e) => e.name.slice(0, -6)));
  for (const e of entries) {
    const id = e.name.endsWith('.jsonl') ? e.name.slice(0, -6) : e.name.slice(0, -5);
    if (id === '' || (e.name.endsWith('.json') && logs.has(id))) continue;
    const st = fileStat(dir, e);
    if (st === undefined) continue;
    yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: id, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  }
}

/** Every session file under the roots, each path once, in a stable order. */
export function* discoverVscodeChatFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const dir of sessionDirs(root)) {
      for (const f of sessionsIn(root, dir)) {
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

/** `workspace.json` beside a workspace's `chatSessions` folder, or undefined for an empty window's session. */
export function workspaceFileOf(file: string): string | undefined {
  const dir = dirname(file);
  if (basename(dir) !== 'chatSessions' || basename(dirname(dirname(dir))) !== 'workspaceStorage') return undefined;
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
