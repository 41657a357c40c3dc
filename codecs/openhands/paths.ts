/**
 * Where the OpenHands CLI (OpenHands/OpenHands-CLI) keeps its conversations (README.md, "Where"): one folder per
 * conversation, `<conversations>/<conversation id, 32 hex digits>/`, holding `base_state.json` (the state, with
 * the LLM usage) and `events/` (one `event-<index>-<event id>.json` per event). The conversations folder is
 * `$OPENHANDS_CONVERSATIONS_DIR`, else `$OPENHANDS_PERSISTENCE_DIR/conversations`, else
 * `~/.openhands/conversations` (openhands_cli/locations.py). `SESSIONFOLD_OPENHANDS_DIR` (comma-separated
 * conversations folders) replaces them. A session's file is its `base_state.json`; its `events/` folder is a
 * parse dependency.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envPathList, expandHome } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { DIR, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'openhands';
/** persistence_const.py `BASE_STATE`. */
export const BASE_STATE = 'base_state.json';
/** persistence_const.py `EVENTS_DIR`. */
export const EVENTS_DIR = 'events';

/** The conversations folders: `SESSIONFOLD_OPENHANDS_DIR`, else the CLI's own (locations.py `get_conversations_dir`). */
export function getOpenHandsRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_OPENHANDS_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || env.USERPROFILE || homedir();
  const conversations = env.OPENHANDS_CONVERSATIONS_DIR?.trim();
  if (conversations) return [expandHome(conversations, home)];
  const persistence = env.OPENHANDS_PERSISTENCE_DIR?.trim();
  return [join(persistence ? expandHome(persistence, home) : join(home, '.openhands'), 'conversations')];
}

/** A conversation's id: the name of the folder its `base_state.json` is in (the SDK names it `conversation_id.hex`). */
export function conversationIdOf(file: string): string {
  return basename(dirname(file));
}

/** The `events/` folder beside a conversation's `base_state.json`. */
export function eventsDirOf(file: string): string {
  return join(dirname(file), EVENTS_DIR);
}

/** Every `<root>/<conversation>/base_state.json`, synchronously; missing roots are skipped. */
export function* discoverOpenHandsSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>(); // a root named twice lists its conversations once
  for (const root of roots) {
    for (const d of listDir(root)) {
      const f = d.kind === DIR ? namedFileIn(CODEC_ID, root, join(root, d.name), BASE_STATE) : undefined;
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      yield { ...f, sessionId: d.name };
    }
  }
}
