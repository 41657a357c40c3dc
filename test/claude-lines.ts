/** Generated Claude Code session lines for the CLI tests: one assistant response with usage and a recorded cost. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CostRecord } from '../src/cost/types.js';

/** One response: its id, time, tokens and recorded USD. */
export interface Req {
  id: string;
  ms: number;
  inp: number;
  out: number;
  cr: number;
  cw: number;
  usd: number;
  model?: string;
}

/** The assistant line Claude Code writes for a response (`costUSD` recorded, so the cost is known exactly). */
export function claudeLine(sid: string, r: Req): string {
  return JSON.stringify({
    type: 'assistant',
    sessionId: sid,
    cwd: '/w',
    timestamp: new Date(r.ms).toISOString(),
    requestId: `req_${r.id}`,
    costUSD: r.usd,
    message: { id: `msg_${r.id}`, role: 'assistant', model: r.model ?? 'claude-sonnet-4-5', content: [{ type: 'text', text: 'x' }], usage: { input_tokens: r.inp, output_tokens: r.out, cache_read_input_tokens: r.cr, cache_creation_input_tokens: r.cw } },
  });
}

/** Write a session `<claude>/projects/-w/<sid>.jsonl` holding `reqs`. */
export async function writeClaudeSession(claudeDir: string, sid: string, reqs: readonly Req[]): Promise<void> {
  const dir = join(claudeDir, 'projects', '-w');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${sid}.jsonl`), reqs.map((r) => claudeLine(sid, r)).join('\n') + '\n');
}

/** Total tokens of a response (input, output, cache reads and writes). */
export const reqTokens = (r: Req): number => r.inp + r.out + r.cr + r.cw;
/** Sum of `f` over responses. */
export const sumOf = (rs: readonly Req[], f: (r: Req) => number): number => rs.reduce((a, r) => a + f(r), 0);

/** A response's prompt: its input, cache read and cache write tokens (what a status line's context counts). */
export const promptOf = (r: Req): number => r.inp + r.cr + r.cw;

/** A report record's request count, tokens and USD equal the plain sums over the responses `rs`. */
export function expectReqSums(row: CostRecord | undefined, rs: readonly Req[]): void {
  expect(row).toMatchObject({
    requestCount: rs.length,
    inputTokens: sumOf(rs, (r) => r.inp),
    outputTokens: sumOf(rs, (r) => r.out),
    cacheReadTokens: sumOf(rs, (r) => r.cr),
    cacheWriteTokens: sumOf(rs, (r) => r.cw),
  });
  expect(row?.totalUsd).toBeCloseTo(sumOf(rs, (r) => r.usd), 9);
}
