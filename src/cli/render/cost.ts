/**
 * Renderings of a CostSummary for `sessionfold cost report`: a terminal table (right-aligned numbers,
 * thousands separators, a totals row, unpriced models listed under it), GitHub Markdown, CSV and JSON.
 * Numbers are formatted with fixed en-US rules, never the machine locale, so output is stable for snapshots
 * and scripts.
 */
import { csvField } from '../../cost/csv.js';
import type { CostBreakdown, CostGroupBy, CostRecord, CostSummary } from '../../cost/types.js';
import { formatUsdAmount } from '../../sessions/usd.js';
import { displayWidth, fitWidth, padEndWidth, padStartWidth, ruleLine } from './width.js';

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
  /** Fewer columns (Input, Output, Cache, Total, Cost), the label cut so a row fits 80 columns. */
  compact?: boolean;
  /** Tokens only: no cost column, no unpriced notes. */
  noCost?: boolean;
  /** The report was read without the event cache: the footer says what that leaves out. */
  noCache?: boolean;
  /**
   * The agents whose sessions were all that was found, when none of them records token usage (Cursor) and
   * nothing was counted: the table and the Markdown say so in a line instead of a zero total, which would
   * read as tokens counted. CSV and JSON keep their shape (the JSON's `sources` say `usageRecorded: false`).
   */
  unrecorded?: readonly string[];
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

/** USD for a cell: the one human-text formatter (src/sessions/usd.ts), `$1,234.56`. */
export const usd = formatUsdAmount;

/** The cost cell: `$1.23`, `$1.23*` when some usage of the row is unpriced, `n/a*` when all of it is. */
function costCell(r: CostRecord): string {
  if (r.unpricedCount > 0 && r.unpricedCount === r.requestCount) return 'n/a*';
  return r.unpricedCount > 0 ? `${usd(r.totalUsd)}*` : usd(r.totalUsd);
}

const totalTokens = (r: CostRecord) => r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;

const HEADERS = ['Sessions', 'Requests', 'Input', 'Output', 'Cache Write', 'Cache Read', 'Total Tokens', 'Cost (USD)'];
const COMPACT_HEADERS = ['Input', 'Output', 'Cache', 'Total', 'Cost'];

/** The number columns' headers under the options (the cost column last, left out with `noCost`). */
function headers(o: RenderOptions): string[] {
  const h = o.compact ? COMPACT_HEADERS : HEADERS;
  return o.noCost ? h.slice(0, -1) : h;
}

function cells(r: CostRecord & { sessionCount: number }, o: RenderOptions = { groupBy: undefined }): string[] {
  const c = o.compact
    ? [int(r.inputTokens), int(r.outputTokens), int(r.cacheWriteTokens + r.cacheReadTokens), int(totalTokens(r)), costCell(r)]
    : [int(r.sessionCount), int(r.requestCount), int(r.inputTokens), int(r.outputTokens), int(r.cacheWriteTokens), int(r.cacheReadTokens), int(totalTokens(r)), costCell(r)];
  return o.noCost ? c.slice(0, -1) : c;
}

function rowsOf(s: CostSummary): CostBreakdown[] {
  return Object.values(s.breakdowns ?? {});
}

/** A breakdown's model rows under their group's row, their labels marked. */
function withModels(s: CostSummary, mark: string): { label: string; r: CostBreakdown }[] {
  return rowsOf(s).flatMap((r) => [{ label: r.key, r }, ...(r.modelBreakdowns ?? []).map((m) => ({ label: `${mark}${m.key}`, r: m }))]);
}

function unpricedLines(s: CostSummary): string[] {
  if (s.unpriced.length === 0) return [];
  const out = [`* Unpriced usage, not included in the cost (${int(s.unpricedCount)} request${s.unpricedCount === 1 ? '' : 's'}):`];
  const names = s.unpriced.map((u) => (u.provider ? `${u.model} (${u.provider})` : u.model));
  const w = Math.max(...names.map(displayWidth));
  s.unpriced.forEach((u, i) => {
    out.push(
      `  ${padEndWidth(names[i] as string, w)}  ${int(u.count).padStart(7)} req  ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`,
    );
  });
  out.push('  Price them in a prices file (--prices, $SESSIONFOLD_PRICES or ~/.config/sessionfold/prices.json).');
  return out;
}

/**
 * Under the table: how much of the total comes from lines no longer in their files (`retained`), and for a
 * run without the cache, why its total can be lower than a cached one's.
 */
export function retainedLines(s: CostSummary, o: Pick<RenderOptions, 'noCost' | 'noCache'>): string[] {
  const r = s.retained;
  const out: string[] = [];
  if (r !== undefined) {
    const what = `${int(r.requestCount)} request${r.requestCount === 1 ? '' : 's'}, ${int(totalTokens(r))} tokens`;
    out.push(
      `Retained: ${o.noCost ? what : `${usd(r.totalUsd)} (${what})`} of the total comes from lines no longer in their files`,
      '  (rewritten, truncated or deleted), which the event cache keeps; a --no-cache report counts only what',
      '  the files hold now, so it is lower by this much.',
    );
  }
  if (o.noCache) {
    out.push(
      'Without the event cache: only what the files hold now is counted. A cached report also counts usage it',
      'saw in lines since rewritten, truncated or deleted (its Retained line says how much), so it can be higher.',
    );
  }
  return out;
}

/** `lines` after a blank line, or nothing when there are none. */
const withGap = (lines: string[]): string[] => (lines.length > 0 ? ['', ...lines] : []);

/** The line said instead of a table when nothing could be counted (`RenderOptions.unrecorded`), else undefined. */
function unrecordedLine(o: RenderOptions): string | undefined {
  const a = o.unrecorded;
  if (a === undefined || a.length === 0) return undefined;
  const names = a.length === 1 ? a[0] : `${a.slice(0, -1).join(', ')} and ${a.at(-1)}`;
  return `(no token usage counted: ${names} record${a.length === 1 ? 's' : ''} none)`;
}

/** The terminal table. */
export function renderTable(s: CostSummary, o: RenderOptions): string {
  const title = [`Cost${o.groupBy ? ` by ${o.groupBy}` : ''}`, ...(o.timeZone ? [`time zone ${o.timeZone}`] : []), ...(o.mode ? [`mode ${o.mode}`] : [])].join(' · ');
  const none = unrecordedLine(o);
  if (none !== undefined) return [title, '', none, ...withGap(retainedLines(s, o))].join('\n') + '\n';
  const label = o.groupBy ? GROUP_LABELS[o.groupBy] : '';
  const head = [label, ...headers(o)];
  const body = withModels(s, '  ').map(({ label: l, r }) => [l, ...cells(r, o)]);
  const total = ['Total', ...cells(s, o)];
  const all = [head, ...body, total];
  const widths = head.map((_, c) => Math.max(...all.map((row) => displayWidth(row[c] as string))));
  if (o.compact) {
    // The number columns keep their width; the label gets what is left of 80 columns, cut between whole
    // characters (a cut inside a surrogate pair printed U+FFFD).
    const room = 80 - widths.slice(1).reduce((a, w) => a + w + 2, 0);
    widths[0] = Math.max(5, Math.min(widths[0] as number, room));
    for (const row of all) row[0] = fitWidth(row[0] as string, widths[0]);
  }
  const line = (row: string[]) => row.map((x, c) => (c === 0 ? padEndWidth(x, widths[c] as number) : padStartWidth(x, widths[c] as number))).join('  ').trimEnd();
  const rule = ruleLine(widths);
  const out = [title, '', line(head), rule, ...body.map(line), ...(body.length > 0 ? [rule] : []), line(total)];
  const unpriced = o.noCost ? [] : unpricedLines(s);
  if (unpriced.length > 0) out.push('', ...unpriced);
  const retained = retainedLines(s, o);
  if (retained.length > 0) out.push('', ...retained);
  return out.join('\n') + '\n';
}

/** A GitHub-flavoured Markdown table. */
export function renderMarkdown(s: CostSummary, o: RenderOptions): string {
  const none = unrecordedLine(o);
  if (none !== undefined) return [none, ...withGap([retainedLines(s, o).map((l) => l.trim()).join(' ')].filter((l) => l !== ''))].join('\n') + '\n';
  const esc = (x: string) => x.replace(/\|/g, '\\|');
  const head = [o.groupBy ? GROUP_LABELS[o.groupBy] : '', ...headers(o)];
  const out = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' :--- ' : ' ---: ')).join('|')}|`];
  const md = (c: string) => c.replace(/\*/g, '\\*');
  for (const { label, r } of withModels(s, '↳ ')) out.push(`| ${[esc(label), ...cells(r, o).map(md)].join(' | ')} |`);
  out.push(`| ${['**Total**', ...cells(s, o).map((c) => `**${md(c)}**`)].join(' | ')} |`);
  if (s.unpriced.length > 0 && !o.noCost) {
    out.push('', `\\* Unpriced usage, not included in the cost:`, '');
    for (const u of s.unpriced) {
      out.push(`- \`${u.model}\`${u.provider ? ` (${u.provider})` : ''}: ${int(u.count)} request${u.count === 1 ? '' : 's'}, ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`);
    }
  }
  const retained = retainedLines(s, o);
  if (retained.length > 0) out.push('', retained.map((l) => l.trim()).join(' '));
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
  const breakdown = rowsOf(s).some((r) => r.modelBreakdowns !== undefined);
  const rows: { group: string; model: string; r: CostRecord & { sessionCount: number } }[] = o.groupBy
    ? rowsOf(s).flatMap((r) => [{ group: r.key, model: '', r }, ...(r.modelBreakdowns ?? []).map((m) => ({ group: r.key, model: m.key, r: m }))])
    : [{ group: 'total', model: '', r: s }];
  const cols = o.noCost ? CSV_COLUMNS.filter((c) => c !== 'cost_usd' && c !== 'unpriced_requests') : CSV_COLUMNS;
  const out = [(breakdown ? ['group', 'model', ...cols.slice(1)] : cols).join(',')];
  for (const { group, model, r } of rows) {
    const money = o.noCost ? [] : [r.totalUsd, r.unpricedCount];
    out.push(
      [group, ...(breakdown ? [model] : []), r.sessionCount, r.requestCount, r.inputTokens, r.outputTokens, r.thinkingTokens, r.cacheReadTokens, r.cacheWriteTokens, r.cacheWrite1hTokens, totalTokens(r), ...money]
        .map(csvField)
        .join(','),
    );
  }
  return out.join('\n') + '\n';
}

/** A copy of a summary without its money fields (`totalUsd`, `unpricedCount`, `unpriced`), for `--no-cost`. */
function withoutCost(s: CostSummary): object {
  const strip = (r: CostBreakdown): object => {
    const { totalUsd: _u, unpricedCount: _c, modelBreakdowns, ...rest } = r;
    return { ...rest, ...(modelBreakdowns !== undefined && { modelBreakdowns: modelBreakdowns.map(strip) }) };
  };
  const { totalUsd: _u, unpricedCount: _c, unpriced: _p, breakdowns, retained, ...rest } = s;
  return {
    ...rest,
    ...(breakdowns !== undefined && { breakdowns: Object.fromEntries(Object.entries(breakdowns).map(([k, v]) => [k, strip(v)])) }),
    ...(retained !== undefined && { retained: (({ totalUsd: _ru, unpricedCount: _rc, ...tokens }) => tokens)(retained) }),
  };
}

/** Render a summary in one of the report formats. */
export function renderCostSummary(s: CostSummary, format: CostFormat, o: RenderOptions): string {
  switch (format) {
    case 'json':
      return JSON.stringify(o.noCost ? withoutCost(s) : s, null, 2) + '\n';
    case 'csv':
      return renderCsv(s, o);
    case 'markdown':
      return renderMarkdown(s, o);
    case 'table':
      return renderTable(s, o);
  }
}
