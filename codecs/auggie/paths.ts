/**
 * Where Auggie, Augment Code's CLI, keeps its sessions (README.md, "Where"): one JSON document per session,
 * `<augment dir>/sessions/<session id>.json`, the folder being `$AUGMENT_CACHE_DIR`, else `~/.augment`. A root
 * is a `sessions` folder; the session id is the file's name, a backup's (`<id>-backup<N>.json`) its session's.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'auggie';

/** `$AUGMENT_CACHE_DIR/sessions`, else `~/.augment/sessions`. */
export function getAuggieRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  return [join(envDir(env, 'AUGMENT_CACHE_DIR', { home }) ?? join(home, '.augment'), 'sessions')];
}

/** A backup Auggie writes beside a session (`SessionBackupStore.saveBackup`): `<session id>-backup<N>.json`. */
const BACKUP = /^(.+)-backup\d+\.json$/;

/** The session id a session file's name gives: `<session id>.json`, or a backup's `<session id>-backup<N>.json`. */
export function auggieSessionIdOf(file: string): string {
  const name = basename(file);
  return BACKUP.exec(name)?.[1] ?? name.replace(/\.json$/, '');
}

/**
 * Every `*.json` directly in the roots, synchronously; missing roots are skipped. A backup is listed under its
 * session's id, after the root's sessions, so a look-up by id meets the session itself first.
 */
export function* discoverAuggieSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    const backups: SessionFile[] = [];
    for (const e of listDir(root)) {
      if (e.kind !== FILE || !e.name.endsWith('.json')) continue;
      const st = fileStat(root, e);
      if (st === undefined) continue;
      const f: SessionFile = { agent: CODEC_ID, path: join(root, e.name), root, sessionId: auggieSessionIdOf(e.name), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      if (BACKUP.test(e.name)) backups.push(f);
      else yield f;
    }
    yield* backups;
  }
}
