/**
 * `cost report` as data: the CostSummary of the selection, the cost mode it was priced in, the scan's warnings
 * and, per agent that may leave tokens unrecorded (a run not ended yet, a session without usage records), how
 * many sessions have usage the agent has not recorded.
 * What the CLI prints and what `serve` sends are made from this; turning it into text is the CLI's
 * (src/cli/render/cost-report.ts).
 */
import { findCodec, listCodecs } from '../registry.js';
import type { Codec } from '../../cursors/protocol/codec.js';
import type { SessionManager } from '../sessions/manager.js';
import { createPricer } from './pricing.js';
import { totalCost } from './total.js';
import type { SourceReport } from '../scan/sources.js';
import type { CostAggregationOptions, CostGroupBy, CostSummary } from './types.js';

export interface CostReportOptions extends CostAggregationOptions {
  groupBy?: CostGroupBy;
  /** List each group's models under it (`modelBreakdowns`). */
  breakdown?: boolean;
  /** Row order; default: dates ascending, other groups by cost descending. */
  order?: 'asc' | 'desc';
  /** The scan's progress (bytes read of bytes to read). */
  onProgress?(done: number, total: number): void;
}

/** Sessions of an agent whose tokens the agent has not recorded (counted as none in the summary). */
export interface UnknownUsage {
  agent: string;
  sessions: number;
  /** The agent records tokens when a run ends (`usageRecordedAtEnd`): they may still come. */
  pending?: true;
}

/** What `cost report` answers: plain JSON data. */
export interface CostReport {
  summary: CostSummary;
  /** The cost mode the summary was priced in. */
  mode: string;
  /** The scan's warnings, each once, in the order they came. */
  warnings: string[];
  unknownUsage: UnknownUsage[];
  /** Every agent root looked in: found (with its files), unreadable (and why) or missing (src/scan/sources.ts). */
  sources: SourceReport[];
}

const CHRONOLOGICAL: ReadonlySet<string> = new Set(['day', 'week', 'month']);

export async function costReport(options: CostReportOptions): Promise<CostReport> {
  const { groupBy, breakdown, order, onProgress, ...selection } = options;
  const pricer = createPricer({ ...(selection.env !== undefined && { env: selection.env }), ...(selection.mode !== undefined && { mode: selection.mode }), ...(selection.pricesFile !== undefined && { pricesFile: selection.pricesFile }) });
  const warnings: string[] = [];
  // A fold that starts over scans again: its warnings are said once.
  const onWarning = (m: string) => void (warnings.includes(m) || warnings.push(m));
  const sources: SourceReport[] = [];
  const summary = await totalCost({ ...selection, pricer, ...(groupBy !== undefined && { groupBy }), ...(breakdown === true && { breakdown }) }, { onWarning, sources, ...(onProgress !== undefined && { onProgress }) });
  const chronological = groupBy !== undefined && CHRONOLOGICAL.has(groupBy);
  if (order !== undefined && summary.breakdowns !== undefined && (order === 'asc') !== chronological) summary.breakdowns = Object.fromEntries(Object.entries(summary.breakdowns).reverse());
  return { summary, mode: pricer.mode, warnings, unknownUsage: await unknownUsage(selection), sources };
}

/** Whether `codec` finds a session file under `roots` (it stops at the first). */
async function hasFiles(codec: Codec, roots: readonly string[]): Promise<boolean> {
  for await (const _ of codec.discover(roots)) return true;
  return false;
}

/**
 * Per agent that may leave tokens unrecorded (`usageMayBeUnknown`, or `usageRecordedAtEnd`), how many of its
 * sessions (created in the report's dates) have usage it has not recorded. The sessions' lazy summaries tell
 * (summary cache: a stat per file when warm).
 */
async function unknownUsage(selection: CostAggregationOptions): Promise<UnknownUsage[]> {
  const selected = (id: string) => selection.agents === undefined || selection.agents.some((a) => findCodec(a)?.id === id);
  const codecs = listCodecs().filter((c) => (c.capabilities.usageRecordedAtEnd === true || c.capabilities.usageMayBeUnknown === true) && selected(c.id));
  if (codecs.length === 0) return [];
  const env = selection.env ?? process.env;
  let manager: SessionManager | undefined;
  const out: UnknownUsage[] = [];
  for (const codec of codecs) {
    // No session files, no note: a report on a machine without the agent loads and opens nothing more.
    if (!(await hasFiles(codec, codec.defaultRoots(env)))) continue;
    manager ??= (await import('../sessions/manager.js')).createSessionManager({ env, ...(selection.cache === false && { cache: false }), ...(selection.cachePath !== undefined && { cachePath: selection.cachePath }) });
    try {
      const rows = await manager.list(codec.id, { limit: Number.MAX_SAFE_INTEGER, exactBytes: 0, ...(selection.since && { since: selection.since }), ...(selection.until && { until: selection.until }) });
      const n = rows.filter((r) => r.usageUnknown === true).length;
      if (n > 0) out.push({ agent: codec.id, sessions: n, ...(codec.capabilities.usageRecordedAtEnd === true && { pending: true as const }) });
    } catch {
      // the report stands without the note; `sessions list` reports what failed
    }
  }
  return out;
}
