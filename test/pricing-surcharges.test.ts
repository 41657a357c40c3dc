/** Fast mode and web search: billed beyond list token prices, through the cache and without it. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPricer } from '../src/cost/pricing.js';
import { fastModeMultiplier, WEB_SEARCH_USD_PER_REQUEST } from '../src/cost/surcharges.js';
import { totalCost } from '../src/cost/total.js';
import { decodeSegment, pushRecords, SegmentWriter } from '../src/scan/segment.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import type { UsageRecord } from '../src/scan/types.js';

const base: UsageEvent = {
  type: 'usage',
  agent: 'claude',
  sessionId: 's',
  offset: 0,
  model: 'claude-opus-4-6',
  provider: 'anthropic',
  timestamp: '2026-03-01T00:00:00.000Z',
  inputTokens: 1000,
  outputTokens: 2000,
  reasoningTokens: 0,
  cacheReadTokens: 50_000,
  cacheWriteTokens: 3000,
  cacheWrite1hTokens: 0,
  singleRequest: true,
  dedupKey: 'k',
};

describe('surcharges', () => {
  const pricer = createPricer({ mode: 'calculate', env: {} });

  it('bills fast mode at the model multiple of the whole computed cost', () => {
    const standard = pricer.calculate(base) as number;
    expect(standard).toBeGreaterThan(0);
    expect(pricer.calculate({ ...base, speed: 'fast' })).toBeCloseTo(standard * 6, 12);
    expect(fastModeMultiplier('claude-opus-4-8')).toBe(2);
    expect(fastModeMultiplier('claude-opus-5')).toBe(2);
    expect(fastModeMultiplier('claude-opus-4-7-20260101')).toBe(6);
    expect(fastModeMultiplier('some-future-model')).toBe(6);
  });

  it('adds $0.01 per web search on top of tokens', () => {
    const standard = pricer.calculate(base) as number;
    expect(pricer.calculate({ ...base, webSearchRequests: 3 })).toBeCloseTo(standard + 3 * WEB_SEARCH_USD_PER_REQUEST, 12);
  });

  it('keeps the recorded cost in auto mode', () => {
    const auto = createPricer({ env: {} });
    expect(auto.price({ ...base, speed: 'fast', costUsd: 1.23 })).toEqual({ usd: 1.23, source: 'agent', unpriced: false });
  });

  it('survives the segment encoding the cache and the workers use', () => {
    const w = new SegmentWriter();
    w.add({ ...base, speed: 'fast', webSearchRequests: 2 });
    w.add({ ...base, dedupKey: 'k2' });
    const out: UsageRecord[] = [];
    pushRecords(decodeSegment(w.finish()), '/f', undefined, false, out);
    expect(out[0]).toMatchObject({ speed: 'fast', webSearchRequests: 2 });
    expect(out[1]?.speed).toBeUndefined();
    expect(out[1]?.webSearchRequests).toBeUndefined();
  });

  it('prices a Claude fast-mode response the same with and without the event cache', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sf-fast-'));
    const dir = join(home, 'claude', 'projects', '-w');
    await mkdir(dir, { recursive: true });
    const line = (id: string, speed?: string) =>
      JSON.stringify({
        type: 'assistant',
        sessionId: '11111111-2222-4333-8444-555555555555',
        cwd: '/w',
        timestamp: '2026-03-01T10:00:00.000Z',
        requestId: `req_${id}`,
        message: {
          id: `msg_${id}`,
          model: 'claude-opus-4-6',
          role: 'assistant',
          content: [{ type: 'text', text: 'hi' }],
          usage: { input_tokens: 10, output_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, server_tool_use: { web_search_requests: 1 }, ...(speed && { speed }) },
        },
      });
    await writeFile(join(dir, '11111111-2222-4333-8444-555555555555.jsonl'), `${line('a', 'fast')}\n${line('b')}\n`);
    const env = { HOME: home, CLAUDE_CONFIG_DIR: join(home, 'claude') };
    const opts = { env, agents: ['claude'], mode: 'calculate' as const, cachePath: join(home, 'cache.db') };
    const calc = createPricer({ mode: 'calculate', env: {} });
    const plain = calc.calculate({ ...base, inputTokens: 10, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }) as number;
    const expected = plain * 6 + plain + 2 * WEB_SEARCH_USD_PER_REQUEST;
    const uncached = await totalCost({ ...opts, cache: false });
    const cold = await totalCost(opts);
    const warm = await totalCost(opts);
    for (const s of [uncached, cold, warm]) expect(s.totalUsd).toBeCloseTo(expected, 9);
  });
});
