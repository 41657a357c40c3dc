/**
 * Where Factory Droid keeps its sessions: `~/.factory/sessions/<project path with '/' as '-'>/<uuid>.jsonl`,
 * each with a `<uuid>.settings.json` beside it (README "Where"). Factory documents no variable that moves the
 * folder; `$DROID_SESSIONS_DIR` (comma-separated) is the override ccusage reads, accepted for parity.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir, type DirEntry } from '../../cursors/list-dir.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'droid';

/** `$DROID_SESSIONS_DIR` (comma-separated), else `~/.factory/sessions`. */
export function getDroidRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.DROID_SESSIONS_DIR);
  if (explicit.length > 0) return explicit;
  return [join(env.HOME || homedir(), '.factory', 'sessions')];
}

/** The session's sidecar: `<uuid>.settings.json` beside `<uuid>.jsonl`. */
export function settingsPathFor(file: string): string {
  return file.replace(/\.jsonl$/, '') + '.settings.json';
}

/** The session id a file name gives (`<uuid>.jsonl`). */
export function droidStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

function* sessionsIn(dir: string, root: string, entries: readonly DirEntry[]): Generator<SessionFile> {
  for (const e of entries) {
    if (e.kind !== FILE || !e.name.endsWith('.jsonl')) continue;
    const s = fileStat(dir, e);
    if (s === undefined) continue;
    yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: e.name.slice(0, -'.jsonl'.length), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
  }
}

/** Every session under the roots: `<root>/<project>/*.jsonl` and, from older versions, `<root>/*.jsonl`. */
export function* discoverDroidSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    const top = listDir(root);
    yield* sessionsIn(root, root, top);
    for (const project of top) {
      if (project.kind !== DIR) continue;
      const dir = join(root, project.name);
      yield* sessionsIn(dir, root, listDir(dir));
    }
  }
}
