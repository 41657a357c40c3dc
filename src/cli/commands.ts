/** The top-level command table. Each entry is imported only when its command runs. */
import type { CommandDef } from './command.js';

export const COMMANDS: Record<string, { description: string; load: () => Promise<{ default: CommandDef }> }> = {
  start: { description: 'The main job: recent sessions and cost over your agent folders (or the demo history)', load: () => import('./commands/start.js') },
  read: { description: 'Stream a session file as NDJSON events, resumably', load: () => import('./commands/read.js') },
  agents: { description: 'List the registered agents and their roots', load: () => import('./commands/agents.js') },
  cost: { description: 'What your agents cost: `cost report` by day, model, agent, project, session or tag; `cost blocks`, 5-hour windows', load: () => import('./commands/cost.js') },
  events: { description: 'Bulk usage events: `events export` (NDJSON/CSV, incremental with --after)', load: () => import('./commands/events.js') },
  sessions: { description: 'List, show, search, export, diff, resume and fork sessions', load: () => import('./commands/sessions.js') },
  store: { description: "Keep sessions of any agent in sessionfold's own store: save, archive, fork, prune", load: () => import('./commands/store.js') },
  statusline: { description: "One status-bar line: model, session and today's cost, the active 5-hour window, context used", load: () => import('./commands/statusline.js') },
  serve: { description: 'Answer `cost report`, `sessions list` and `statusline` from a resident, watching process (faster repeat runs)', load: () => import('./commands/serve.js') },
  bench: { description: 'Measure how fast sessionfold reads your own history (full and usage-only, cold and warm)', load: () => import('./commands/bench.js') },
};
