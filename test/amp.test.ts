/**
 * Every Amp thread in ../shared/fixtures/real/amp: golden events, token totals checked by a deliberately simple
 * second reader, the same events whatever the read buffer, and resume (a fingerprint cursor) equal to a full
 * read; plus key orders and content blocks the fixtures do not show. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/amp.test.ts` (the totals check still holds them to the simple reader).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amp } from '../codecs/amp/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { codecSplitTotals, type SplitTotals } from './helpers/usage-totals.js';

const REAL = new URL('../../shared/fixtures/real/amp/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/amp/', import.meta.url).pathname;
const THREADS = (await readdir(REAL)).filter((n) => n.endsWith('.json')).sort();

type Totals = SplitTotals;

/**
 * The simple second reader: JSON.parse the whole thread; with a ledger, sum each distinct ledger id's
 * `tokens` (Number() of strings) plus the cache tokens of the message it points at; else each assistant
 * message's `usage`.
 */
function naiveAmpTotals(text: string): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, calls: 0 };
  const doc = JSON.parse(text);
  const messages: any[] = doc.messages ?? [];
  const events: any[] = doc.usageLedger?.events ?? [];
  if (events.length > 0) {
    const seen = new Set<string>();
    for (const e of events) {
      if (seen.has(String(e.id))) continue;
      seen.add(String(e.id));
      const m = messages.find((x) => String(x.id) === String(e.toMessageId));
      t.input += Number(e.tokens?.input ?? 0);
      t.output += Number(e.tokens?.output ?? 0);
      t.cacheRead += m?.usage?.cacheReadInputTokens ?? 0;
      t.cacheWrite += m?.usage?.cacheCreationInputTokens ?? 0;
      t.calls++;
    }
    return t;
  }
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.usage) continue;
    t.input += m.usage.inputTokens ?? 0;
    t.output += m.usage.outputTokens ?? 0;
    t.cacheRead += m.usage.cacheReadInputTokens ?? 0;
    t.cacheWrite += m.usage.cacheCreationInputTokens ?? 0;
    t.calls++;
  }
  return t;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-amp-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('amp golden files (real fixtures)', () => {
  it('has every fixture of the shared folder', () => {
    expect(THREADS.length).toBeGreaterThanOrEqual(2);
  });

  it.each(THREADS)('%s: a fresh read equals the checked-in events', async (name) => {
    const events = await readEvents(amp, join(REAL, name));
    expect(events[0]?.type).toBe('session');
    await expectGolden(EXPECTED, name, events);
  });

  it.each(THREADS)('%s: golden token totals agree with a deliberately simple second reader', async (name) => {
    const golden = (await readFile(join(EXPECTED, `${name}.events.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(codecSplitTotals(golden)).toEqual(naiveAmpTotals(await readFile(join(REAL, name), 'utf8')));
  });

  it('counts a duplicate ledger id once and reads numeric strings', async () => {
    const usage = byKind(await readEvents(amp, join(REAL, 'llm-usage-metrics-ledger-thread.json'))).usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens])).toEqual([
      ['claude-sonnet-4', 100, 40, 30, 20],
      ['gpt-5', 20, 10, 3, 2],
    ]);
  });
});

describe('amp buffers and resume over every fixture', () => {
  it.each(THREADS)('%s: same events (all kinds, and usage only) whatever the read buffer', async (name) => {
    const events = await expectChunkInvariant(amp, join(REAL, name));
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(amp, join(REAL, name), { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(THREADS)('%s: resuming as the document grows equals a full read, with fingerprint cursors', async (name) => {
    const content = await readFile(join(REAL, name));
    const run = await expectResumeEqualsFull(amp, content, randomCuts(content.length, 12, 7), {}, name);
    expect(run.cursors.every((c) => c.format === 'json')).toBe(true);
  });
});

describe('amp key orders and content blocks', () => {
  const thread = (obj: unknown) => JSON.stringify(obj, null, 1);
  const MESSAGES = [
    { role: 'user', messageId: 0, content: [{ type: 'text', text: 'list files' }] },
    {
      role: 'assistant',
      messageId: 1,
      content: [{ type: 'thinking', thinking: 'ls will do' }, { type: 'text', text: 'Running ls' }, { type: 'tool_use', id: 'tu1', name: 'Bash', input: { cmd: 'ls' } }],
      usage: { model: 'claude-sonnet-4', inputTokens: 5, outputTokens: 6, cacheReadInputTokens: 7, cacheCreationInputTokens: 8, timestamp: '2026-01-01T00:00:00Z' },
    },
    { role: 'user', messageId: 2, content: [{ type: 'tool_result', toolUseID: 'tu1', run: { status: 'error', result: 'no such dir' } }] },
  ];

  it('reads messages, thinking, tool calls and results; a title after the messages comes as a second session event', async () => {
    const f = join(dir, 'T-abc.json');
    await writeFile(f, thread({ v: 3, id: 'T-abc', created: 1767225600000, messages: MESSAGES, title: 'List', env: { initial: { trees: [{ uri: 'file:///home/u/proj' }] } } }));
    const events = await expectChunkInvariant(amp, f);
    const k = byKind(events);
    expect(k.session).toEqual([
      { type: 'session', agent: 'amp', sessionId: 'T-abc', offset: 0, nativeId: 'T-abc', startedAt: '2026-01-01T00:00:00.000Z' },
      { type: 'session', agent: 'amp', sessionId: 'T-abc', offset: 0, nativeId: 'T-abc', startedAt: '2026-01-01T00:00:00.000Z', title: 'List', cwd: '/home/u/proj' },
    ]);
    expect(k.message.map((m: any) => [m.role, m.text, m.thinking])).toEqual([['user', 'list files', undefined], ['assistant', 'Running ls', 'ls will do'], ['user', '', undefined]]);
    expect(k.tool_call).toMatchObject([{ callId: 'tu1', name: 'Bash', input: { cmd: 'ls' } }]);
    expect(k.tool_result).toMatchObject([{ callId: 'tu1', output: 'no such dir', isError: true }]);
    expect(k.usage).toMatchObject([{ inputTokens: 5, outputTokens: 6, cacheReadTokens: 7, cacheWriteTokens: 8, model: 'claude-sonnet-4', messageId: '1' }]);
  });

  it('a ledger before the messages still takes their cache tokens; the ledger replaces message usage', async () => {
    const f = join(dir, 'T-led.json');
    const ledger = { usageLedger: { events: [{ id: 'l1', model: 'm', toMessageId: 1, tokens: { input: '9', output: 1 }, timestamp: '2026-01-02T00:00:00Z' }] } };
    await writeFile(f, thread({ ...ledger, id: 'T-led', messages: MESSAGES }));
    const usage = byKind(await readEvents(amp, f)).usage;
    expect(usage).toMatchObject([{ model: 'm', inputTokens: 9, outputTokens: 1, cacheReadTokens: 7, cacheWriteTokens: 8, timestamp: '2026-01-02T00:00:00.000Z' }]);
  });

  it('a thread that gains its ledger after a cached report: the ledger\u2019s copy replaces the message\u2019s, not adds to it', async () => {
    const threads = join(dir, 'gains-ledger');
    await mkdir(threads, { recursive: true });
    const f = join(threads, 'T-gain.json');
    await writeFile(f, thread({ id: 'T-gain', messages: MESSAGES }));
    const env = { HOME: dir, SESSIONFOLD_AMP_DIR: threads, SESSIONFOLD_SOCKET: 'off' };
    const report = async (...extra: string[]) => {
      const out = sink();
      expect(await runCli(['cost', 'report', '--json', '--agent', 'amp', '--cache', join(dir, 'gain-cache.db'), ...extra], { stdout: out, stderr: sink(), env })).toBe(0);
      const j = JSON.parse(out.text()) as { inputTokens: number; outputTokens: number; cacheReadTokens: number; requestCount: number };
      return [j.inputTokens, j.outputTokens, j.cacheReadTokens, j.requestCount];
    };
    expect(await report()).toEqual([5, 6, 7, 1]);
    await writeFile(f, thread({ id: 'T-gain', messages: MESSAGES, usageLedger: { events: [{ id: 'ev1', model: 'claude-sonnet-4', toMessageId: 1, tokens: { input: 5, output: 6 } }] } }));
    expect(await report('--no-cache')).toEqual([5, 6, 7, 1]);
    expect(await report()).toEqual([5, 6, 7, 1]);
  });

  it('a broken document is one skipped record, and insane counts count 0', async () => {
    const f = join(dir, 'T-bad.json');
    await writeFile(f, '{"id":"T-bad","messages":[{"role":"assistant","usage":{"inputTokens":-1,"outputTokens":1.5,"cacheReadInputTokens":"12x"}}]');
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    await readEvents(amp, f, { info });
    expect(info.skippedLines).toBe(1);
    await writeFile(f, '{"id":"T-bad","messages":[{"role":"assistant","usage":{"inputTokens":-1,"outputTokens":1.5,"cacheReadInputTokens":"12x","cacheCreationInputTokens":"4"}}]}');
    expect(byKind(await readEvents(amp, f)).usage).toMatchObject([{ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 4 }]);
  });

  it('honours XDG_DATA_HOME and SESSIONFOLD_AMP_DIR, and discovers thread files', async () => {
    expect(amp.defaultRoots({ HOME: '/h' })).toEqual(['/h/.local/share/amp/threads']);
    expect(amp.defaultRoots({ HOME: '/h', XDG_DATA_HOME: '/x' })).toEqual(['/x/amp/threads']);
    expect(amp.defaultRoots({ HOME: '/h', SESSIONFOLD_AMP_DIR: '/a,/b' })).toEqual(['/a', '/b']);
    const found = [];
    for await (const f of amp.discover([REAL, join(dir, 'missing')])) found.push(f.sessionId);
    expect(found.sort()).toEqual(THREADS.map((n) => n.replace(/\.json$/, '')));
  });
});
