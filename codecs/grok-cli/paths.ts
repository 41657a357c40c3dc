/**
 * Where the community `grok-cli` (superagent-ai/grok-cli) keeps its sessions: one SQLite database,
 * `os.homedir()/.grok/grok.db` (`src/storage/db.ts`, `getDatabasePath`); no variable moves it. README.md has
 * the schema. A root is the `.grok` folder (a root that is the database itself is taken too).
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'grok-cli';
export const DB_FILE = 'grok.db';

/** `~/.grok` (`os.homedir()` follows `HOME`, `USERPROFILE` on Windows). */
export function getGrokCliRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [join(env.HOME || env.USERPROFILE || homedir(), '.grok')];
}

/** The database of each root. */
export function* discoverGrokCliFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    const dir = basename(root) === DB_FILE ? dirname(root) : root;
    const e = listDir(dir).find((x) => x.kind === FILE && x.name === DB_FILE);
    const st = e === undefined ? undefined : fileStat(dir, e);
    const path = join(dir, DB_FILE);
    if (st === undefined || seen.has(path)) continue;
    seen.add(path);
    yield { agent: CODEC_ID, path, root, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  }
}
