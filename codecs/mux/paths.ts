/**
 * Where Mux (coder/mux) keeps a workspace's session data: `<mux root>/sessions/<workspace id>/` (README "Where"),
 * the root being `$MUX_ROOT`, else `~/.mux`. A session's file is its `session-usage.json`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { expandHome } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'mux';
export const USAGE_FILE = 'session-usage.json';

/** `$MUX_ROOT/sessions`, else `~/.mux/sessions`. */
export function getMuxRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const root = env.MUX_ROOT?.trim() ? expandHome(env.MUX_ROOT.trim(), home) : join(home, '.mux');
  return [join(root, 'sessions')];
}

/** Every workspace folder's `session-usage.json` under the roots; the folder's name is the workspace id. */
export function* discoverMuxFiles(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR) continue;
      const dir = join(root, d.name);
      const e = listDir(dir).find((x) => x.kind === FILE && x.name === USAGE_FILE);
      const st = e === undefined ? undefined : fileStat(dir, e);
      if (st === undefined) continue;
      yield { agent: CODEC_ID, path: join(dir, USAGE_FILE), root, sessionId: d.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
