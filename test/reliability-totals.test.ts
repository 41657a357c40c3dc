/**
 * Totals are sane (issue 17, case 2): a usage record with a non-finite, negative, fractional or absurdly large
 * token count or cost is refused whole, counted as a skipped line and warned about; the rest of its file is
 * read; a report with the cache equals one without it, cold and warm, and after the bad line is removed; a
 * sum that would pass 2^53 stops the fold instead of depending on the order.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import { countOrZero, isSaneCount, MAX_RECORD_TOKENS, MAX_RECORD_USD, saneCost, saneCount } from '../cursors/sane.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { FoldTotals, NT } from '../src/cost/fold-totals.js';
import { runCli } from '../src/cli/run.js';
import { claudeAssistant } from './helpers/claude-lines.js';
import { count as countLine, jsonl, meta, tu, turn } from './codex-helpers.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const homes: Home[] = [];
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

const SID = '22222222-2222-4222-8222-222222222222';
const TS = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000Z`;

/** A Claude line whose usage (or costUSD) is replaced by `patch`. */
function bad(msg: string, s: number, patch: (o: { message: { usage: Record<string, unknown> } } & Record<string, unknown>) => void): string {
  const o = JSON.parse(claudeAssistant(SID, '/tmp/p', msg, 5, TS(s)));
  patch(o);
  // JSON.stringify writes Infinity as null: big literals are spliced in as text
  return JSON.stringify(o).replace('"__BIG__"', '1e308').replace('"__HUGE__"', '1e309');
}

const GOOD = [claudeAssistant(SID, '/tmp/p', 'g1', 11, TS(1)), claudeAssistant(SID, '/tmp/p', 'g2', 13, TS(2))];
const BAD = [
  bad('b1', 3, (o) => void (o.costUSD = '__BIG__')),
  bad('b2', 4, (o) => void (o.message.usage.output_tokens = '__BIG__')),
  bad('b3', 5, (o) => void (o.message.usage.input_tokens = -5)),
  bad('b4', 6, (o) => void (o.message.usage.cache_read_input_tokens = 1.5)),
  bad('b5', 7, (o) => void (o.message.usage.output_tokens = MAX_RECORD_TOKENS + 1)),
  bad('b6', 8, (o) => void (o.costUSD = -1)),
  bad('b7', 9, (o) => void (o.message.usage.output_tokens = '__HUGE__')),
];

async function report(home: Home, extra: string[] = []) {
  const out = sink();
  const err = sink();
  const code = await runCli(['cost', 'report', '--json', '--tz', 'UTC', ...extra], { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
  return { code, json: code === 0 ? (JSON.parse(out.text()) as Record<string, unknown>) : undefined, err: err.text() };
}

describe('the shared sanitizer (cursors/sane.ts)', () => {
  it('takes integers in [0, ceiling] and finite costs in [0, ceiling]; refuses the rest; ignores non-numbers', () => {
    for (const v of [0, 1, 123456, MAX_RECORD_TOKENS]) expect(saneCount(v, 'x')).toBe(v);
    for (const v of [-1, 1.5, Number.NaN, Infinity, -Infinity, 1e308, MAX_RECORD_TOKENS + 1]) {
      expect(isSaneCount(v)).toBe(false);
      expect(() => saneCount(v, 'x')).toThrow(/absurd usage value x/);
    }
    expect(saneCount(undefined, 'x')).toBe(0);
    expect(saneCount('12', 'x')).toBe(0);
    expect(saneCost(0.25, 'c')).toBe(0.25);
    expect(saneCost(undefined, 'c')).toBeUndefined();
    for (const v of [-0.01, Infinity, 1e308, MAX_RECORD_USD * 2]) expect(() => saneCost(v, 'c')).toThrow(/absurd usage value c/);
  });

  it('countOrZero, the lenient form every codec with its own count used to write: the same ceiling, bigints taken, the rest 0', () => {
    for (const v of [0, 1, 123456, MAX_RECORD_TOKENS]) expect(countOrZero(v)).toBe(v);
    expect(countOrZero(123n)).toBe(123);
    expect(countOrZero(BigInt(MAX_RECORD_TOKENS) + 1n)).toBe(0);
    for (const v of [-1, 1.5, Number.NaN, Infinity, 1e308, MAX_RECORD_TOKENS + 1, '12', null, undefined, {}]) expect(countOrZero(v)).toBe(0);
  });
});

describe('a Claude transcript with absurd usage values', () => {
  it('read(): each bad line skipped and counted, the good ones kept', async () => {
    const home = await makeHome();
    homes.push(home);
    const file = join(home.dir, `${SID}.jsonl`);
    await writeFile(file, [GOOD[0], ...BAD, GOOD[1]].join('\n') + '\n');
    const info = newReadInfo();
    const skipped: string[] = [];
    const usage: UsageEvent[] = [];
    for await (const e of claude.read(file, { info, onSkip: (err) => skipped.push(err.message) })) if (e.type === 'usage') usage.push(e);
    expect(usage.map((u) => u.outputTokens)).toEqual([11, 13]);
    expect(info.skippedLines).toBe(BAD.length);
    expect(skipped.every((m) => /absurd usage value/.test(m))).toBe(true);
  });

  it('cost report: finite totals of the good lines only, one warning, the same with and without the cache, and after the line goes', async () => {
    const home = await makeHome();
    homes.push(home);
    const dir = join(home.claude, 'projects', '-tmp-p');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${SID}.jsonl`);
    await writeFile(file, [GOOD[0], ...BAD, GOOD[1]].join('\n') + '\n');

    const none = await report(home, ['--no-cache']);
    expect(none.code).toBe(0);
    const j = none.json as { totalUsd: number; outputTokens: number; requestCount: number };
    expect(typeof j.totalUsd).toBe('number');
    expect(Number.isFinite(j.totalUsd)).toBe(true);
    expect(j.outputTokens).toBe(24);
    expect(j.requestCount).toBe(2);
    expect(none.err).toContain(`skipped ${BAD.length} lines`);

    const cold = await report(home);
    const warm = await report(home);
    expect(cold.json).toEqual(none.json);
    expect(warm.json).toEqual(none.json);
    // Every run says so, the warm one (which reads nothing) included: a served run equals a local one.
    expect(cold.err).toContain(`skipped ${BAD.length} lines of ${file}`);
    expect(warm.err).toBe(cold.err);

    // The bad lines removed: the cached report follows, and equals an uncached one.
    await writeFile(file, GOOD.join('\n') + '\n');
    const after = await report(home);
    expect(after.json).toEqual((await report(home, ['--no-cache'])).json);
    expect((after.json as { outputTokens: number }).outputTokens).toBe(24);
  }, 60_000);
});

describe('a Codex rollout with absurd token counts', () => {
  it('refuses the token_count lines that carry them, and counts the sane ones', async () => {
    const home = await makeHome();
    homes.push(home);
    const id = '0199a000-0000-7000-8000-000000000042';
    const file = join(home.dir, `rollout-2025-11-05T12-00-00-${id}.jsonl`);
    const neg = { ...tu(10, 0, 5, 0), output_tokens: -7 };
    const huge = JSON.stringify(countLine(3, tu(20, 0, 10, 0))).replace('"output_tokens":10', '"output_tokens":1e308');
    await writeFile(file, jsonl([meta(id, 0), turn(1, 'gpt-5'), countLine(2, tu(10, 0, 5, 0)), countLine(3, neg), huge, countLine(4, tu(30, 0, 15, 0))]));
    const info = newReadInfo();
    const usage: UsageEvent[] = [];
    for await (const e of codex.read(file, { info })) if (e.type === 'usage') usage.push(e);
    expect(info.skippedLines).toBe(2);
    expect(usage.reduce((n, u) => n + u.outputTokens, 0)).toBe(15);
    expect(usage.every((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens].every(isSaneCount))).toBe(true);
  });
});

describe('sums stay exact', () => {
  it('a fold whose sums would pass 2^53 stops with PARSE_ERROR, in whatever order', () => {
    const big = new Float64Array(NT);
    big[1] = 2 ** 52;
    for (const order of [
      [0, 1, 2],
      [2, 1, 0],
    ]) {
      const t = new FoldTotals();
      const fold = () => {
        for (const i of order) t.account(big, 0, [], i, i, -1, 1);
      };
      expect(fold).toThrow(/pass 2\^53/);
    }
    const t = new FoldTotals();
    const one = new Float64Array(NT);
    one[1] = 2 ** 52;
    t.account(one, 0, [], 0, 0, -1, 1);
    t.account(one, 0, [], 1, 1, -1, -1);
    expect(t.total[1]).toBe(0);
  });
});
