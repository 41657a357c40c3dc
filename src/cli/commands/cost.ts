/** `sessionfold cost <sub-command>`: what the agents' usage cost. */
import { defineCommand } from '../command.js';

export default defineCommand({
  name: 'cost',
  description: 'What your agents cost: totals and breakdowns by day, week, month, agent, model, session, project or tag; 5-hour billing windows',
  usage: '<command>',
  options: {},
  subCommands: {
    report: () => import('./cost-report.js'),
    blocks: () => import('./cost-blocks.js'),
  },
});
