/**
 * Where omp (oh-my-pi, can1357/oh-my-pi) keeps sessions: pi's layout under its own agent dir,
 * `$OMP_CODING_AGENT_DIR` else `~/.omp/agent` (`ompConfig.configDir: ".omp"` in
 * `packages/coding-agent/package.json`), then `sessions/--<cwd>--/<time>_<id>.jsonl`.
 */
import { agentSessionRoots } from '../pi/descriptor.js';

export const CODEC_ID = 'omp';

/** omp's roots: `$OMP_CODING_AGENT_DIR/sessions`, else `~/.omp/agent/sessions`. */
export function getOmpRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return agentSessionRoots(env, 'OMP_CODING_AGENT_DIR', '.omp');
}
