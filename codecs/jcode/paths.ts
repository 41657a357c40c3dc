/**
 * Where Jcode (1jehuang/jcode) keeps its sessions (README.md, "Where"): `<jcode dir>/sessions/<session id>.json`,
 * the snapshot, and `<session id>.journal.jsonl` beside it, the journal of what was appended since. The jcode dir
 * is `$JCODE_HOME`, else `~/.jcode` on every OS (`storage::jcode_dir`). `SESSIONFOLD_JCODE_DIR`
 * (comma-separated) names `sessions` folders directly, like the other codecs' variables.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir, envPathList } from '../../cursors/env-paths.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'jcode';

/** `SESSIONFOLD_JCODE_DIR`, else `$JCODE_HOME/sessions`, else `~/.jcode/sessions`. */
export function getJcodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_JCODE_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || env.USERPROFILE || homedir();
  return [join(envDir(env, 'JCODE_HOME', { home }) ?? join(home, '.jcode'), 'sessions')];
}

/** The session id a snapshot's name gives: `<session id>.json`. */
export function jcodeSessionIdOf(file: string): string {
  return basename(file).replace(/\.json$/, '');
}

/** The journal beside a snapshot (`session_journal_path_from_snapshot`): `<stem>.journal.jsonl`. */
export function journalOf(file: string): string {
  return file.replace(/\.json$/, '.journal.jsonl');
}

/**
 * Every snapshot (`*.json`) directly in the roots, synchronously; missing roots are skipped. The backup Jcode
 * keeps (`<id>.json.bak`) and the journal are not snapshots; a journal without its snapshot is never loaded by
 * Jcode (`load_from_path` reads the snapshot first), so it is not listed either.
 */
export function* discoverJcodeSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const e of listDir(root)) {
      if (e.kind !== FILE || !e.name.endsWith('.json')) continue;
      const st = fileStat(root, e);
      if (st === undefined) continue;
      yield { agent: CODEC_ID, path: join(root, e.name), root, sessionId: jcodeSessionIdOf(e.name), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
