/**
 * `cost report` as text: the scan's warnings and the notes on unrecorded usage on stderr, the summary on stdout
 * in the chosen format, from the report's data (src/cost/report.ts), the same whether it was computed in this
 * process or by `serve`.
 */
import type { CostReport } from '../../cost/report.js';
import { renderCostSummary, type CostFormat, type RenderOptions } from './cost.js';
import type { RenderIo } from './io.js';

/** How the report is shown: the format and the rendering options (the time zone and mode in the title). */
export interface CostReportView extends Omit<RenderOptions, 'mode'> {
  format: CostFormat;
}

/** Write the report to `io`; the exit code. */
export function renderCostReport(data: { report: CostReport; view: CostReportView }, io: RenderIo): number {
  const { report, view } = data;
  for (const w of report.warnings) io.stderr.write(`warning: ${w}\n`);
  const { format, ...options } = view;
  io.stdout.write(renderCostSummary(report.summary, format, { ...options, mode: report.mode }));
  for (const { agent, sessions: n } of report.unknownUsage) {
    io.stderr.write(`note: ${agent}: ${n} session${n === 1 ? ' has' : 's have'} tokens the agent has not recorded yet, counted as none here (\`sessions list ${agent}\` marks them)\n`);
  }
  return 0;
}
