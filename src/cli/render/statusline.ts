/**
 * The one line `sessionfold statusline` prints from a StatusLineData (src/cost/statusline.ts), e.g.
 * `Opus 4.5 · session $1.20 · today $8.45 · block $3.10, 2h 05m left, $1.40/h · ctx 45,210/200,000 (23%)`,
 * and the line printed instead when there is no data to show (bad input). Parts without data are left out;
 * `*` marks a cost that leaves out requests without a price.
 */
import type { StatusLineCost, StatusLineData } from '../../cost/statusline.js';
import { fallbackStatusLine } from '../statusline-input.js';
import { int, usd } from './cost.js';
import type { RenderIo } from './io.js';

function cost(c: StatusLineCost): string {
  if (c.unpricedCount > 0 && c.unpricedCount === c.requests) return 'n/a*';
  return c.unpricedCount > 0 ? `${usd(c.costUsd)}*` : usd(c.costUsd);
}

function left(minutes: number): string {
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m left`;
}

/** The status line (no newline). */
export function renderStatusLine(d: StatusLineData): string {
  const parts: string[] = [d.model.displayName ?? d.model.id ?? d.agent];
  // No transcript holds the session: its spend is unknown, not zero (a session not started yet is $0.00).
  parts.push(`session ${d.session !== null ? cost(d.session) : d.sessionFound === false ? 'n/a' : '$0.00'}`);
  parts.push(`today ${cost(d.today)}`);
  if (d.block !== null) {
    const b = [`block ${cost(d.block)}`, left(d.block.remainingMinutes)];
    if (d.block.burnRate !== null) b.push(`${usd(d.block.burnRate.costPerHour)}/h`);
    parts.push(b.join(', '));
  }
  if (d.context !== null) {
    const c = d.context;
    parts.push(c.windowTokens === null ? `ctx ${int(c.usedTokens)}` : `ctx ${int(c.usedTokens)}/${int(c.windowTokens)} (${Math.round(c.percent ?? 0)}%)`);
  }
  return parts.join(' · ');
}

/** What `statusline` answers: the data, or the coded error that made it impossible, and the scan's warnings. */
export interface StatusLineAnswer {
  json: boolean;
  warnings: string[];
  data?: StatusLineData;
  /** `usage`: the command's usage, after a mistake in the command line (src/cli/command.ts isCommandLineMistake). */
  error?: { code: string; message: string; usage?: string };
}

/**
 * Write the answer: the line (or the data with `--json`) on stdout, warnings on stderr; without data, the
 * fallback line and the error (then the usage, when it came with one), exit 0 all the same (a status bar hides
 * a failing command's output).
 */
export function renderStatusLineAnswer(a: StatusLineAnswer, io: RenderIo): number {
  for (const w of a.warnings) io.stderr.write(`warning: ${w}\n`);
  if (a.data === undefined) {
    const code = a.error?.code ?? 'IO_ERROR';
    io.stdout.write(`${fallbackStatusLine(code)}\n`);
    io.stderr.write(`error ${code}: ${a.error?.message ?? 'no status'}\n`);
    if (a.error?.usage !== undefined) io.stderr.write(`\n${a.error.usage}`);
    return 0;
  }
  if (a.data.sessionFound === false) io.stderr.write(`note: no ${a.data.agent} session "${a.data.sessionId}" found under the agent's folders; its cost shows as n/a\n`);
  io.stdout.write(a.json ? `${JSON.stringify(a.data, null, 2)}\n` : `${renderStatusLine(a.data)}\n`);
  return 0;
}
