/**
 * Where Mux (coder/mux, renamed Xum: coder/xum) keeps a workspace's session data: `<home>/sessions/<workspace id>/`
 * (README "Where"), the home being `$XUM_ROOT`, else `$MUX_ROOT`, else `~/.xum`, `~/.mux` and `~/.cmux`. A
 * session's file is its `session-usage.json`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'mux';
export const USAGE_FILE = 'session-usage.json';
/** The conversation beside the ledger: the sealed history, then the active epoch (README "The chat"). */
export const CHAT_ARCHIVE_FILE = 'chat-archive.jsonl';
export const CHAT_FILE = 'chat.jsonl';

/**
 * `<home>/sessions` for an explicit home (`$XUM_ROOT`, which wins, else `$MUX_ROOT`), else for each of the homes
 * Xum chooses from when it starts, in its order of preference: `~/.xum`, then the Mux homes `~/.mux` and
 * `~/.cmux` (README "Where").
 */
export function getMuxRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const explicit = envDir(env, 'XUM_ROOT', { home }) ?? envDir(env, 'MUX_ROOT', { home });
  if (explicit !== undefined) return [join(explicit, 'sessions')];
  return ['.xum', '.mux', '.cmux'].map((dir) => join(home, dir, 'sessions'));
}

/**
 * Every workspace folder's `session-usage.json` under the roots; the folder's name is the workspace id. A
 * workspace an earlier root already gave is left out: a Mux home that Xum's move left behind as a link to
 * `~/.xum`, or a copy, holds the same workspaces, and the earlier root is the one Xum prefers.
 */
export function* discoverMuxFiles(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR || seen.has(d.name)) continue;
      const dir = join(root, d.name);
      const e = listDir(dir).find((x) => x.kind === FILE && x.name === USAGE_FILE);
      const st = e === undefined ? undefined : fileStat(dir, e);
      if (st === undefined) continue;
      seen.add(d.name);
      yield { agent: CODEC_ID, path: join(dir, USAGE_FILE), root, sessionId: d.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}
