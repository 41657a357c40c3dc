/**
 * Renderings of a CostSummary for `sessionfold cost report`: a terminal table (right-aligned numbers,
 * thousands separators, a totals row, unpriced models listed under it), GitHub Markdown, CSV and JSON.
 * Numbers are formatted with fixed en-US rules, never the machine locale, so output is stable for snapshots
 * and scripts.
 */
import { csvField } from '../../cost/export.js';
import type { CostBreakdown, CostGroupBy, CostRecord, CostSummary } from '../../cost/types.js';

/** Output formats of `cost report`. */
export const COST_FORMATS = ['table', 'json', 'csv', 'markdown'] as const;
/** One of COST_FORMATS. */
export type CostFormat = (typeof COST_FORMATS)[number];

/** What a rendering needs besides the summary. */
export interface RenderOptions {
  groupBy: CostGroupBy | undefined;
  /** Shown in the table's title line. */
  timeZone?: string;
  mode?: string;
}

const GROUP_LABELS: Record<CostGroupBy, string> = {
  agent: 'Agent',
  model: 'Model',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  session: 'Session',
  project: 'Project',
  tag: 'Tag',
};

/** An integer with thousands separators (en-US, whatever the machine locale). */
export const int = (n: number): string => {
  const s = Math.round(n).toString();
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
};

/** USD rounded to cents: `$1,234.56`. */
export const usd = (n: number): string => {
  const cents = Math.round(n * 100);
  const s = (Math.abs(cents) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${cents < 0 ? '-' : ''}$${s}`;
};

/** The cost cell: `$1.23`, `$1.23*` when some usage of the row is unpriced, `n/a*` when all of it is. */
function costCell(r: CostRecord): string {
  if (r.unpricedCount > 0 && r.unpricedCount === r.requestCount) return 'n/a*';
  return r.unpricedCount > 0 ? `${usd(r.totalUsd)}*` : usd(r.totalUsd);
}

const totalTokens = (r: CostRecord) => r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;

const HEADERS = ['Sessions', 'Requests', 'Input', 'Output', 'Cache Write', 'Cache Read', 'Total Tokens', 'Cost (USD)'];

function cells(r: CostRecord & { sessionCount: number }): string[] {
  return [int(r.sessionCount), int(r.requestCount), int(r.inputTokens), int(r.outputTokens), int(r.cacheWriteTokens), int(r.cacheReadTokens), int(totalTokens(r)), costCell(r)];
}

function rowsOf(s: CostSummary): CostBreakdown[] {
  return Object.values(s.breakdowns ?? {});
}

function unpricedLines(s: CostSummary): string[] {
  if (s.unpriced.length === 0) return [];
  const out = [`* Unpriced usage, not included in the cost (${int(s.unpricedCount)} request${s.unpricedCount === 1 ? '' : 's'}):`];
  const names = s.unpriced.map((u) => (u.provider ? `${u.model} (${u.provider})` : u.model));
  const w = Math.max(...names.map((x) => x.length));
  s.unpriced.forEach((u, i) => {
    out.push(
      `  ${(names[i] as string).padEnd(w)}  ${int(u.count).padStart(7)} req  ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`,
    );
  });
  out.push('  Price them in a prices file (--prices, $SESSIONFOLD_PRICES or ~/.config/sessionfold/prices.json).');
  return out;
}

/** The terminal table. */
export function renderTable(s: CostSummary, o: RenderOptions): string {
  const label = o.groupBy ? GROUP_LABELS[o.groupBy] : '';
  const head = [label, ...HEADERS];
  const body = rowsOf(s).map((r) => [r.key, ...cells(r)]);
  const total = ['Total', ...cells(s)];
  const all = [head, ...body, total];
  const widths = head.map((_, c) => Math.max(...all.map((row) => (row[c] as string).length)));
  const line = (row: string[]) => row.map((x, c) => (c === 0 ? x.padEnd(widths[c] as number) : x.padStart(widths[c] as number))).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  const title = [`Cost${o.groupBy ? ` by ${o.groupBy}` : ''}`, ...(o.timeZone ? [`time zone ${o.timeZone}`] : []), ...(o.mode ? [`mode ${o.mode}`] : [])].join(' · ');
  const out = [title, '', line(head), rule, ...body.map(line), ...(body.length > 0 ? [rule] : []), line(total)];
  const unpriced = unpricedLines(s);
  if (unpriced.length > 0) out.push('', ...unpriced);
  return out.join('\n') + '\n';
}

/** A GitHub-flavoured Markdown table. */
export function renderMarkdown(s: CostSummary, o: RenderOptions): string {
  const esc = (x: string) => x.replace(/\|/g, '\\|');
  const head = [o.groupBy ? GROUP_LABELS[o.groupBy] : '', ...HEADERS];
  const out = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' :--- ' : ' ---: ')).join('|')}|`];
  const md = (c: string) => c.replace(/\*/g, '\\*');
  for (const r of rowsOf(s)) out.push(`| ${[esc(r.key), ...cells(r).map(md)].join(' | ')} |`);
  out.push(`| ${['**Total**', ...cells(s).map((c) => `**${md(c)}**`)].join(' | ')} |`);
  if (s.unpriced.length > 0) {
    out.push('', `\\* Unpriced usage, not included in the cost:`, '');
    for (const u of s.unpriced) {
      out.push(`- \`${u.model}\`${u.provider ? ` (${u.provider})` : ''}: ${int(u.count)} request${u.count === 1 ? '' : 's'}, ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`);
    }
  }
  return out.join('\n') + '\n';
}

const CSV_COLUMNS = [
  'group',
  'sessions',
  'requests',
  'input_tokens',
  'output_tokens',
  'thinking_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'total_tokens',
  'cost_usd',
  'unpriced_requests',
];

/** CSV: one row per group (or one `total` row without grouping). Costs unrounded. */
export function renderCsv(s: CostSummary, o: RenderOptions): string {
  const rows: (CostRecord & { key: string; sessionCount: number })[] = o.groupBy ? rowsOf(s) : [{ ...s, key: 'total' }];
  const out = [CSV_COLUMNS.join(',')];
  for (const r of rows) {
    out.push(
      [r.key, r.sessionCount, r.requestCount, r.inputTokens, r.outputTokens, r.thinkingTokens, r.cacheReadTokens, r.cacheWriteTokens, r.cacheWrite1hTokens, totalTokens(r), r.totalUsd, r.unpricedCount]
        .map(csvField)
        .join(','),
    );
  }
  return out.join('\n') + '\n';
}

/** Render a summary in one of the report formats. */
export function renderCostSummary(s: CostSummary, format: CostFormat, o: RenderOptions): string {
  switch (format) {
    case 'json':
      return JSON.stringify(s, null, 2) + '\n';
    case 'csv':
      return renderCsv(s, o);
    case 'markdown':
      return renderMarkdown(s, o);
    case 'table':
      return renderTable(s, o);
  }
}
