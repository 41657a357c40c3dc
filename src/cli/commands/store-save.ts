/**
 * `sessionfold store save <agent>:<id> [--name <name>] [--title <t>] [--force] [--no-subagents]`: copy a
 * session of any agent, with the subagents it spawned, into the store. The agent's files are only read.
 */
import { importSession } from '../../store/import.js';
import { validateWriteName } from '../../store/names.js';
import { bool, defineCommand, str, type CommandContext } from '../command.js';
import { sessionTarget } from './sessions-common.js';
import { JSON_OPTION, managerOptions, STORE_OPTION, storeAt, writeJson } from './store-common.js';

export default defineCommand({
  name: 'save',
  description: 'Save a session of any agent (with its subagents) into the store.',
  usage: '<agent>:<session-id> | <agent> <session-id>',
  options: {
    name: { type: 'string', description: 'Name in the store (default: the session id)', valueName: '<name>' },
    title: { type: 'string', description: "Title (default: the session's own)", valueName: '<title>' },
    force: { type: 'boolean', description: 'Replace a stored session of the same name, its whole family' },
    subagents: { type: 'boolean', description: 'Store the subagents it spawned (default; --no-subagents leaves them out)' },
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx: CommandContext) {
    const name = str(ctx, 'name');
    if (name !== undefined) validateWriteName(name); // options before the lookup, as every command checks them
    const title = str(ctx, 'title');
    const { agent, id } = await sessionTarget(ctx, managerOptions(ctx));
    const store = storeAt(ctx);
    const r = await importSession(store, agent, id, {
      ...(name !== undefined && { name }),
      ...(title !== undefined && { title }),
      overwrite: bool(ctx, 'force'),
      subagents: ctx.values.subagents !== false,
      manager: managerOptions(ctx),
    });
    if (bool(ctx, 'json')) writeJson(ctx, { ...r, store: store.root, unifiedId: `store:${r.name}` });
    else {
      const subs = r.subagents.length > 0 ? `, ${r.subagents.length} subagent${r.subagents.length === 1 ? '' : 's'}` : '';
      ctx.stdout.write(`saved ${agent}:${id} as store:${r.name} (${r.messages} messages, ${r.usageEvents} usage records${subs}) in ${store.root}\n`);
    }
    return 0;
  },
});
