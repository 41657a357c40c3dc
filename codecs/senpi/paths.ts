/**
 * Where Senpi (code-yeongyu/senpi, a pi fork) keeps sessions: pi's layout under its own agent dir,
 * `$SENPI_CODING_AGENT_DIR` else `~/.senpi/agent` (`piConfig: {name: "senpi", configDir: ".senpi"}` in
 * `packages/coding-agent/package.json`; pi's `config.ts` derives the variable from the name), then
 * `sessions/--<cwd>--/<time>_<id>.jsonl`. `$SENPI_CODING_AGENT_SESSION_DIR` (pi's `ENV_SESSION_DIR`), else the
 * agent dir's `settings.json` `sessionDir`, names a session folder of its own (files directly in it), read
 * beside the agent dir's.
 */
import { movableSessionRoots } from '../pi/descriptor.js';

export const CODEC_ID = 'senpi';

/** Senpi's roots: `$SENPI_CODING_AGENT_SESSION_DIR` else the settings' `sessionDir`, and `$SENPI_CODING_AGENT_DIR/sessions` (else `~/.senpi/agent/sessions`). */
export function getSenpiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return movableSessionRoots(env, 'SENPI_CODING_AGENT_DIR', 'SENPI_CODING_AGENT_SESSION_DIR', '.senpi');
}
