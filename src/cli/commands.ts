/** The top-level command table. Each entry is imported only when its command runs. */
import type { CommandDef } from './command.js';

export const COMMANDS: Record<string, { description: string; load: () => Promise<{ default: CommandDef }> }> = {
  read: { description: 'Stream a session file as NDJSON events, resumably', load: () => import('./commands/read.js') },
  agents: { description: 'List the registered agents and their roots', load: () => import('./commands/agents.js') },
};
