/**
 * Where Grok Build (xAI's `grok` CLI, npm `@xai-official/grok`) keeps its sessions: under its home,
 * `$GROK_HOME` when set, else `~/.grok` (`%USERPROFILE%\.grok` on Windows, where `HOME` is that folder too).
 * A session is a folder `<home>/sessions/<url-encoded workspace path>/<session id>/` holding `updates.jsonl`
 * (the Agent Client Protocol `session/update` notifications, one per line) and the sidecars `summary.json`,
 * `signals.json` and `events.jsonl`. README.md has the sources.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'grok';
export const UPDATES_FILE = 'updates.jsonl';

/** `<home>/sessions`, home = `$GROK_HOME`, else `~/.grok`. */
export function getGrokRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  return [join(envDir(env, 'GROK_HOME', { home }) ?? join(home, '.grok'), 'sessions')];
}

/** The session id of an `updates.jsonl` path: its folder's name (`-` for stdin has none). */
export function grokSessionId(file: string): string {
  return file === '-' ? '' : basename(dirname(file));
}

/** The workspace path the session folder's parent names (URL-encoded by Grok), if it decodes. */
export function grokWorkspace(file: string): string | undefined {
  if (file === '-') return undefined;
  const name = basename(dirname(dirname(file)));
  try {
    const decoded = decodeURIComponent(name);
    return decoded.startsWith('/') || /^[A-Za-z]:[\\/]/.test(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** Every `<root>/<workspace>/<session>/updates.jsonl`, synchronously; missing roots are skipped. */
export function* discoverGrokSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const ws of listDir(root)) {
      if (ws.kind !== DIR) continue;
      const wsDir = join(root, ws.name);
      for (const session of listDir(wsDir)) {
        if (session.kind !== DIR) continue;
        const dir = join(wsDir, session.name);
        const e = listDir(dir).find((x) => x.kind === FILE && x.name === UPDATES_FILE);
        const s = e === undefined ? undefined : fileStat(dir, e);
        if (s === undefined) continue;
        yield { agent: CODEC_ID, path: join(dir, UPDATES_FILE), root, sessionId: session.name, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
      }
    }
  }
}
