/**
 * Where the OpenHands CLI (OpenHands/OpenHands-CLI) keeps its conversations (README.md, "Where"): one folder per
 * conversation, `<conversations>/<conversation id, 32 hex digits>/`, holding `base_state.json` (the state, with
 * the LLM usage) and `events/` (one `event-<index>-<event id>.json` per event). The conversations folder is
 * `$OPENHANDS_CONVERSATIONS_DIR`, else `$OPENHANDS_PERSISTENCE_DIR/conversations`, else
 * `~/.openhands/conversations` (openhands_cli/locations.py). `SESSIONFOLD_OPENHANDS_DIR` (comma-separated
 * conversations folders) replaces them. A session's file is its `base_state.json`; its `events/` folder is a
 * parse dependency.
 *
 * The web app's V1 server keeps its copy of each conversation's events under `<persistence>/v1/events/<uuid,
 * dashed>/` (README.md, "The web app"), `<persistence>` being `$OH_PERSISTENCE_DIR`, else `$FILE_STORE_PATH`,
 * else `~/.openhands`; that folder is a default root beside the CLI's. An app conversation's session file is
 * its folder's first event file, the folder a parse dependency, and its session id the uuid without dashes,
 * the CLI's form, so that a conversation found in both lists once (the CLI's, which itemizes every call).
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envDir, envPathList } from '../../cursors/env-paths.js';
import { namedFileIn } from '../../cursors/discovery.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'openhands';
/** persistence_const.py `BASE_STATE`. */
export const BASE_STATE = 'base_state.json';
/** persistence_const.py `EVENTS_DIR`. */
export const EVENTS_DIR = 'events';

/** The web app's folder of event folders under its persistence folder (`filesystem_event_service.py`). */
export const APP_EVENTS = join('v1', 'events');
/** The web app's database, in its persistence folder (`services/db_session_injector.py`). */
export const APP_DB = 'openhands.db';

/**
 * The folders of conversations: `SESSIONFOLD_OPENHANDS_DIR`, else the CLI's own (locations.py
 * `get_conversations_dir`) and the web app's `v1/events` (app_server/config.py `get_default_persistence_dir`).
 */
export function getOpenHandsRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_OPENHANDS_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || env.USERPROFILE || homedir();
  const persistence = envDir(env, 'OPENHANDS_PERSISTENCE_DIR', { home }) ?? join(home, '.openhands');
  const cli = envDir(env, 'OPENHANDS_CONVERSATIONS_DIR', { home }) ?? join(persistence, 'conversations');
  // `OH_PERSISTENCE_DIR`, else V0's `FILE_STORE_PATH` (read by later versions of config.py), else ~/.openhands
  const app = envDir(env, 'OH_PERSISTENCE_DIR', { home }) ?? envDir(env, 'FILE_STORE_PATH', { home }) ?? join(home, '.openhands');
  return [cli, join(app, APP_EVENTS)];
}

/** The V1 app's event file name: `<YYYYMMDDHHMMSS>_<event class>_<event id hex>` (`_get_event_filename`). */
export const APP_EVENT_NAME = /^(\d{14})_([A-Za-z0-9_]+)_([0-9a-fA-F]{32})$/;
/** A conversation's folder in the app's `v1/events`: `str(conversation_id)`, a dashed uuid. */
const DASHED_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** An app conversation's id: its folder's uuid without dashes, lowercase (the CLI's `conversation_id.hex`). */
export const appConversationId = (dir: string): string => basename(dir).replace(/-/g, '').toLowerCase();

/** Whether a session file is an app conversation's event file (not a CLI `base_state.json`). */
export const isAppEventFile = (file: string): boolean => APP_EVENT_NAME.test(basename(file)) && DASHED_UUID.test(basename(dirname(file)));

/** The app's database beside `<persistence>/v1/events/<uuid>/<event file>`. */
export const appDbOf = (file: string): string => join(dirname(dirname(dirname(dirname(file)))), APP_DB);

/** A conversation's id: the name of the folder its `base_state.json` is in (the SDK names it `conversation_id.hex`). */
export function conversationIdOf(file: string): string {
  return isAppEventFile(file) ? appConversationId(dirname(file)) : basename(dirname(file));
}

/** The `events/` folder beside a conversation's `base_state.json`. */
export function eventsDirOf(file: string): string {
  return join(dirname(file), EVENTS_DIR);
}

/** An app conversation folder's first event file (names sort by time), as a session file; undefined without one. */
function appConversationIn(root: string, dir: string): SessionFile | undefined {
  const e = listDir(dir).find((x) => x.kind === FILE && APP_EVENT_NAME.test(x.name));
  const st = e === undefined ? undefined : fileStat(dir, e);
  if (e === undefined || st === undefined) return undefined;
  return { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: appConversationId(dir), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
}

/**
 * Every `<root>/<conversation>/base_state.json` and every app conversation folder `<root>/<dashed uuid>/`,
 * synchronously; missing roots are skipped. An app conversation whose id a CLI conversation has is left out:
 * both hold the same conversation (a process sandbox's folder named in SESSIONFOLD_OPENHANDS_DIR), and the
 * CLI's state itemizes every call.
 */
export function* discoverOpenHandsSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>(); // a root named twice lists its conversations once
  const cli = new Set<string>();
  const app: SessionFile[] = [];
  for (const root of roots) {
    for (const d of listDir(root)) {
      if (d.kind !== DIR) continue;
      const dir = join(root, d.name);
      const f = namedFileIn(CODEC_ID, root, dir, BASE_STATE) ?? (DASHED_UUID.test(d.name) ? appConversationIn(root, dir) : undefined);
      if (f === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      if (isAppEventFile(f.path)) app.push(f);
      else {
        cli.add(d.name.toLowerCase());
        yield { ...f, sessionId: d.name };
      }
    }
  }
  for (const f of app) if (!cli.has(f.sessionId as string)) yield f;
}
