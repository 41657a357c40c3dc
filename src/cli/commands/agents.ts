/** `sessionfold agents`: the registered codecs, their capabilities and default roots. */
import { listCodecs } from '../../registry.js';
import { bool, defineCommand } from '../command.js';
import { renderTable } from '../render/session-table.js';

export default defineCommand({
  name: 'agents',
  description: 'List the registered agents (codecs), their capabilities and default roots.',
  usage: '',
  options: { json: { type: 'boolean', description: 'Print JSON' } },
  async run(ctx) {
    const rows = listCodecs().map((c) => ({
      id: c.id,
      aliases: [...c.aliases],
      name: c.displayName,
      persistence: c.capabilities.persistence,
      incremental: c.capabilities.incremental,
      roots: c.defaultRoots(ctx.env),
    }));
    if (bool(ctx, 'json')) ctx.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    else {
      const cells = rows.map((r) => [r.id, r.persistence, r.incremental ? 'resumable' : '', r.roots.join(', ')]);
      // every root whole, however wide: they are what a user copies from here
      ctx.stdout.write(renderTable(['Agent', 'Storage', 'Reads', 'Roots'], cells, Infinity));
    }
    return 0;
  },
});
