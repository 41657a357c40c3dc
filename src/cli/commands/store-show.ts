/**
 * `sessionfold store show <name> [--json]`: one stored family: where it is, its title and origin, fork
 * provenance, the members present and the stored subagents with their lineage. The conversation itself:
 * `sessionfold sessions show store:<name>`.
 */
import { bool, defineCommand, type CommandContext } from '../command.js';
import { formatLocal } from './sessions-common.js';
import { JSON_OPTION, positional, STORE_OPTION, storeAt, writeJson } from './store-common.js';

export default defineCommand({
  name: 'show',
  description: 'Show one stored session family: title, origin, fork provenance, members and subagents.',
  usage: '<name>',
  options: { ...STORE_OPTION, ...JSON_OPTION },
  async run(ctx: CommandContext) {
    const name = positional(ctx, 0, '<name>').replace(/^store:/, '');
    const d = await storeAt(ctx).describe(name);
    if (bool(ctx, 'json')) {
      writeJson(ctx, d);
      return 0;
    }
    const lines = [`store:${d.name}${d.archived ? ' (archived)' : ''}`, `  title:      ${d.meta?.title ?? ''}`, `  transcript: ${d.path}`];
    if (d.meta !== undefined) lines.push(`  saved:      ${formatLocal(new Date(d.meta.createdAtMs))}, ${d.meta.messageCount ?? '?'} messages`);
    if (d.meta?.origin !== undefined) lines.push(`  origin:     ${d.meta.origin.agent}:${d.meta.origin.sessionId}`);
    if (d.fork !== undefined) {
      const at = d.fork.truncatedAtMessage !== undefined ? `, first ${d.fork.messagesKept} of ${d.fork.sourceMessages} messages` : `, all ${d.fork.sourceMessages} messages`;
      lines.push(`  forked:     from ${d.fork.from}${at}, at ${new Date(d.fork.forkedAtMs).toISOString()}`);
    }
    lines.push(`  members:    ${d.members.join(', ')}`);
    for (const s of d.subagents) lines.push(`  subagent:   store:${d.name}/${s.id}${s.lineage?.agentType !== undefined ? ` (${s.lineage.agentType})` : ''}`);
    ctx.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
});
