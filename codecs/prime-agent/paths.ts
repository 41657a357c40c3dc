/**
 * Where Prime Agent (PrimeIntellect-ai/prime-agent, a fork of pi) keeps sessions, from its
 * `packages/coding-agent/src/config.ts` and `core/session-manager.ts` (README.md cites the commits):
 *
 *   <sessions>/<session id>.jsonl                                     root sessions and their forks (flat)
 *   <sessions>/../session-artifacts/<root id>/sub-<8 hex>/<id>.jsonl  RLM children, `sub-…/sub-…/` deeper down
 *   <sessions>/../session-artifacts/<root id>/act[-depth-<n>]/session.jsonl   Act lanes
 *
 * `<sessions>` is `$PRIME_AGENT_SESSION_DIR` (else the older `$PRIME_AGENT_CODING_AGENT_SESSION_DIR`), else the
 * `sessionDir` of the agent dir's `settings.json`, else `<agent dir>/sessions` with `<agent dir>` =
 * `$PRIME_AGENT_CODING_AGENT_DIR` or `~/.prime/agent`. The agent dir's own `sessions/` is read beside a moved
 * folder (what was written before the move). `SESSIONFOLD_PRIME_AGENT_DIR` (comma-separated sessions folders)
 * replaces them all; each folder's sibling `session-artifacts` comes with it. The listing of these folders is
 * discover.ts (it takes pi's listing helpers from pi's codec, which the descriptor that imports this file
 * must not load).
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { envPathList, expandHome } from '../../cursors/env-paths.js';
import { movableSessionRoots } from '../pi/descriptor.js';

export const CODEC_ID = 'prime-agent';

/** Prime's sessions folders, the one new sessions go to first (see the file header). */
export function getPrimeAgentRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const own = envPathList(env.SESSIONFOLD_PRIME_AGENT_DIR, (p) => expandHome(p, home)).map((p) => expandHome(p, home));
  if (own.length > 0) return own;
  return movableSessionRoots(env, 'PRIME_AGENT_CODING_AGENT_DIR', ['PRIME_AGENT_SESSION_DIR', 'PRIME_AGENT_CODING_AGENT_SESSION_DIR'], '.prime');
}

/** The artifacts tree beside a sessions folder (Prime's `getSessionArtifactsRoot`). */
export function artifactsRoot(sessionsRoot: string): string {
  return join(dirname(sessionsRoot), 'session-artifacts');
}
