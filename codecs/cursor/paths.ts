/**
 * Where Cursor keeps sessions (README.md, "Where"). Two kinds of root, told apart by what they hold:
 * - the CLI's home `~/.cursor`: `chats/<md5(cwd)>/<chatId>/store.db` and
 *   `projects/<workspace>/agent-transcripts/…/<id>.jsonl` (subagents under `<parent>/subagents/`);
 * - the IDE's user folder `…/Cursor/User`: `globalStorage/state.vscdb` (Linux `$XDG_CONFIG_HOME/Cursor/User`,
 *   else `~/.config/Cursor/User`; macOS `~/Library/Application Support/Cursor/User`; Windows
 *   `%APPDATA%\Cursor\User`).
 * A root that is itself a `chats`, `projects`, `agent-transcripts` or `globalStorage` folder is read as that.
 * Cursor documents no environment variable that moves these folders; `HOME`, `XDG_CONFIG_HOME` and
 * `APPDATA` are honoured as the platforms define them.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir, type FileStat } from '../../cursors/list-dir.js';
import { transcriptIds } from './parse.js';
import { CODEC_ID } from './descriptor.js';

export { getCursorRoots } from './descriptor.js';

export const STORE_DB = 'store.db';
export const STATE_DB = 'state.vscdb';

export type CursorFileKind = 'chat-store' | 'ide-state' | 'transcript';

/** Which of Cursor's stores a path is, by its name. */
export function cursorFileKind(path: string): CursorFileKind {
  const name = basename(path);
  if (name.endsWith('.vscdb')) return 'ide-state';
  if (name.endsWith('.jsonl')) return 'transcript';
  return 'chat-store';
}

function file(root: string, dir: string, name: string, st: FileStat, extra: Partial<SessionFile> = {}): SessionFile {
  return { agent: CODEC_ID, path: join(dir, name), root, ...extra, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
}

/** `chats/<hash>/<chatId>/store.db`. */
function* chatStores(root: string, chats: string): Generator<SessionFile> {
  for (const h of listDir(chats)) {
    if (h.kind !== DIR) continue;
    const hashDir = join(chats, h.name);
    for (const c of listDir(hashDir)) {
      if (c.kind !== DIR) continue;
      const chatDir = join(hashDir, c.name);
      const db = listDir(chatDir).find((e) => e.kind === FILE && e.name === STORE_DB);
      const st = db === undefined ? undefined : fileStat(chatDir, db);
      if (st !== undefined) yield file(root, chatDir, STORE_DB, st, { sessionId: c.name });
    }
  }
}

/** Every `*.jsonl` under an `agent-transcripts` folder (three levels: `<id>/subagents/<sub>.jsonl`). */
function* transcripts(root: string, dir: string, depth = 0): Generator<SessionFile> {
  for (const e of listDir(dir)) {
    if (e.kind === DIR && depth < 2) yield* transcripts(root, join(dir, e.name), depth + 1);
    else if (e.kind === FILE && e.name.endsWith('.jsonl')) {
      const st = fileStat(dir, e);
      if (st === undefined) continue;
      const ids = transcriptIds(join(dir, e.name));
      yield file(root, dir, e.name, st, { sessionId: ids.sessionId, ...(ids.subagent && { subagent: true }) });
    }
  }
}

function* projectTranscripts(root: string, projects: string): Generator<SessionFile> {
  for (const p of listDir(projects)) if (p.kind === DIR) yield* transcripts(root, join(projects, p.name, 'agent-transcripts'));
}

/** `globalStorage/state.vscdb`: one database holding every composer (many sessions). */
function* ideState(root: string, globalStorage: string): Generator<SessionFile> {
  const db = listDir(globalStorage).find((e) => e.kind === FILE && e.name === STATE_DB);
  const st = db === undefined ? undefined : fileStat(globalStorage, db);
  if (st !== undefined) yield file(root, globalStorage, STATE_DB, st);
}

/** Every Cursor session file under the roots, each path once, in a stable order. */
export function* discoverCursorFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const name = basename(root);
    const parts: Generator<SessionFile>[] =
      name === 'chats'
        ? [chatStores(root, root)]
        : name === 'projects'
          ? [projectTranscripts(root, root)]
          : name === 'agent-transcripts'
            ? [transcripts(root, root)]
            : name === 'globalStorage'
              ? [ideState(root, root)]
              : [chatStores(root, join(root, 'chats')), projectTranscripts(root, join(root, 'projects')), ideState(root, join(root, 'globalStorage'))];
    for (const g of parts) {
      for (const f of g) {
        if (seen.has(f.path)) continue;
        seen.add(f.path);
        yield f;
      }
    }
  }
}

/*
 * The workspace folder of a CLI session. cursor-agent names a chat's folder by md5 of the absolute project
 * path, and `~/.cursor/projects/` by the path with `/` turned into `-` (README.md, "Where"). Neither is
 * reversible alone: a candidate path made from a project folder's name is taken only when its md5 is the
 * chat folder's name (or, for a transcript, when a chat folder of that md5 exists), so a path whose own
 * name holds a `-` stays unknown rather than wrong.
 */

const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

/** `Users-dev-app` → `/Users/dev/app`. */
function projectPath(name: string): string {
  return `/${name.replace(/-/g, '/')}`;
}

/** The workspace folder of `<home>/chats/<md5>/<id>/store.db`, when a project folder's name hashes to it. */
export function chatStoreCwd(storePath: string): string | undefined {
  const chatDir = dirname(storePath);
  const hash = basename(dirname(chatDir));
  const home = dirname(dirname(dirname(chatDir)));
  if (!/^[0-9a-f]{32}$/.test(hash)) return undefined;
  for (const p of listDir(join(home, 'projects'))) {
    if (p.kind !== DIR) continue;
    const cwd = projectPath(p.name);
    if (md5(cwd) === hash) return cwd;
  }
  return undefined;
}

/**
 * The workspace folder a transcript's project folder may name, and the `<home>/chats/<md5>` folder that
 * confirms it (a project folder's name is the path with `/` as `-`, so only the CLI's chat folder tells).
 */
export function transcriptWorkspace(transcriptPath: string): { cwd: string; chats: string } | undefined {
  const parts = transcriptPath.split(sep);
  const at = parts.lastIndexOf('agent-transcripts');
  if (at < 3 || parts[at - 2] !== 'projects') return undefined;
  const cwd = projectPath(parts[at - 1] as string);
  const home = parts.slice(0, at - 2).join(sep);
  return { cwd, chats: join(home, 'chats', md5(cwd)) };
}

/** The workspace folder of `<home>/projects/<name>/agent-transcripts/…`, when `<home>/chats/<md5>` exists. */
export function transcriptCwd(transcriptPath: string): string | undefined {
  const w = transcriptWorkspace(transcriptPath);
  return w !== undefined && existsSync(w.chats) ? w.cwd : undefined;
}
