/**
 * `sessionfold sessions fork <agent>:<id> [--at <n>] [--name <name>] [--title <t>]`: a new session in the
 * store holding the first n messages of any agent's session (all without --at), with fork provenance. The
 * agent's own files are only read; the fork is `store:<name>` for every other command.
 */
import { forkAgentSession } from '../../store/import.js';
import { validateWriteName } from '../../store/names.js';
import { bool, defineCommand, str, type CommandContext } from '../command.js';
import { sessionTarget } from './sessions-common.js';
import { countOption, JSON_OPTION, managerOptions, STORE_OPTION, storeAt, writeJson } from './store-common.js';

export default defineCommand({
  name: 'fork',
  description: 'Fork a session of any agent at message n into the session store.',
  usage: '<agent>:<session-id> | <agent> <session-id>',
  options: {
    at: { type: 'string', description: 'Keep the first n messages (default: all)', valueName: '<n>' },
    name: { type: 'string', description: 'Name of the fork in the store (default <id>-fork-<ms>)', valueName: '<name>' },
    title: { type: 'string', description: 'Title (default: "<title> (fork)")', valueName: '<title>' },
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx: CommandContext) {
    const at = countOption(ctx, 'at');
    const name = str(ctx, 'name');
    if (name !== undefined) validateWriteName(name); // options before the lookup, as every command checks them
    const title = str(ctx, 'title');
    const { agent, id } = await sessionTarget(ctx, managerOptions(ctx));
    const store = storeAt(ctx);
    const p = await forkAgentSession(store, agent, id, {
      ...(at !== undefined && { at }),
      ...(name !== undefined && { name }),
      ...(title !== undefined && { title }),
      manager: managerOptions(ctx),
    });
    if (bool(ctx, 'json')) writeJson(ctx, { ...p, unifiedId: `store:${p.to}`, store: store.root });
    else ctx.stdout.write(`forked ${p.from} into store:${p.to} (${p.messagesKept} of ${p.sourceMessages} messages) in ${store.root}\n`);
    return 0;
  },
});
