/**
 * Where Open Code Review (`ocr`, alibaba/open-code-review) keeps its review sessions:
 * `~/.opencodereview/sessions/<repo key>/<session id>.jsonl` (README "Where"). The home is Go's
 * `os.UserHomeDir()` (`$HOME`, `%USERPROFILE%` on Windows) and OCR reads no variable that moves the folder;
 * `SESSIONFOLD_OPENCODEREVIEW_DIR` (comma-separated sessions folders) replaces it. The raw HTTP captures OCR
 * keeps in `~/.opencodereview/raw/` are another folder and are never listed: they repeat the sessions' calls.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'opencodereview';

/** `SESSIONFOLD_OPENCODEREVIEW_DIR` when set, else `~/.opencodereview/sessions`. */
export function getOpenCodeReviewRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_OPENCODEREVIEW_DIR);
  if (explicit.length > 0) return explicit;
  return [join(env.HOME || env.USERPROFILE || homedir(), '.opencodereview', 'sessions')];
}

/** The session id a session file's name gives (`<sessionId>.jsonl`). */
export function openCodeReviewStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

/** Every session file under the roots (`<root>/<repo key>/<id>.jsonl`), synchronously; missing roots are skipped. */
export function* discoverOpenCodeReviewSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const repo of listDir(root)) {
      if (repo.kind !== DIR) continue;
      const dir = join(root, repo.name);
      for (const e of listDir(dir)) {
        if (e.kind !== FILE || !e.name.endsWith('.jsonl')) continue;
        const s = fileStat(dir, e);
        if (s === undefined) continue;
        yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: openCodeReviewStem(e.name), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
      }
    }
  }
}
