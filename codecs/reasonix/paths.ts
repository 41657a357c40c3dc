/**
 * Where Reasonix keeps its usage statistics (README.md, "Where"). Reasonix's Go core appends one record per
 * provider usage report to a daily file under its state root, `config.StatsDir()`:
 *
 *   <state root>/stats/YYYY-MM-DD.jsonl
 *
 * The state root is `$REASONIX_STATE_HOME`, else the Reasonix home: `$REASONIX_HOME`, else `~/.reasonix` on
 * macOS and Linux, `%APPDATA%\reasonix` on Windows (`%USERPROFILE%\AppData\Roaming\reasonix` without
 * `%APPDATA%`). A blank variable is unset; `~` is expanded. Every other name in the folder (the append lock
 * `.append.lock`, a file of another shape) is not a day's log.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { distinctFolders, envDir, envPathList } from '../../cursors/env-paths.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'reasonix';

/** A day's file name, `YYYY-MM-DD.jsonl` (Go layout `2006-01-02`). */
const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

/** The day a stats file's name gives, or undefined for any other name. */
export function dayOf(name: string): string | undefined {
  return DAY_FILE.exec(name)?.[1];
}

/** Reasonix's state root: `$REASONIX_STATE_HOME`, else `$REASONIX_HOME`, else the platform's default home. */
export function reasonixStateRoot(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = env.HOME || env.USERPROFILE || homedir();
  // Reasonix reads its folder variables trimmed, blank as unset, `~` expanded, resolved
  const own = envDir(env, 'REASONIX_STATE_HOME', { home, absolute: true }) ?? envDir(env, 'REASONIX_HOME', { home, absolute: true });
  if (own !== undefined) return own;
  if (platform === 'win32') return join(env.APPDATA?.trim() || join(home, 'AppData', 'Roaming'), 'reasonix');
  return join(home, '.reasonix');
}

/** The stats folders: `SESSIONFOLD_REASONIX_DIR` (comma-separated folders) replaces them; else `<state root>/stats`. */
export function getReasonixRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envPathList(env.SESSIONFOLD_REASONIX_DIR);
  if (explicit.length > 0) return explicit;
  return distinctFolders([join(reasonixStateRoot(env, platform), 'stats')]);
}

/** Each day's stats file directly under the roots, synchronously; missing roots are skipped. */
export function* discoverReasonixSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const entry of listDir(root)) {
      const day = entry.kind === FILE ? dayOf(entry.name) : undefined;
      const st = day === undefined ? undefined : fileStat(root, entry);
      if (day === undefined || st === undefined) continue;
      const path = join(root, entry.name);
      if (seen.has(path)) continue;
      seen.add(path);
      yield { agent: CODEC_ID, path, root, sessionId: day, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
