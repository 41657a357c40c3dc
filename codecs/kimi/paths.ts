/**
 * Where the two Kimi CLIs keep their sessions: Kimi Code in `$KIMI_CODE_HOME/sessions` (default
 * `~/.kimi-code/sessions`), the Python kimi-cli in `$KIMI_SHARE_DIR/sessions` and `$KIMI_SHARE_DIR/imported_sessions`
 * (default `~/.kimi`). `SESSIONFOLD_KIMI_DIR` (comma-separated sessions folders) replaces them all. Sources in
 * README.md.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envDir, envPathList } from '../../cursors/env-paths.js';

export function getKimiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_KIMI_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || homedir();
  const current = env.KIMI_CODE_HOME?.trim() || join(home, '.kimi-code');
  // kimi-cli's share.py: `Path(KIMI_SHARE_DIR).expanduser()`, else `~/.kimi`
  const share = envDir(env, 'KIMI_SHARE_DIR', { home }) ?? join(home, '.kimi');
  return [join(current, 'sessions'), join(share, 'sessions'), join(share, IMPORTED_DIR)];
}

/** kimi-cli's folder of sessions imported from a zip (`kimi vis`): one `<id>/` per import, as in `sessions/`. */
export const IMPORTED_DIR = 'imported_sessions';

/** Which CLI wrote a wire file, as its path says. */
export type WireLayout = 'kimi-code' | 'kimi-cli' | 'lone';

/** What a wire file's path says: its session, its agent, and the small JSON file beside it that describes them. */
export interface WirePath {
  /** The session's id: a subagent's wire names its parent session here. */
  sessionId: string;
  /** `main` for the main agent; a subagent's id (`agent-0`, `a1b2c3d4`) otherwise. */
  agentId: string;
  /**
   * A parse dependency: the session's `state.json` (Kimi Code; kimi-cli's main agent), or a kimi-cli
   * subagent's `meta.json`. Undefined for a file outside both layouts.
   */
  statePath: string | undefined;
  layout: WireLayout;
  /** A kimi-cli session imported into `imported_sessions/`: a copy of a session made elsewhere. */
  imported: boolean;
  /**
   * The kimi-cli share folder (`~/.kimi`, `$KIMI_SHARE_DIR`) of a session under its `sessions/` folder, whose
   * `config.toml` and `kimi.json` describe it; undefined for an imported session (made elsewhere, described by
   * another machine's files) and outside the layout.
   */
  shareDir: string | undefined;
  /** The folder between `sessions/` and the session's: the MD5 of its work dir (`<kaos>_<md5>` off the local one). */
  workDirKey: string | undefined;
}

/** kimi-cli's config in its share folder (`config.py` `get_config_file`): the default model. */
export const CLI_CONFIG_FILE = 'config.toml';

/** kimi-cli's metadata in its share folder (`metadata.py` `get_metadata_file`): the work dirs. */
export const CLI_METADATA_FILE = 'kimi.json';

/** The share folder and work-dir key of a kimi-cli session folder `<share>/sessions/<key>/<id>`. */
function shareOf(sessionDir: string, imported: boolean): Pick<WirePath, 'shareDir' | 'workDirKey'> {
  const keyDir = dirname(sessionDir);
  const sessions = dirname(keyDir);
  if (imported || basename(sessions) !== 'sessions') return { shareDir: undefined, workDirKey: undefined };
  return { shareDir: dirname(sessions), workDirKey: basename(keyDir) };
}

/** kimi-cli's files in the share folder a wire's events take something from: parse dependencies. */
export function shareFilesOf(p: WirePath): string[] {
  return p.shareDir === undefined ? [] : [join(p.shareDir, CLI_CONFIG_FILE), join(p.shareDir, CLI_METADATA_FILE)];
}

const stripSession = (name: string): string => (name.startsWith('session_') ? name.slice('session_'.length) : name);

/**
 * - Kimi Code: `<root>/<wd>/session_<id>/agents/<agent>/wire.jsonl`;
 * - kimi-cli: `<root>/<md5 of cwd>/<id>/wire.jsonl`, its subagents at `<id>/subagents/<agent>/wire.jsonl`, and
 *   imported sessions at `imported_sessions/<id>/wire.jsonl`.
 *
 * Any other file name is a lone wire file: its name (without `.jsonl`) is the session id.
 */
export function parseWirePath(file: string): WirePath {
  const none = { shareDir: undefined, workDirKey: undefined };
  if (basename(file) !== 'wire.jsonl') return { sessionId: basename(file).replace(/\.jsonl$/, ''), agentId: 'main', statePath: undefined, layout: 'lone', imported: false, ...none };
  const dir = dirname(file);
  const parent = dirname(dir);
  if (basename(parent) === 'agents') {
    const sessionDir = dirname(parent);
    return { sessionId: stripSession(basename(sessionDir)), agentId: basename(dir), statePath: join(sessionDir, 'state.json'), layout: 'kimi-code', imported: false, ...none };
  }
  if (basename(parent) === 'subagents') {
    const sessionDir = dirname(parent);
    const imported = basename(dirname(sessionDir)) === IMPORTED_DIR;
    return { sessionId: basename(sessionDir), agentId: basename(dir), statePath: join(dir, 'meta.json'), layout: 'kimi-cli', imported, ...shareOf(sessionDir, imported) };
  }
  const imported = basename(parent) === IMPORTED_DIR;
  return { sessionId: stripSession(basename(dir)), agentId: 'main', statePath: join(dir, 'state.json'), layout: 'kimi-cli', imported, ...shareOf(dir, imported) };
}

/** The session id events carry: the session's for its main agent, `<session>/<agent>` for a subagent. */
export function wireSessionId(p: WirePath): string {
  return p.agentId === 'main' ? p.sessionId : `${p.sessionId}/${p.agentId}`;
}
