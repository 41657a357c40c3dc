/**
 * Renderings of `sessions list` and `sessions search` rows in the cost report's formats (COST_FORMATS:
 * table, json, csv, markdown) with its options: `compact` (the table fits 80 columns), `noCost` (a Tokens
 * column instead of Cost, no money fields in JSON/CSV) and a per-model breakdown under each row. The table is
 * the one `sessions` always printed (sessions-common.ts `renderTable`); CSV is RFC 4180 (csvField) with raw,
 * unrounded numbers and ISO times; Markdown escapes `|` and folds line breaks so every row keeps its columns.
 */
import { csvField } from '../../cost/csv.js';
import type { CostRecord } from '../../cost/types.js';
import { formatUsd } from '../../sessions/usd.js';
import type { SessionSummary } from '../../sessions/types.js';
import { summaryJson } from '../../sessions/summary-json.js';
import { ellipsize, renderTable, summaryCells, UNRECORDED_CELL } from './session-table.js';
import { int, type CostFormat } from './cost.js';

/** One model's usage inside a session (from the session's own fold, `Session.costByModel`). */
export interface ModelUsage {
  model: string;
  cost: CostRecord;
}

/** A listed or found session, with its models when `--breakdown` asked for them. */
export interface SessionRow {
  summary: SessionSummary;
  models?: ModelUsage[];
}

export interface SessionRenderOptions {
  /** `search`: a Score column and the snippet under each row. */
  search: boolean;
  /** An Agent column (rows of several agents). */
  withAgent: boolean;
  /** The terminal's width (the table's last column takes what remains). */
  width: number;
  compact?: boolean;
  noCost?: boolean;
  /** The zone of the dates shown (`--tz`); absent: the process's local zone. */
  timeZone?: string;
}

/** The widest a compact table may be. */
export const COMPACT_WIDTH = 80;

const totalTokens = (c: CostRecord): number => c.inputTokens + c.outputTokens + c.cacheReadTokens + c.cacheWriteTokens;

/** The usage cell of a row: its cost, or with `noCost` its total tokens (`-` when nothing was read). */
function usageCell(s: SessionSummary, cost: string, o: SessionRenderOptions): string {
  if (!o.noCost) return cost;
  if (s.usageRecorded === false && s.cost === undefined) return UNRECORDED_CELL;
  return s.cost === undefined ? '-' : `${int(totalTokens(s.cost))}${s.usageUnknown === true ? '+' : ''}`;
}

interface Column {
  head: string;
  right?: boolean;
  /** With `compact`: cut to this many characters. */
  max?: number;
  cell(s: SessionSummary): string;
}

/** The columns of the table and the Markdown table; the title is always last. */
function columns(o: SessionRenderOptions): Column[] {
  const c = (s: SessionSummary) => summaryCells(s, o.timeZone);
  const usage: Column = { head: o.noCost ? 'Tokens' : 'Cost', right: true, cell: (s) => usageCell(s, c(s).cost, o) };
  const title: Column = { head: 'Title', cell: (s) => (s.title === '' ? '(untitled)' : s.title) };
  const score: Column = { head: 'Score', right: true, cell: (s) => (s.relevanceScore ?? 0).toFixed(2) };
  const agent: Column[] = o.withAgent ? [{ head: 'Agent', max: 10, cell: (s) => s.agent }] : [];
  if (o.compact) {
    const session: Column = { head: 'Session', max: 13, cell: (s) => (o.search ? s.unifiedId : s.sessionId) };
    const updated: Column = { head: 'Updated', cell: (s) => c(s).updated.slice(0, 10) };
    return o.search ? [score, updated, session, usage, title] : [updated, ...agent, session, { head: 'Turns', right: true, cell: (s) => c(s).turns }, usage, title];
  }
  const updated: Column = { head: 'Updated', cell: (s) => c(s).updated };
  if (o.search) return [score, updated, { head: 'Session', cell: (s) => s.unifiedId }, usage, title];
  return [
    updated,
    ...agent,
    { head: 'Session', cell: (s) => s.sessionId },
    { head: 'Model', cell: (s) => c(s).model },
    { head: 'Turns', right: true, cell: (s) => c(s).turns },
    { head: 'Msgs', right: true, cell: (s) => c(s).messages },
    usage,
    title,
  ];
}

/** A model's line under its session: blank cells but the usage one, the model and its numbers as the title. */
function modelCells(cols: Column[], m: ModelUsage, o: SessionRenderOptions): string[] {
  const tokens = `${int(m.cost.requestCount)} req · ${int(totalTokens(m.cost))} tokens`;
  return cols.map((col, i) => {
    if (i === cols.length - 1) return `  ↳ ${m.model} · ${tokens}`;
    if (col.head === 'Cost') return formatUsd(m.cost);
    if (col.head === 'Tokens') return int(totalTokens(m.cost));
    return '';
  });
}

function cellsOf(cols: Column[], s: SessionSummary, o: SessionRenderOptions): string[] {
  return cols.map((col) => {
    const v = col.cell(s);
    return o.compact && col.max !== undefined ? ellipsize(v, col.max) : v;
  });
}

/** The terminal table: the snippet of a search hit on its own indented line. */
function renderSessionTable(rows: SessionRow[], o: SessionRenderOptions): string {
  const width = o.compact ? Math.min(o.width, COMPACT_WIDTH) : o.width;
  const cols = columns(o);
  const body: string[][] = [];
  const kinds: ('row' | 'model')[] = [];
  for (const r of rows) {
    body.push(cellsOf(cols, r.summary, o));
    kinds.push('row');
    for (const m of r.models ?? []) {
      body.push(modelCells(cols, m, o));
      kinds.push('model');
    }
  }
  const right = new Set(cols.flatMap((c, i) => (c.right ? [i] : [])));
  const lines = renderTable(cols.map((c) => c.head), body, width, right).split('\n');
  const out = lines.slice(0, 2); // the header and its rule
  let row = 0;
  body.forEach((_, i) => {
    out.push(lines[i + 2] as string);
    if (kinds[i] !== 'row') return;
    const s = (rows[row++] as SessionRow).summary;
    if (o.search && s.snippet !== undefined && s.snippet !== '') out.push(`      ${ellipsize(s.snippet, width - 6)}`);
  });
  return out.join('\n') + '\n';
}

/** A Markdown cell: `|` escaped, line breaks folded, so the row keeps its column count. */
const mdCell = (x: string): string => x.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s*[\r\n]+\s*/g, ' ');

/** A GitHub-flavoured Markdown table (titles whole, unless `compact`). */
function renderSessionMarkdown(rows: SessionRow[], o: SessionRenderOptions): string {
  const cols = columns(o);
  const withSnippet = o.search && !o.compact;
  const head = [...cols.map((c) => c.head), ...(withSnippet ? ['Snippet'] : [])];
  const out = [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (cols[i]?.right ? ' ---: ' : ' :--- ')).join('|')}|`];
  for (const r of rows) {
    const cells = cellsOf(cols, r.summary, o);
    if (o.compact) cells[cells.length - 1] = ellipsize(cells[cells.length - 1] as string, 40);
    out.push(`| ${[...cells, ...(withSnippet ? [r.summary.snippet ?? ''] : [])].map(mdCell).join(' | ')} |`);
    for (const m of r.models ?? []) out.push(`| ${[...modelCells(cols, m, o), ...(withSnippet ? [''] : [])].map(mdCell).join(' | ')} |`);
  }
  return out.join('\n') + '\n';
}

const TOKEN_COLUMNS = ['requests', 'input_tokens', 'output_tokens', 'thinking_tokens', 'cache_read_tokens', 'cache_write_tokens', 'total_tokens'];

function tokenFields(c: CostRecord | undefined): (number | undefined)[] {
  if (c === undefined) return TOKEN_COLUMNS.map(() => undefined);
  return [c.requestCount, c.inputTokens, c.outputTokens, c.thinkingTokens, c.cacheReadTokens, c.cacheWriteTokens, totalTokens(c)];
}

/**
 * CSV (RFC 4180: CRLF-free `\n` rows, fields with `"`, `,` or line breaks quoted): one row per session; with
 * a breakdown a `usage_model` column, and one row per model after its session's (the session's columns
 * repeated, the usage columns the model's).
 */
function renderSessionCsv(rows: SessionRow[], o: SessionRenderOptions): string {
  const breakdown = rows.some((r) => r.models !== undefined);
  const head = [
    'agent',
    'session_id',
    'unified_id',
    'created_at',
    'updated_at',
    'title',
    'model',
    'turns',
    'messages',
    'exact',
    ...(o.search ? ['relevance_score', 'snippet'] : []),
    ...(breakdown ? ['usage_model'] : []),
    ...TOKEN_COLUMNS,
    ...(o.noCost ? [] : ['cost_usd', 'unpriced_requests']),
    'usage_unknown',
    'usage_recorded',
    'file',
  ];
  const line = (s: SessionSummary, m: ModelUsage | undefined): string => {
    const c = m === undefined ? s.cost : m.cost;
    return [
      s.agent,
      s.sessionId,
      s.unifiedId,
      s.createdAt.toISOString(),
      s.updatedAt.toISOString(),
      s.title,
      s.model,
      s.turnCount,
      s.messageCount,
      s.exact,
      ...(o.search ? [s.relevanceScore, s.snippet] : []),
      ...(breakdown ? [m?.model ?? ''] : []),
      ...tokenFields(c),
      ...(o.noCost ? [] : [c?.totalUsd, c?.unpricedCount]),
      s.usageUnknown === true,
      s.usageRecorded !== false,
      s.file,
    ]
      .map(csvField)
      .join(',');
  };
  const out = [head.join(',')];
  for (const r of rows) {
    out.push(line(r.summary, undefined));
    for (const m of r.models ?? []) out.push(line(r.summary, m));
  }
  return out.join('\n') + '\n';
}

const stripMoney = (c: CostRecord): Omit<CostRecord, 'totalUsd' | 'unpricedCount'> => {
  const { totalUsd: _u, unpricedCount: _c, ...rest } = c;
  return rest;
};

/** The stable `--json` shape (summaryJson), `modelBreakdowns` added with a breakdown, money left out with `noCost`. */
function sessionJson(r: SessionRow, o: SessionRenderOptions): Record<string, unknown> {
  const j: Record<string, unknown> = { ...summaryJson(r.summary) };
  if (o.noCost && r.summary.cost !== undefined) j.cost = stripMoney(r.summary.cost);
  if (o.noCost && r.summary.copiedCost !== undefined) j.copiedCost = stripMoney(r.summary.copiedCost);
  if (r.models !== undefined) j.modelBreakdowns = r.models.map((m) => ({ model: m.model, ...(o.noCost ? stripMoney(m.cost) : m.cost) }));
  return j;
}

/** The rows in one of the formats. An empty table says so in a line (`empty`); the other formats stay parseable. */
export function renderSessions(rows: SessionRow[], format: CostFormat, o: SessionRenderOptions, empty: string): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(rows.map((r) => sessionJson(r, o)), null, 2)}\n`;
    case 'csv':
      return renderSessionCsv(rows, o);
    case 'markdown':
      return renderSessionMarkdown(rows, o);
    case 'table':
      return rows.length === 0 ? `${empty}\n` : renderSessionTable(rows, o);
  }
}
