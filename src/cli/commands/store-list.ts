/** `sessionfold store list [--archived|--active] [--json]`: the stored sessions, active then archived. */
import { bool, defineCommand, type CommandContext } from '../command.js';
import { formatLocal, renderTable, terminalWidth } from './sessions-common.js';
import { JSON_OPTION, STORE_OPTION, storeAt, writeJson } from './store-common.js';

export default defineCommand({
  name: 'list',
  description: 'List the stored sessions (active and archived).',
  usage: '',
  options: {
    archived: { type: 'boolean', oneOf: 'state', description: 'Only archived sessions' },
    active: { type: 'boolean', oneOf: 'state', description: 'Only active sessions' },
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx: CommandContext) {
    const all = await storeAt(ctx).list();
    const rows = all.filter((s) => (bool(ctx, 'archived') ? s.archived : bool(ctx, 'active') ? !s.archived : true));
    if (bool(ctx, 'json')) {
      writeJson(ctx, rows);
      return 0;
    }
    if (rows.length === 0) {
      ctx.stdout.write('no stored sessions\n');
      return 0;
    }
    const cells = rows.map((s) => [
      `store:${s.name}`,
      s.archived ? 'archived' : 'active',
      formatLocal(new Date(s.mtimeMs)),
      s.messageCount === undefined ? '-' : String(s.messageCount),
      s.origin !== undefined ? `${s.origin.agent}:${s.origin.sessionId}` : s.forkedFrom !== undefined ? `fork of ${s.forkedFrom}` : '-',
      s.title,
    ]);
    ctx.stdout.write(renderTable(['Session', 'State', 'Saved', 'Msgs', 'From', 'Title'], cells, terminalWidth(ctx), new Set([3])));
    return 0;
  },
});
