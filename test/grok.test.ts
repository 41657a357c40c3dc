/**
 * Grok Build (`updates.jsonl`) over the fixtures in fixtures/grok, shaped like the records Grok Build writes
 * (codecs/grok/README.md cites them): golden events, token totals checked by a deliberately simple second
 * reader, streamed chunks joined into one message, chunk invariance, resume at every line boundary and random
 * cuts, and the roots' env override. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/grok.test.ts` (the totals check then still holds them to the simple reader).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { discoverGrokSync, getGrokRoots, grok } from '../codecs/grok/index.js';
import type { MessageEvent, SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';
import { jsonLines } from './helpers/json-lines.js';

const ROOT = new URL('../fixtures/grok/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/grok/', import.meta.url).pathname;
const FILES = [...discoverGrokSync([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));
const MAIN = '0f9c2e4a-1b7d-4c3e-9a51-6d2b8e7f1a01';
const LEGACY = '5b3e8d21-77aa-4f0e-8c19-2e4f6a9b0c02';

/**
 * The simple second reader: JSON.parse each line, take `params.update.usage`, once per `_meta.eventId`; billed
 * input is `inputTokens` (cache reads included) unless a `totalTokens` says the buckets are apart, output is
 * `outputTokens` (+ reasoning when apart). Counts that are not non-negative integers are 0.
 */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  const seen = new Set<string>();
  const n = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  for (const r of jsonLines(text)) {
    const u = r?.params?.update?.usage;
    const id = r?.params?._meta?.eventId;
    if (typeof u !== 'object' || u === null || seen.has(id)) continue;
    const apart = u.totalTokens !== undefined && u.totalTokens !== n(u.inputTokens) + n(u.outputTokens);
    const input = n(u.inputTokens) + (apart ? n(u.cachedReadTokens) : 0);
    const output = n(u.outputTokens) + (apart ? n(u.reasoningTokens) : 0);
    if (input + output === 0) continue;
    seen.add(id);
    sum.input += input;
    sum.cached += n(u.cachedReadTokens);
    sum.output += output;
    sum.reasoning += n(u.reasoningTokens);
    sum.responses++;
  }
  return sum;
}

describe('grok golden files', () => {
  it('discovers every session folder of the fixture tree', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual([MAIN, LEGACY, 'c7d1a9e0-3f52-4b8c-a6e4-91b2d3c4e503']);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id, path) => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(grok, path, { info });
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(path, 'utf8')));
    expect(info.skippedLines, 'the truncated line of the fixtures').toBe(id === LEGACY ? 0 : 1);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    const t = naiveTotals(await readFile(FILES[0]!.path, 'utf8'));
    expect(t).toEqual({ input: 15100, cached: 10096, output: 790, reasoning: 120, responses: 2 });
  });

  it('joins streamed chunks into one message per speaker, with thinking, tool calls and results between', async () => {
    const events = await readEvents(grok, FILES[0]!.path);
    const k = byKind(events);
    const msgs = k.message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Why does the build fail?'],
      ['assistant', ''],
      ['assistant', 'The build fails because strict mode flags an implicit any.'],
      ['user', 'Fix it and run the tests.'],
      ['assistant', 'One test still fails; see the output.'],
    ]);
    expect(msgs[1]!.thinking).toBe('Check the tsconfig first.');
    expect(k.tool_call.map((t) => (t as { name: string }).name)).toEqual(['read_file', 'run_command']);
    expect(k.tool_result.map((t) => (t as { isError: boolean }).isError)).toEqual([false, true]);
    const usage = k.usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.dedupKey])).toEqual([
      ['grok-code-fast-1', 'grok:evt-turn-1:grok-code-fast-1'],
      ['grok-code-fast-1', 'grok:evt-turn-1:grok-code-fast-1'],
      ['grok-4', 'grok:evt-turn-2'],
    ]);
    expect((k.session[0] as SessionEvent).cwd).toBe('/home/dev/app');
  });

  it('a session with only the cumulative counter says its usage is unknown, not zero', async () => {
    const events = await readEvents(grok, FILES[1]!.path);
    expect(byKind(events).usage).toEqual([]);
    expect(events.filter((e): e is SessionEvent => e.type === 'session').some((s) => s.usageUnknown === true)).toBe(true);
  });
});

describe('grok chunking and resume over every fixture', () => {
  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: same events (all kinds, and usage only) whatever the chunks', async (_id, path) => {
    const events = await expectChunkInvariant(grok, path);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(grok, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: resuming at every line boundary and random cuts equals a full read', async (_id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(grok, content, cuts, {}, 'updates.jsonl');
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });
});

describe('grok roots', () => {
  it('is $GROK_HOME/sessions, else ~/.grok/sessions', () => {
    expect(getGrokRoots({ HOME: '/h' })).toEqual(['/h/.grok/sessions']);
    expect(getGrokRoots({ HOME: '/h', GROK_HOME: '/g' })).toEqual(['/g/sessions']);
    expect(getGrokRoots({ HOME: '/h', GROK_HOME: '~/alt' })).toEqual(['/h/alt/sessions']);
  });
});
