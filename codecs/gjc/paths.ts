/**
 * Where gajae-code (`gjc`, Yeachan-Heo/gajae-code, a fork of oh-my-pi) keeps sessions, as its
 * `packages/utils/src/dirs.ts` resolves them: `<agent dir>/sessions`, the agent dir being
 * `$GJC_CODING_AGENT_DIR`, else `~/<config dir>/agent` with the config dir `$GJC_CONFIG_DIR` (a name under
 * HOME; one with a `..` segment is refused) or `.gjc`. On Linux and macOS, when the agent dir is the default
 * one and `$XDG_DATA_HOME/gjc` exists (after `gjc config migrate`), sessions go to `$XDG_DATA_HOME/gjc/sessions`.
 */
import { join, normalize } from 'node:path';
import { agentSessionRoots } from '../pi/descriptor.js';

export const CODEC_ID = 'gjc';

/** `$GJC_CONFIG_DIR` as gjc takes it: trimmed, and not at all when a `..` segment would leave HOME. */
function configDirName(env: NodeJS.ProcessEnv): string {
  const v = env.GJC_CONFIG_DIR?.trim();
  return v && !normalize(v).split(/[\\/]/).includes('..') ? v : '.gjc';
}

/**
 * gjc's roots: `$GJC_CODING_AGENT_DIR/sessions` when set; else `~/<config dir>/agent/sessions` and, on Linux
 * and macOS with `$XDG_DATA_HOME` set, `$XDG_DATA_HOME/gjc/sessions` (a missing one is skipped, as gjc skips
 * it). gjc also takes `PI_CODING_AGENT_DIR` and `PI_CONFIG_DIR` as legacy names; they are pi's and omp's, so
 * taking them here would list those agents' files under gjc.
 */
export function getGjcRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const roots = agentSessionRoots(env, 'GJC_CODING_AGENT_DIR', configDirName(env));
  const xdgData = env.XDG_DATA_HOME?.trim();
  if (!env.GJC_CODING_AGENT_DIR?.trim() && xdgData && (platform === 'linux' || platform === 'darwin')) roots.push(join(xdgData, 'gjc', 'sessions'));
  return roots;
}
