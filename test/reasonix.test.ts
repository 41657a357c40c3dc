/**
 * Reasonix (`<state root>/stats/YYYY-MM-DD.jsonl`) over fixtures/reasonix, written by hand from Reasonix's own
 * record type (codecs/reasonix/README.md): golden events, token totals checked by a deliberately simple second
 * reader, the rows that hold no request's tokens, bad lines skipped and counted, chunk invariance and resume
 * at every line, discovery, roots and the agent's variables. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/reasonix.test.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectReasonix, getReasonixRoots, isoOf, reasonix, reasonixStateRoot, splitModelRef } from '../codecs/reasonix/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { inTempDir } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reasonix/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/reasonix/', import.meta.url));
const STATS = join(FIXTURES, 'home', '.reasonix', 'stats');
const DAYS = ['2026-08-02', '2026-08-03'];

/**
 * The simple second reader: every line with a token field and no compaction object is one usage report; its
 * prompt (cache hits and misses together) is the billed input, the hits the cached part, the completion the
 * output with its reasoning inside.
 */
function naiveTotals(text: string): UsageTotals {
  const t = emptyTotals();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line);
    if (r.compaction || r.turn || !(r.prompt || r.completion)) continue;
    t.input += r.prompt ?? 0;
    t.cached += r.cache_hit ?? 0;
    t.output += r.completion ?? 0;
    t.reasoning += r.reasoning ?? 0;
    t.responses++;
  }
  return t;
}

const usageOf = (events: readonly unknown[]) => byKind(events as never).usage as UsageEvent[];

describe('reasonix golden files', () => {
  it.each(DAYS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (day) => {
    const file = join(STATS, `${day}.jsonl`);
    const events = await readEvents(reasonix, file);
    await expectGolden(EXPECTED, day, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: day, title: `Reasonix usage on ${day}` });
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(file, 'utf8')));
  });

  it('books each report as DeepSeek bills it: cache misses as input, hits as cache reads, reasoning inside the output', async () => {
    const usage = usageOf(await readEvents(reasonix, join(STATS, '2026-08-02.jsonl')));
    expect(usage.map((u) => [u.provider, u.model, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens, u.singleRequest])).toEqual([
      ['deepseek', 'deepseek-v4-flash', 6120, 0, 418, 192, true],
      ['deepseek', 'deepseek-v4-flash', 795, 6016, 233, 57, true],
      ['deepseek', 'deepseek-v4-pro', 430, 6912, 96, 0, true],
    ]);
    expect(usage[0]!.timestamp).toBe('2026-08-02T01:14:03.512Z');
    expect(usage[2]!.costUsd).toBe(0.000398);
    expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(3);
  });

  it('a row of several requests is not a single request; a prompt without cache fields is all uncached input', async () => {
    const usage = usageOf(await readEvents(reasonix, join(STATS, '2026-08-03.jsonl')));
    expect(usage.map((u) => [u.provider, u.model, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.singleRequest])).toEqual([
      ['deepseek', 'deepseek-v4-flash', 3000, 12800, 2210, false],
      ['mimo', 'mimo-v2-pro', 2400, 0, 120, true],
    ]);
  });

  it('turn markers, request-only rows and compaction rows hold no usage of their own', async () => {
    const events = await readEvents(reasonix, join(STATS, '2026-08-02.jsonl'));
    const offsets = usageOf(events).map((u) => u.offset);
    const text = await readFile(join(STATS, '2026-08-02.jsonl'));
    const lineAt = (o: number) => JSON.parse(text.subarray(o, text.indexOf(10, o)).toString('utf8'));
    expect(offsets.map(lineAt).every((r) => r.turn === undefined && r.compaction === undefined && r.prompt > 0)).toBe(true);
    expect((byKind(events).session as SessionEvent[]).map((s) => s.startedAt)).toEqual(['2026-08-02T01:14:03.512Z']);
  });
});

describe('reasonix records', () => {
  it('reads Go timestamps with nanoseconds and zones, and canonical model refs', () => {
    expect(isoOf('2026-08-03T22:05:17.250118090+02:00')).toBe('2026-08-03T20:05:17.250Z');
    expect(isoOf('2026-08-03T22:05:17Z')).toBe('2026-08-03T22:05:17.000Z');
    expect(isoOf('not a time')).toBeUndefined();
    expect(splitModelRef('deepseek/deepseek-v4-pro')).toEqual({ provider: 'deepseek', model: 'deepseek-v4-pro' });
    expect(splitModelRef('openrouter/deepseek/deepseek-r1')).toEqual({ provider: 'openrouter', model: 'deepseek/deepseek-r1' });
    expect(splitModelRef('deepseek-chat')).toEqual({ provider: undefined, model: 'deepseek-chat' });
  });

  it('skips and counts a malformed line, a torn last line and an absurd count, keeping the rest', async () => {
    await inTempDir('sf-reasonix-', async (dir) => {
      const file = join(dir, '2026-09-01.jsonl');
      const good = { ts: '2026-09-01T10:00:00+00:00', model: 'deepseek/deepseek-v4-flash', prompt: 100, completion: 10, cache_miss: 100, requests: 1 };
      const lines = [JSON.stringify(good), 'not json', JSON.stringify({ ...good, prompt: -5 }), JSON.stringify({ ...good, completion: 1e12 }), '[1,2]', JSON.stringify({ ...good, ts: '2026-09-01T11:00:00+00:00' })];
      await writeFile(file, lines.join('\n') + '\n{"ts":"2026-09-01T12:00');
      const info = newReadInfo();
      const events = await readEvents(reasonix, file, { onSkip: () => {}, info });
      expect(usageOf(events)).toHaveLength(2);
      expect(info.skippedLines).toBe(4);
      expect(info.bytesCommitted).toBe(Buffer.byteLength(lines.join('\n') + '\n'));
    });
  });

  it('recognises a day file by its name and first record', () => {
    const head = Buffer.from('{"ts":"2026-08-02T09:14:03+08:00","model":"deepseek/deepseek-v4-flash","prompt":1,"requests":1}\n');
    expect(detectReasonix('/x/stats/2026-08-02.jsonl', head)).toBe(2);
    expect(detectReasonix('/x/stats/session.jsonl', head)).toBe(0);
    expect(detectReasonix('/x/stats/2026-08-02.jsonl', Buffer.from('{"role":"user"}\n'))).toBe(0);
  });
});

describeChunkingAndResume(reasonix, STATS + '/', DAYS.map((d) => `${d}.jsonl`));

describe('reasonix discovery and roots', () => {
  it('lists each day file once, named by its day, and nothing else in the folder', async () => {
    const files = await discoverAll(reasonix, [STATS, STATS]);
    expect(files.map((f) => [f.sessionId, f.path]).sort()).toEqual(DAYS.map((d) => [d, join(STATS, `${d}.jsonl`)]));
    expect(await discoverAll(reasonix, [join(FIXTURES, 'missing')])).toEqual([]);
  });

  it('follows REASONIX_STATE_HOME, then REASONIX_HOME, then the platform home; SESSIONFOLD_REASONIX_DIR replaces them', () => {
    const home = '/home/u';
    expect(reasonixStateRoot({ HOME: home }, 'linux')).toBe('/home/u/.reasonix');
    expect(reasonixStateRoot({ HOME: home }, 'darwin')).toBe('/home/u/.reasonix');
    expect(reasonixStateRoot({ HOME: home, APPDATA: '/w/Roaming' }, 'win32')).toBe(join('/w/Roaming', 'reasonix'));
    expect(reasonixStateRoot({ HOME: home }, 'win32')).toBe(join(home, 'AppData', 'Roaming', 'reasonix'));
    expect(reasonixStateRoot({ HOME: home, REASONIX_HOME: '~/rx' }, 'linux')).toBe('/home/u/rx');
    expect(reasonixStateRoot({ HOME: home, REASONIX_HOME: '/rx', REASONIX_STATE_HOME: '/state' }, 'linux')).toBe('/state');
    expect(reasonixStateRoot({ HOME: home, REASONIX_STATE_HOME: '  ' }, 'linux')).toBe('/home/u/.reasonix');
    expect(getReasonixRoots({ HOME: home }, 'linux')).toEqual(['/home/u/.reasonix/stats']);
    expect(getReasonixRoots({ HOME: home, REASONIX_STATE_HOME: '/state' }, 'linux')).toEqual(['/state/stats']);
    expect(getReasonixRoots({ HOME: home, SESSIONFOLD_REASONIX_DIR: '/a,/b' }, 'linux')).toEqual(['/a', '/b']);
  });

  it('names its variables in the descriptor', () => {
    expect(reasonix.rootVariables).toEqual(['REASONIX_STATE_HOME', 'REASONIX_HOME']);
    expect(reasonix.defaultRoots({ HOME: '/home/u' })).toEqual([join('/home/u', '.reasonix', 'stats')]);
  });
});
