/**
 * `list({ sort: 'cost' })` over SCAN_MIN_FILES or more files takes each file's usage from the scan engine
 * (src/sessions/usage-scan.ts), which keeps per file only hashed dedup keys and copies of its strings. A key
 * repeated in a file counts once, the same key in two files counts in each, and the cost and model of every
 * row equal `get()`'s and a plain count done here — with the event cache (a file's records in one batch) and
 * without it (the streaming scan).
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { ownString, SCAN_MIN_FILES } from '../src/sessions/usage-scan.js';
import { FAKE_PRICER, makeHome, writeExportSession, type Home } from './sessions-helpers.js';

const AGENT = 'sessionfold-jsonl';
const FILES = SCAN_MIN_FILES + 3;
let home: Home;
let root: string;
/** Per session: the USD and the request count a plain reader counts (each key of a file once). */
const want = new Map<string, { usd: number; requests: number; model: string }>();

beforeAll(async () => {
  home = await makeHome();
  root = join(home.dir, 'usage-scan');
  await mkdir(root, { recursive: true });
  const filler = 'z'.repeat(1500);
  for (let i = 0; i < FILES; i++) {
    const msgs = [];
    const seen = new Set<string>();
    let usd = 0;
    const byModel = new Map<string, number>();
    for (let k = 0; k * 2 * filler.length < FULL_PEEK_BYTES * 1.5; k++) {
      // Every third response repeats the previous key (a streamed copy); key `shared:k` is in every file.
      const key = k % 3 === 2 ? `f${i}:${k - 1}` : k % 5 === 0 ? `shared:${k}` : `f${i}:${k}`;
      const model = k % 4 === 0 ? 'gpt-5-long-model-name' : 'claude-sonnet-4-5-20250929';
      const input = 100 * i + k;
      const output = i + 1;
      msgs.push({ role: 'user' as const, content: `q${k} ${filler}`, timestamp: new Date(Date.UTC(2026, 2, 1 + (i % 28), 0, k)).toISOString() });
      msgs.push({
        role: 'assistant' as const,
        content: `a${k} ${filler}`,
        id: `m${i}-${k}`,
        model,
        timestamp: new Date(Date.UTC(2026, 2, 1 + (i % 28), 0, k, 30)).toISOString(),
        usage: { model, inputTokens: input, outputTokens: output, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: key },
      });
      if (seen.has(key)) continue;
      seen.add(key);
      usd += (input + 2 * output) / 1e6;
      byModel.set(model, (byModel.get(model) ?? 0) + 1);
    }
    const model = [...byModel].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
    want.set(`us-${i}`, { usd, requests: seen.size, model });
    await writeExportSession(root, { agent: 'x', sessionId: `us-${i}` }, msgs);
  }
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe('list --sort cost through the scan engine', () => {
  for (const cache of [true, false]) {
    it(`counts each key of a file once, as get() does (${cache ? 'event cache' : 'no cache'})`, async () => {
      const sm = createSessionManager({ env: { ...home.env, SESSIONFOLD_EXPORT_DIR: root }, pricer: FAKE_PRICER, cache });
      const rows = await sm.list(AGENT, { sort: 'cost', limit: 1000 });
      expect(rows).toHaveLength(FILES);
      const byCost = [...want].sort((a, b) => b[1].usd - a[1].usd).map(([id]) => id);
      expect(rows.map((r) => r.sessionId)).toEqual(byCost);
      for (const r of rows) {
        const w = want.get(r.sessionId);
        expect(r.exact).toBe(false);
        expect(r.cost?.requestCount).toBe(w?.requests);
        expect(r.cost?.totalUsd).toBeCloseTo(w?.usd as number, 12);
        expect(r.model).toBe(w?.model);
        const g = await sm.get(AGENT, r.sessionId);
        expect(r.cost).toEqual(g.cost);
      }
    });
  }

  it('ownString gives an equal string, also of a slice', () => {
    const table = 'claude-sonnet-4-5-20250929 0123456789abcdef-0123456789abcdef';
    for (const s of [table.slice(0, 26), table.slice(27), '', 'é—ü']) expect(ownString(s)).toBe(s);
  });
});
