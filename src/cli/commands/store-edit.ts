/**
 * The `store` sub-commands that change a family: `archive <name>`, `delete <name>`, `rename <name> <title>`,
 * `fork <from> <to> [--at <n>] [--title <t>]` and `prune --days <n>`. Each is one locked step of the store
 * (src/store/store.ts).
 */
import { bool, CliError, defineCommand, str, type CommandContext } from '../command.js';
import { countOption, JSON_OPTION, positional, STORE_OPTION, storeAt, writeJson } from './store-common.js';

const nameArg = (ctx: CommandContext, i: number, what: string) => positional(ctx, i, what).replace(/^store:/, '');

export const archive = defineCommand({
  name: 'archive',
  description: 'Move a stored session, its whole family, into the archive.',
  usage: '<name>',
  options: { ...STORE_OPTION },
  async run(ctx) {
    const name = nameArg(ctx, 0, '<name>');
    await storeAt(ctx).archive(name);
    ctx.stdout.write(`archived store:${name}\n`);
  },
});

export const remove = defineCommand({
  name: 'delete',
  description: 'Delete a stored session, its whole family (active or archived).',
  usage: '<name>',
  options: { ...STORE_OPTION },
  async run(ctx) {
    const name = nameArg(ctx, 0, '<name>');
    await storeAt(ctx).delete(name);
    ctx.stdout.write(`deleted store:${name}\n`);
  },
});

export const rename = defineCommand({
  name: 'rename',
  description: "Change a stored session's title (its name and other stats stay).",
  usage: '<name> <title>',
  options: { ...STORE_OPTION },
  async run(ctx) {
    const name = nameArg(ctx, 0, '<name> <title>');
    const title = ctx.positionals.slice(1).join(' ');
    if (title === '') throw new CliError('USAGE_ERROR', 'expected <name> <title>');
    await storeAt(ctx).setTitle(name, title);
    ctx.stdout.write(`store:${name} is now titled "${title}"\n`);
  },
});

export const fork = defineCommand({
  name: 'fork',
  description: 'Copy a stored session (its first --at messages) into a new one, recording where it came from.',
  usage: '<from> <to>',
  options: {
    at: { type: 'string', description: 'Keep the first n messages (default: all)', valueName: '<n>' },
    title: { type: 'string', description: 'Title (default: "<source title> (fork)")', valueName: '<title>' },
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx) {
    const from = nameArg(ctx, 0, '<from> <to>');
    const to = nameArg(ctx, 1, '<from> <to>');
    const store = storeAt(ctx);
    const title = str(ctx, 'title') ?? `${(await store.loadMeta(from))?.title || from} (fork)`;
    const p = await store.fork(from, to, title, countOption(ctx, 'at'), Date.now());
    if (bool(ctx, 'json')) writeJson(ctx, p);
    else ctx.stdout.write(`forked store:${from} into store:${to} (${p.messagesKept} of ${p.sourceMessages} messages)\n`);
  },
});

export const prune = defineCommand({
  name: 'prune',
  description: 'Delete archived sessions older than --days days (never an active one; 0 prunes nothing).',
  usage: '',
  options: {
    days: { type: 'string', required: true, description: 'Retention in days', valueName: '<n>' },
    ...STORE_OPTION,
    ...JSON_OPTION,
  },
  async run(ctx) {
    const days = countOption(ctx, 'days');
    if (days === undefined) throw new CliError('USAGE_ERROR', 'expected --days <n>');
    const pruned = await storeAt(ctx).pruneExpired(days, Date.now());
    if (bool(ctx, 'json')) writeJson(ctx, { pruned });
    else ctx.stdout.write(pruned.length === 0 ? 'nothing to prune\n' : `pruned ${pruned.map((n) => `store:${n}`).join(', ')}\n`);
  },
});
