/**
 * `cost report` as text: the scan's warnings and the notes on unrecorded usage on stderr, the summary on stdout
 * in the chosen format, from the report's data (src/cost/report.ts), the same whether it was computed in this
 * process or by `serve`.
 */
import type { CostReport } from '../../cost/report.js';
import type { CostSummary } from '../../cost/types.js';
import type { SourceReport } from '../../scan/sources.js';
import { stderrIsTerminal, unreadableCount, writeSourceNotes } from '../sources.js';
import { renderCostSummary, retainedLines, type CostFormat, type RenderOptions } from './cost.js';
import type { RenderIo } from './io.js';

/** How the report is shown: the format and the rendering options (the time zone and mode in the title). */
export interface CostReportView extends Omit<RenderOptions, 'mode'> {
  format: CostFormat;
  /** The agents the user asked for (`--agent`): one with no history found is said so. */
  asked?: readonly string[];
}

/**
 * The agents found, when every root with session files belongs to an agent that records no token usage and
 * nothing was counted (RenderOptions.unrecorded); undefined otherwise.
 */
export function onlyUnrecorded(sources: readonly SourceReport[], summary: CostSummary): string[] | undefined {
  const found = sources.filter((x) => x.status === 'found' && x.files > 0);
  if (found.length === 0 || found.some((x) => x.usageRecorded !== false)) return undefined;
  if (summary.requestCount > 0 || Object.keys(summary.breakdowns ?? {}).length > 0) return undefined;
  return [...new Set(found.map((x) => x.agent))];
}

/** Write the report to `io`; the exit code. */
export function renderCostReport(data: { report: CostReport; view: CostReportView }, io: RenderIo): number {
  const { report, view } = data;
  for (const w of report.warnings) io.stderr.write(`warning: ${w}\n`);
  const { format, asked, ...options } = view;
  // In JSON, where the usage came from and how much could not be read; on stderr, the same for humans.
  const shown = format === 'json' ? { ...report.summary, sources: report.sources, unreadable: unreadableCount(report.sources) } : report.summary;
  io.stdout.write(renderCostSummary(shown, format, { ...options, mode: report.mode, unrecorded: onlyUnrecorded(report.sources, report.summary) }));
  // CSV has no place under its rows: what the table says under it goes to stderr.
  const notes = format === 'csv' ? retainedLines(report.summary, options) : [];
  if (notes.length > 0) io.stderr.write(`note: ${notes.map((l) => l.trim()).join(' ')}\n`);
  writeSourceNotes(io.stderr, report.sources, { env: io.env, asked, verbose: format !== 'json' && stderrIsTerminal(io.stderr), scanWarned: true, usageNotes: true });
  for (const { agent, sessions: n, pending } of report.unknownUsage) {
    io.stderr.write(`note: ${agent}: ${n} session${n === 1 ? ' has' : 's have'} tokens the agent has not recorded${pending === true ? ' yet' : ''}, counted as none here (\`sessions list ${agent}\` marks them)\n`);
  }
  return 0;
}
