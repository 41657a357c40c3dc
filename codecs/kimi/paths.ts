/**
 * Where Kimi Code keeps its sessions: `$KIMI_CODE_HOME/sessions` (default `~/.kimi-code/sessions`, the
 * current CLI) and `$KIMI_SHARE_DIR/sessions` (default `~/.kimi/sessions`, the older Python kimi-cli).
 * `SESSIONFOLD_KIMI_DIR` (comma-separated sessions folders) replaces both. Sources in README.md.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export function getKimiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_KIMI_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || homedir();
  const current = env.KIMI_CODE_HOME?.trim() || join(home, '.kimi-code');
  const legacy = env.KIMI_SHARE_DIR?.trim() || join(home, '.kimi');
  return [join(current, 'sessions'), join(legacy, 'sessions')];
}

/** What a wire file's path says: its session, its agent, and the session's `state.json`. */
export interface WirePath {
  sessionId: string;
  /** `main` for the main agent; a subagent's id (`agent-0`) otherwise. */
  agentId: string;
  /** The session folder's `state.json` (a parse dependency); undefined for a file outside the layout. */
  statePath: string | undefined;
}

const stripSession = (name: string): string => (name.startsWith('session_') ? name.slice('session_'.length) : name);

/**
 * `<root>/<wd>/session_<id>/agents/<agent>/wire.jsonl` (current), or `<root>/<wd-hash>/<id>/wire.jsonl`
 * (legacy). Any other file name is a lone wire file: its name (without `.jsonl`) is the session id.
 */
export function parseWirePath(file: string): WirePath {
  if (basename(file) !== 'wire.jsonl') return { sessionId: basename(file).replace(/\.jsonl$/, ''), agentId: 'main', statePath: undefined };
  const dir = dirname(file);
  const parent = dirname(dir);
  if (basename(parent) === 'agents') {
    const sessionDir = dirname(parent);
    return { sessionId: stripSession(basename(sessionDir)), agentId: basename(dir), statePath: join(sessionDir, 'state.json') };
  }
  return { sessionId: stripSession(basename(dir)), agentId: 'main', statePath: join(dir, 'state.json') };
}

/** The session id events carry: the session's for its main agent, `<session>/<agent>` for a subagent. */
export function wireSessionId(p: WirePath): string {
  return p.agentId === 'main' ? p.sessionId : `${p.sessionId}/${p.agentId}`;
}
