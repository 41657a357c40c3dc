/**
 * `sessionfold sessions diff <agent>:<id> <agent>:<id>` (or `<agentA> <idA> <agentB> <idB>`): the message-level diff of two sessions (a fork and
 * its parent, or two agents given the same prompt). One line per operation — `  ` unchanged, `- ` only in
 * the first, `+ ` only in the second, `~ ` modified (old text, then `→` new text) — with `[indexA indexB]`;
 * runs of unchanged messages beyond `--context` are folded. Colored on a terminal unless NO_COLOR.
 * `--json` prints the SessionDiff.
 */
import type { DiffOperation, SessionDiff, SessionMessage } from '../../sessions/types.js';
import { bool, CliError, defineCommand, type CommandContext } from '../command.js';
import { ellipsize, makeManager, palette, parseIntOption, terminalWidth, unifiedArg, type Palette } from './sessions-common.js';
import { withProgress } from '../progress.js';

const DEFAULT_CONTEXT = 3;

function preview(m: SessionMessage | undefined): string {
  if (m === undefined) return '';
  if (m.content.trim() !== '') return m.content;
  if (m.toolCalls !== undefined && m.toolCalls.length > 0) return `[tool call ${m.toolCalls.map((c) => c.toolName).join(', ')}]`;
  if (m.toolResult !== undefined) return `[result of ${m.toolResult.toolName || m.toolResult.toolCallId}]`;
  if (m.thinking !== undefined) return '[thinking]';
  return '';
}

/** The human rendering of a SessionDiff. */
export function renderDiff(d: SessionDiff, width: number, context: number, p: Palette): string {
  const out: string[] = [];
  const wa = String(Math.max(0, ...d.operations.map((o) => o.indexA ?? 0))).length;
  const wb = String(Math.max(0, ...d.operations.map((o) => o.indexB ?? 0))).length;
  const idx = (o: DiffOperation) => `[${o.indexA === undefined ? ' '.repeat(wa) : String(o.indexA).padStart(wa)} ${o.indexB === undefined ? ' '.repeat(wb) : String(o.indexB).padStart(wb)}]`;
  const prefixLen = 2 + wa + wb + 3 + 1 + 10;
  const text = (s: string) => ellipsize(s, Math.max(10, width - prefixLen));
  const role = (m: SessionMessage | undefined) => (m?.role ?? '').padEnd(9);
  out.push(p.bold(`--- ${d.a.unifiedId}`), p.bold(`+++ ${d.b.unifiedId}`));
  const ops = d.operations;
  const near = ops.map(() => false);
  ops.forEach((o, i) => {
    if (o.type === 'unchanged') return;
    for (let k = Math.max(0, i - context); k <= Math.min(ops.length - 1, i + context); k++) near[k] = true;
  });
  let folded = 0;
  const flush = () => {
    if (folded > 0) out.push(p.dim(`  … ${folded} unchanged message${folded === 1 ? '' : 's'} …`));
    folded = 0;
  };
  ops.forEach((o, i) => {
    if (o.type === 'unchanged' && !near[i]) {
      folded++;
      return;
    }
    flush();
    if (o.type === 'unchanged') out.push(p.dim(`  ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
    else if (o.type === 'removal') out.push(p.red(`- ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
    else if (o.type === 'addition') out.push(p.green(`+ ${idx(o)} ${role(o.messageB)} ${text(preview(o.messageB))}`));
    else {
      out.push(p.yellow(`~ ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
      out.push(p.yellow(`  ${' '.repeat(idx(o).length)} ${' '.repeat(8)}→ ${text(preview(o.messageB))}`));
    }
  });
  flush();
  const s = d.stats;
  out.push(`${s.unchanged} unchanged, ${s.modifications} modified, ${s.additions} added, ${s.removals} removed`);
  return out.join('\n') + '\n';
}

/** Two sessions as `<agent>:<id> <agent>:<id>`, or as the spec's four arguments `<agentA> <idA> <agentB> <idB>`. */
function sessionArgs(p: readonly string[]): [{ agent: string; id: string }, { agent: string; id: string }] {
  if (p.length === 2) return [unifiedArg(p[0] as string), unifiedArg(p[1] as string)];
  if (p.length === 4) return [{ agent: p[0] as string, id: p[1] as string }, { agent: p[2] as string, id: p[3] as string }];
  throw new CliError('USAGE_ERROR', 'diff needs two sessions: <agent>:<id> <agent>:<id>, or <agentA> <idA> <agentB> <idB>');
}

export default defineCommand({
  name: 'diff',
  description: 'Compare two sessions message by message (longest common subsequence on role and text).',
  usage: '<agent>:<id> <agent>:<id> | <agentA> <idA> <agentB> <idB>',
  options: {
    json: { type: 'boolean', description: 'Print the SessionDiff as JSON' },
    context: { type: 'string', description: `Unchanged messages shown around each change (default ${DEFAULT_CONTEXT}; 0 hides them)`, valueName: '<n>' },
    color: { type: 'boolean', negatable: true, description: 'Force colors (default: on a terminal unless NO_COLOR)' },
  },
  async run(ctx: CommandContext) {
    const manager = makeManager(ctx);
    const whole = async (r: { agent: string; id: string }) => ({ agent: r.agent, id: await manager.resolveId(r.agent, r.id) });
    const [given, other] = sessionArgs(ctx.positionals);
    const [a, b] = await Promise.all([whole(given), whole(other)]);
    const raw = ctx.values.context;
    const context = raw === '0' ? 0 : (parseIntOption(ctx, 'context') ?? DEFAULT_CONTEXT);
    const d = await withProgress(ctx, 'Reading the sessions', () => manager.diff({ agent: a.agent, sessionId: a.id }, { agent: b.agent, sessionId: b.id }));
    if (bool(ctx, 'json')) ctx.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
    else ctx.stdout.write(renderDiff(d, terminalWidth(ctx), context, palette(ctx)));
    return 0;
  },
});
