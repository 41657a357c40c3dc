/**
 * Where Kiro's CLI keeps its sessions (README.md, "Where"): `kiro-cli` writes each session as
 * `<Kiro home>/sessions/cli/<session id>.json` (metadata, rewritten whole) beside `<session id>.jsonl` (the
 * conversation, one entry a line), the Kiro home being `$KIRO_HOME` when set, else `~/.kiro`. Kiro's CLI
 * documents `KIRO_HOME` (since 2.3.0) as overriding `~/.kiro` "for global agents, prompts, skills, steering,
 * settings, and sessions" (the docs as quoted in ingo-eichhorst/Irrlicht PR #1074, whose issue #1064 found a
 * live kiro-cli 2.6.0 writing `$KIRO_HOME/sessions/cli/<id>.jsonl` and nothing under `~/.kiro`;
 * kirodotdev/Kiro issue #11367 quotes the docs the same way). Older releases (and Amazon Q Developer CLI, its predecessor, in its own
 * `amazon-q` folder, not read here) keep every conversation as a row of `conversations_v2` in one SQLite
 * database, `data.sqlite3` of the `kiro-cli` folder in the platform's local data folder (`dirs::data_local_dir`:
 * `$XDG_DATA_HOME` or `~/.local/share`, `~/Library/Application Support`, `%LOCALAPPDATA%`).
 *
 * A root is a sessions folder (its `*.json` files are sessions) or a folder holding `data.sqlite3`; a root
 * that is the database itself is taken too.
 */
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envPathList, expandHome } from '../../cursors/env-paths.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'kiro';
export const DB_FILE = 'data.sqlite3';
export const APP_DIR = 'kiro-cli';

/**
 * The sessions folder of each Kiro home (`$KIRO_HOME`, a comma-separated list accepted here, else `~/.kiro`),
 * then the `kiro-cli` data folders of Linux (XDG), macOS and Windows, which `KIRO_HOME` does not move.
 */
export function getKiroRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const xdg = env.XDG_DATA_HOME ? expandHome(env.XDG_DATA_HOME, home) : undefined;
  const data = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'share');
  const kiroHomes = envPathList(env.KIRO_HOME, (p) => expandHome(p, home)).map((p) => expandHome(p, home));
  const sessionDirs = (kiroHomes.length > 0 ? kiroHomes : [join(home, '.kiro')]).map((h) => join(h, 'sessions', 'cli'));
  const roots = [...sessionDirs, join(data, APP_DIR), join(home, 'Library', 'Application Support', APP_DIR)];
  if (env.LOCALAPPDATA) roots.push(join(env.LOCALAPPDATA, APP_DIR));
  return roots;
}

/** A path's kind: the CLI database, or a session's metadata file. */
export const isKiroDb = (path: string): boolean => basename(path) === DB_FILE;

/** The conversation log beside a session's metadata file: `<id>.json` → `<id>.jsonl`. */
export const logOf = (meta: string): string => `${meta}l`;

/** The session id a metadata file's name gives (`<id>.json`). */
export const stemOf = (meta: string): string => basename(meta, '.json');

/**
 * Every session metadata file and database under the roots: a folder holding `data.sqlite3` is a data folder
 * (its other files are the CLI's settings and state, not sessions); any other root's `*.json` are sessions.
 */
export function* discoverKiroFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const dir = isKiroDb(root) ? dirname(root) : root;
    const entries = listDir(dir).filter((e) => e.kind === FILE && !e.name.startsWith('.'));
    const db = entries.filter((e) => e.name === DB_FILE);
    const wanted = db.length > 0 ? db : entries.filter((e) => e.name.endsWith('.json') && e.name.length > '.json'.length);
    for (const e of wanted) {
      const path = join(dir, e.name);
      const st = seen.has(path) ? undefined : fileStat(dir, e);
      if (st === undefined) continue;
      seen.add(path);
      yield { agent: CODEC_ID, path, root, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
