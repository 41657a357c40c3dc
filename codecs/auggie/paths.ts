/**
 * Where Auggie, Augment Code's CLI, keeps its sessions (README.md, "Where"): one JSON document per session,
 * `<augment dir>/sessions/<session id>.json`, the folder being `$AUGMENT_CACHE_DIR`, else `~/.augment`. A root
 * is a `sessions` folder; the session id is the file's name.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { expandHome } from '../../cursors/env-paths.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'auggie';

/** `$AUGMENT_CACHE_DIR/sessions`, else `~/.augment/sessions`. */
export function getAuggieRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const dir = env.AUGMENT_CACHE_DIR?.trim();
  return [join(dir ? expandHome(dir, home) : join(home, '.augment'), 'sessions')];
}

/** The session id a session file's name gives (`<session id>.json`). */
export function auggieSessionIdOf(file: string): string {
  return basename(file).replace(/\.json$/, '');
}

/** Every `*.json` directly in the roots, synchronously; missing roots are skipped. */
export function* discoverAuggieSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const e of listDir(root)) {
      if (e.kind !== FILE || !e.name.endsWith('.json')) continue;
      const st = fileStat(root, e);
      if (st === undefined) continue;
      yield { agent: CODEC_ID, path: join(root, e.name), root, sessionId: auggieSessionIdOf(e.name), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
