/**
 * Where Crush (charmbracelet/crush) keeps its sessions (README.md, "Where"): one SQLite database per project,
 * `<data dir>/crush.db`, the data directory being the project's `.crush` folder unless its config moves it.
 * Crush registers every project it opens in `projects.json` of its global data folder (`$CRUSH_GLOBAL_DATA`,
 * else `$XDG_DATA_HOME/crush`, else `%LOCALAPPDATA%\crush` on Windows, else `~/.local/share/crush`), with the
 * project's path and data directory: that registry is how the databases are found; no disk is walked.
 *
 * A root is the global data folder (its `projects.json` is read); a root that is a data folder holding
 * `crush.db`, a project holding `.crush/crush.db`, or the database itself, is taken too.
 */
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import { rec } from '../../cursors/json-value.js';

export const CODEC_ID = 'crush';
export const DB_FILE = 'crush.db';
export const DATA_DIR = '.crush';
export const PROJECTS_FILE = 'projects.json';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** A project of `projects.json` (`internal/projects/projects.go`): its path and its data directory, if named. */
export interface CrushProject {
  path: string;
  dataDir?: string;
}

/** The projects of a `projects.json` text (`{"projects": [{"path", "data_dir", "last_accessed"}]}`); none when it is not that. */
export function projectDataDirs(text: string): CrushProject[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const list = rec(doc)?.projects;
  if (!Array.isArray(list)) return [];
  const out: CrushProject[] = [];
  for (const p of list.map(rec)) {
    const path = str(p?.path);
    if (path === undefined) continue;
    const dataDir = str(p?.data_dir);
    out.push(dataDir === undefined ? { path } : { path, dataDir });
  }
  return out;
}

/** The global data folder: `$CRUSH_GLOBAL_DATA`, `$XDG_DATA_HOME/crush`, `%LOCALAPPDATA%\crush`, `~/.local/share/crush`. */
export function getCrushRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.CRUSH_GLOBAL_DATA) return [env.CRUSH_GLOBAL_DATA];
  if (env.XDG_DATA_HOME) return [join(env.XDG_DATA_HOME, 'crush')];
  const home = env.HOME || env.USERPROFILE || homedir();
  const roots = [join(home, '.local', 'share', 'crush')];
  if (env.LOCALAPPDATA) roots.push(join(env.LOCALAPPDATA, 'crush'));
  return roots;
}

const dbIn = (root: string, dir: string): SessionFile | undefined => namedFileIn(CODEC_ID, root, dir, DB_FILE);

/** The data folders `projects.json` under `root` names (none when it is missing or unreadable). */
function registered(root: string): string[] {
  let text: string;
  try {
    text = readRegularFileSync(join(root, PROJECTS_FILE));
  } catch {
    return [];
  }
  return projectDataDirs(text).map((p) => (p.dataDir === undefined ? join(p.path, DATA_DIR) : isAbsolute(p.dataDir) ? p.dataDir : resolve(p.path, p.dataDir)));
}

/** The databases of each root: the registered projects', and the root's own when it is a data folder or project. */
export function* discoverCrushFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const dirs = basename(root) === DB_FILE ? [dirname(root)] : [root, join(root, DATA_DIR), ...registered(root)];
    for (const dir of dirs) {
      const f = dbIn(root, dir);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield f;
    }
  }
}

/** The project a database belongs to: the folder holding its `.crush` data folder, when it is one. */
export function projectOf(db: string): string | undefined {
  const dir = dirname(db);
  return basename(dir) === DATA_DIR ? dirname(dir) : undefined;
}
