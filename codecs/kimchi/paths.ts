/**
 * Where Kimchi (getkimchi/kimchi, Cast AI's harness around pi's coding agent) keeps sessions: its entry point
 * (`src/entry.ts`) sets `KIMCHI_CODING_AGENT_DIR` and `PI_CODING_AGENT_DIR` to `~/.config/kimchi/harness`
 * before pi's code loads, and pi writes `<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl` there.
 */
import { join } from 'node:path';
import { movableSessionRoots } from '../pi/descriptor.js';

export const CODEC_ID = 'kimchi';

/**
 * Kimchi's roots: `$KIMCHI_CODING_AGENT_DIR/sessions`, else `~/.config/kimchi/harness/sessions` (`homedir()`
 * joined with `.config`, not `$XDG_CONFIG_HOME`: Kimchi does not read it). Kimchi overwrites the variable at
 * start, so a value reaches here only from a process Kimchi started, where it names the same folder. Beside
 * it, the folder pi moves sessions to: `$KIMCHI_CODING_AGENT_SESSION_DIR` (pi's variable under Kimchi's
 * `piConfig.name`), else the harness `settings.json` `sessionDir`.
 */
export function getKimchiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return movableSessionRoots(env, 'KIMCHI_CODING_AGENT_DIR', 'KIMCHI_CODING_AGENT_SESSION_DIR', join('.config', 'kimchi'), 'harness');
}
