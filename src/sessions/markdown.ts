/**
 * A Session as Markdown: a metadata header, one `### User|Assistant|System|Tool` section per message, tool
 * calls and results in fenced blocks (fences grow past any backtick run in the text), thinking folded in
 * `<details>`, and a per-model cost summary at the end. Pure: same session, same bytes.
 *
 * `maxBlockLines` (used by `sessions show`) cuts long tool inputs, outputs and thinking for a terminal;
 * exports leave it unset and keep everything.
 *
 * Message text and thinking are the agent's and the user's, so they must not shape the document: outside
 * their own code (fences, code spans) `&` and `<` become entities (no tag can close the `<details>` or open
 * one), a line that would be a heading or a setext underline gets a backslash (no fake `### User`), and a
 * fence left open is closed (it would swallow the sections after it). Code keeps its bytes.
 */
import type { CostRecord } from '../cost/types.js';
import { findCodec } from '../registry.js';
import { wholeText, type ExportLayout } from './layout.js';
import type { Session, SessionMessage } from './types.js';
import { formatUsd } from './usd.js';

export { formatUsd };

export interface MarkdownOptions {
  /** Cut fenced blocks and thinking longer than this many lines (default: never). */
  maxBlockLines?: number;
}

const ROLE_HEADINGS: Record<SessionMessage['role'], string> = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' };

/** 1234567 → `1,234,567` (locale-independent). */
export function formatInt(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function cut(text: string, maxLines: number | undefined): string {
  if (maxLines === undefined) return text;
  const lines = text.split('\n');
  if (lines.length <= maxLines) return text;
  return `${lines.slice(0, maxLines).join('\n')}\n… ${lines.length - maxLines} more lines (sessionfold sessions export shows everything)`;
}

function fenced(text: string, lang: string, o: MarkdownOptions): string {
  const body = cut(text, o.maxBlockLines);
  const fence = fenceFor(body);
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** A fence opens a code block (a backtick fence's info string holds no backtick, else it is a code span). */
const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
/** A heading's `#`s, or a whole line of `=` or `-` (which would underline the line above as a heading). */
const BLOCK_MARK = /^( {0,3})(#{1,6}(?=[ \t]|$)|=+[ \t]*$|-+[ \t]*$)/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** `escapeHtml` outside the line's code spans (a backtick run up to the next run of the same length). */
function escapeOutsideSpans(line: string): string {
  const runs = [...line.matchAll(/`+/g)];
  let out = '';
  let pos = 0;
  for (let k = 0; k < runs.length; k++) {
    const open = runs[k] as RegExpMatchArray;
    const j = runs.findIndex((r, i) => i > k && r[0].length === open[0].length);
    if (j < 0) continue;
    const close = runs[j] as RegExpMatchArray;
    const end = (close.index as number) + close[0].length;
    out += escapeHtml(line.slice(pos, open.index)) + line.slice(open.index, end);
    pos = end;
    k = j;
  }
  return out + escapeHtml(line.slice(pos));
}

/** Text that cannot change the document around it (see the file header). */
export function escapeMarkdown(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    if (fence !== undefined) {
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`).test(line)) fence = undefined;
      out.push(line);
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open !== null) {
      fence = open[1];
      out.push(line);
      continue;
    }
    out.push(escapeOutsideSpans(line.replace(BLOCK_MARK, '$1\\$2')));
  }
  if (fence !== undefined) out.push(fence);
  return out.join('\n');
}

function valueText(v: unknown): { text: string; lang: string } {
  if (typeof v === 'string') return { text: v, lang: '' };
  try {
    return { text: JSON.stringify(v, null, 2) ?? String(v), lang: 'json' };
  } catch {
    return { text: String(v), lang: '' };
  }
}

/** What a session with `usageUnknown` lacks (SessionEvent.usageUnknown). */
export const UNKNOWN_NOTE = 'the agent has not recorded all of its tokens';
/** Why a session's copies of another session's responses are not in its cost (SessionSummary.copiedCost). */
export const COPIED_NOTE = 'not in the cost: the session that made them counts them';
/** Why a session with `usageRecorded: false` and no `usageUnknown` has no cost (Cursor). */
export const UNRECORDED_NOTE = 'the agent records no token usage';

function costLine(c: CostRecord): string {
  const req = `${formatInt(c.requestCount)} request${c.requestCount === 1 ? '' : 's'}`;
  const unpriced = c.unpricedCount > 0 ? `, ${formatInt(c.unpricedCount)} unpriced` : '';
  return `${formatUsd(c)} (${req}${unpriced})`;
}

/** The header's lines; `messageCount` is `s.messages.length` unless the messages come one by one. */
function markdownHeader(s: Session, messageCount = s.messages.length): string[] {
  const codec = findCodec(s.agent);
  const lines = [`# ${s.title === '' ? '(untitled session)' : s.title.replace(/\n/g, ' ')}`, ''];
  const item = (k: string, v: string) => lines.push(`- **${k}:** ${v}`);
  item('Agent', codec !== undefined ? `${codec.displayName} (\`${s.agent}\`)` : `\`${s.agent}\``);
  item('Session', `\`${s.unifiedId}\``);
  if (s.model !== undefined) item('Model', `\`${s.model}\``);
  item('Created', s.createdAt.toISOString());
  item('Updated', s.updatedAt.toISOString());
  if (s.cwd !== undefined) item('Working directory', `\`${s.cwd}\``);
  if (s.forkedFrom !== undefined) item('Forked from', `\`${s.forkedFrom}\``);
  item('Messages', `${formatInt(messageCount)} (${formatInt(s.turnCount)} turn${s.turnCount === 1 ? '' : 's'})`);
  // usageUnknown first: the agent records tokens, but not where this session's are (an Antigravity step log without its database)
  if (s.usageRecorded === false && s.usageUnknown !== true && s.cost === undefined) item('Cost', `unknown (${UNRECORDED_NOTE})`);
  else if (s.usageUnknown === true) item('Cost', s.cost === undefined ? `unknown (${UNKNOWN_NOTE})` : `at least ${costLine(s.cost)}; ${UNKNOWN_NOTE}`);
  else item('Cost', s.cost === undefined ? 'no usage recorded' : costLine(s.cost));
  if (s.copiedCost !== undefined) item('Copied from another session', `${costLine(s.copiedCost)}, ${COPIED_NOTE}`);
  if (s.tags.length > 0) item('Tags', s.tags.join(', '));
  lines.push('', '---', '');
  return lines;
}

/** One message's lines (its section ends with an empty line). */
function markdownMessage(m: SessionMessage, o: MarkdownOptions): string[] {
  const lines = [`### ${ROLE_HEADINGS[m.role]}`];
  const meta: string[] = [];
  if (m.timestamp !== undefined) meta.push(m.timestamp.toISOString());
  if (m.subtype !== undefined) meta.push(m.subtype);
  if (m.role === 'assistant' && m.model !== undefined) meta.push(`\`${m.model}\``);
  if (m.cost !== undefined) meta.push(formatUsd(m.cost));
  if (m.usage?.copied === true) meta.push('copied');
  if (m.tokenUsage !== undefined) meta.push(`${formatInt(m.tokenUsage.inputTokens)} in / ${formatInt(m.tokenUsage.outputTokens)} out / ${formatInt(m.tokenUsage.cachedTokens ?? 0)} cached`);
  if (m.toolResult !== undefined) meta.push(`result of \`${m.toolResult.toolName || 'tool'}\` (\`${m.toolResult.toolCallId}\`)${m.toolResult.isError ? ' · error' : ''}`);
  if (meta.length > 0) lines.push('', `_${meta.join(' · ')}_`);
  if (m.thinking !== undefined) lines.push('', '<details>', '<summary>Thinking</summary>', '', escapeMarkdown(cut(m.thinking, o.maxBlockLines)), '', '</details>');
  if (m.role === 'tool' && m.toolResult !== undefined) {
    // Text outputs as they are; structured ones (content was their compact JSON) pretty-printed.
    const out = m.toolResult.output;
    const v = out !== null && typeof out === 'object' && /^[[{]/.test(m.content) ? valueText(out) : { text: m.content, lang: '' };
    if (v.text !== '') lines.push('', fenced(v.text, v.lang, o));
  } else if (m.content !== '') lines.push('', escapeMarkdown(m.content));
  for (const c of m.toolCalls ?? []) {
    const v = valueText(c.input ?? null);
    const flags = [c.durationMs !== undefined ? `${formatInt(c.durationMs)} ms` : undefined, c.isError ? 'error' : undefined].filter(Boolean);
    lines.push('', `**Tool call:** \`${c.toolName}\` (\`${c.toolCallId}\`)${flags.length > 0 ? ` · ${flags.join(' · ')}` : ''}`, '', fenced(v.text, v.lang, o));
  }
  lines.push('');
  return lines;
}

/** The closing cost summary's lines. */
function markdownCostSummary(s: Session): string[] {
  const lines = ['---', '', '## Cost summary', ''];
  const models = Object.entries(s.costByModel ?? {});
  const copied = s.copiedCost === undefined ? [] : [`Copied from another session: ${costLine(s.copiedCost)}, ${COPIED_NOTE}.`, ''];
  if (s.cost !== undefined && models.length === 0 && copied.length > 0) return [...lines, 'No usage of its own.', '', ...copied];
  if (s.cost === undefined || models.length === 0) {
    const why = s.usageUnknown === true ? UNKNOWN_NOTE : s.usageRecorded === false ? UNRECORDED_NOTE : undefined;
    return [...lines, why !== undefined ? `Token usage unknown: ${why}.` : 'No token usage recorded.', ''];
  }
  lines.push('| Model | Requests | Input | Output | Reasoning | Cache read | Cache write | Cost |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  const row = (name: string, c: CostRecord) =>
    `| ${name} | ${formatInt(c.requestCount)} | ${formatInt(c.inputTokens)} | ${formatInt(c.outputTokens)} | ${formatInt(c.thinkingTokens)} | ${formatInt(c.cacheReadTokens)} | ${formatInt(c.cacheWriteTokens)} | ${formatUsd(c)} |`;
  for (const [model, c] of models.sort((a, b) => b[1].totalUsd - a[1].totalUsd || (a[0] < b[0] ? -1 : 1))) lines.push(row(`\`${model}\``, c));
  lines.push(row('**Total**', s.cost), '');
  if (s.usageUnknown === true) lines.push(`A lower bound: ${UNKNOWN_NOTE}.`, '');
  if (s.cost.unpricedCount > 0) lines.push(`${formatInt(s.cost.unpricedCount)} request(s) had no known price and are not in the total (marked \`+?\`).`, '');
  lines.push(...copied);
  return lines;
}

/**
 * The Markdown layout (layout.ts): the header's lines, each message's section and the cost summary, all
 * joined with `\n` (each piece after the header starts with the `\n` that joins it to the one before).
 * `messageCount` is `s.messages.length` unless the messages come one by one.
 */
export function markdownLayout(s: Session, options: MarkdownOptions = {}, messageCount = s.messages.length): ExportLayout {
  return {
    head: () => markdownHeader(s, messageCount).join('\n'),
    message: (m) => `\n${markdownMessage(m, options).join('\n')}`,
    end: () => `\n${markdownCostSummary(s).join('\n')}`,
  };
}

/** Render a session as Markdown (see the file header). */
export function renderMarkdown(s: Session, options: MarkdownOptions = {}): string {
  return wholeText(markdownLayout(s, options), s.messages);
}
