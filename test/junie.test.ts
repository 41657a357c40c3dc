/**
 * JetBrains Junie (`~/.junie/sessions/<session id>/events.jsonl`) over the session folders of fixtures/junie,
 * built from lines Junie wrote (codecs/junie/README.md, "Fixtures"): golden events, token totals checked by a
 * deliberately simple second reader (every `modelUsage` entry summed in plain code), the buckets of one real
 * call, bad lines skipped and counted, multi-byte text and CRLF across chunk edges, chunk invariance and resume
 * at every cut, discovery and roots. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/junie.test.ts`.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJunieRoots, junie } from '../codecs/junie/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { inTempDir as inTempDirOf } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';
import { jsonLines } from './helpers/json-lines.js';

const ROOT = new URL('../fixtures/junie/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/junie/', import.meta.url).pathname;
const SESSIONS = (await readdir(ROOT)).sort();
const FIXTURES = SESSIONS.map((s) => `${s}/events.jsonl`);
const METRICS = 'session-260825-151015-1bxv';

/** The simple second reader: every `modelUsage` entry of every line, its four buckets summed as they stand. */
function naiveTotals(text: string): UsageTotals {
  const t = emptyTotals();
  for (const r of jsonLines(text)) {
    const ae = r?.event?.agentEvent;
    if (ae?.kind !== 'LlmResponseMetadataEvent') continue;
    for (const u of ae.modelUsage ?? []) {
      const input = (u.inputTokens ?? 0) + (u.cacheInputTokens ?? 0) + (u.cacheCreateTokens ?? 0);
      if (input + (u.outputTokens ?? 0) === 0) continue;
      t.input += input;
      t.cached += u.cacheInputTokens ?? 0;
      t.output += u.outputTokens ?? 0;
      t.responses++;
    }
  }
  return t;
}

const inTempDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => inTempDirOf('sf-junie-', fn);

/** A session log holding `text` in a session folder of `dir`. */
async function sessionFile(dir: string, text: string | Buffer, id = 'session-260901-120000-abcd'): Promise<string> {
  await mkdir(join(dir, id), { recursive: true });
  const file = join(dir, id, 'events.jsonl');
  await writeFile(file, text);
  return file;
}

/** A `LlmResponseMetadataEvent` line as Junie writes it (the captured shape), with `usage` as its one entry. */
const usageLine = (timestampMs: number, usage: Record<string, unknown>): string =>
  JSON.stringify({ kind: 'SessionA2uxEvent', event: { state: 'IN_PROGRESS', agentEvent: { kind: 'LlmResponseMetadataEvent', agent: { kind: 'MainAgent', id: 'main', name: 'main', type: 'LINEAR' }, modelUsage: [usage] } }, taskId: 'task-260901-120000-abcd', timestampMs });
const promptLine = (timestampMs: number, prompt: string): string =>
  JSON.stringify({ kind: 'UserPromptEvent', requestId: 'prompt-260901-120000-abcd', prompt, presentablePrompt: prompt, requiresConfirmation: true, timestampMs });

describe('junie golden files', () => {
  it.each(SESSIONS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id) => {
    const file = `${ROOT}${id}/events.jsonl`;
    const events = await readEvents(junie, file);
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: id });
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(file, 'utf8')));
  });

  it('books each call\u2019s buckets apart, as Junie records them: uncached input, cache reads, cache writes, output', async () => {
    const events = await readEvents(junie, `${ROOT}${METRICS}/events.jsonl`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.costUsd])).toEqual([
      ['claude-haiku-4-5-20251001', 3125, 0, 0, 9, 0.00317],
      ['claude-fable-5', 1, 0, 18631, 120, 0.2388975],
      ['gpt-4.1-mini-2025-04-14', 186, 0, 0, 12, 9.360000000000001e-5],
      ['claude-fable-5', 2, 18631, 4826, 266, 0.092276],
      ['gpt-4.1-mini-2025-04-14', 794, 0, 0, 6, 3.2720000000000004e-4],
    ]);
    // Junie's own context report after each main call equals its three input buckets: none overlaps another
    expect(usage[1]!.inputTokens + usage[1]!.cacheWriteTokens).toBe(18632);
    expect(usage[3]!.inputTokens + usage[3]!.cacheReadTokens + usage[3]!.cacheWriteTokens).toBe(23459);
    expect(usage.every((u) => u.singleRequest && u.reasoningTokens === 0 && u.modelFallback === undefined)).toBe(true);
    expect(usage[0]!.timestamp).toBe(new Date(1787663417205).toISOString());
    expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(5);
    const sessions = byKind(events).session as SessionEvent[];
    expect(sessions.at(-1)).toMatchObject({ cwd: '/home/dev/Workspace/spring-petclinic-reactive', startedAt: new Date(1787670145995).toISOString() });
  });

  it('reads the prompt and the task\u2019s result as messages, and a failed task as no usage', async () => {
    const life = await readEvents(junie, `${ROOT}session-260824-174155-sm5c/events.jsonl`);
    const messages = byKind(life).message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.text.slice(0, 14)])).toEqual([
      ['user', 'test'],
      ['assistant', 'Test received!'],
    ]);
    // the result's task cost (`completion.taskCostUsd`) is not usage: its calls are
    expect(byKind(life).usage).toEqual([]);
    const failed = await readEvents(junie, `${ROOT}session-260824-172944-kgus/events.jsonl`);
    expect(byKind(failed).usage).toEqual([]);
    expect(byKind(failed).session).toHaveLength(1);
  });
});

describeChunkingAndResume(junie, ROOT, FIXTURES);

describe('junie bad input', () => {
  it('skips and counts a torn line, a line that is no object and a call with an absurd count; the rest is read', async () => {
    await inTempDir(async (dir) => {
      const good = usageLine(1787700000000, { model: 'gpt-5', cost: 0.01, inputTokens: 100, cacheInputTokens: 50, cacheCreateTokens: 0, outputTokens: 10, time: 0 });
      const absurd = usageLine(1787700001000, { model: 'gpt-5', cost: 0, inputTokens: -5, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 1, time: 0 });
      const file = await sessionFile(dir, [promptLine(1787699990000, 'go'), '{"kind":"SessionA2uxEvent","event":{', '[1,2]', absurd, good].join('\n') + '\n');
      const info = newReadInfo();
      const events = await readEvents(junie, file, { info });
      expect(info.skippedLines).toBe(3);
      expect((byKind(events).usage as UsageEvent[]).map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[100, 50, 10]]);
      expect(byKind(events).message).toHaveLength(1);
      await expect(readEvents(junie, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('a call with no tokens and no cost is no usage; one with a cost alone is, and a model left out is `unknown`', async () => {
    await inTempDir(async (dir) => {
      const zero = usageLine(1787700000000, { model: '', cost: 0, inputTokens: 0, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 0, time: 0 });
      const costOnly = usageLine(1787700001000, { model: 'gpt-5.4-nano', cost: 1.8199e-4, inputTokens: 0, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 0, time: 0 });
      const noModel = usageLine(1787700002000, { inputTokens: 7, outputTokens: 1 });
      const usage = byKind(await readEvents(junie, await sessionFile(dir, [zero, costOnly, noModel].join('\n') + '\n'))).usage as UsageEvent[];
      expect(usage.map((u) => [u.model, u.modelFallback, u.costUsd, u.inputTokens])).toEqual([
        ['gpt-5.4-nano', undefined, 1.8199e-4, 0],
        ['unknown', true, undefined, 7],
      ]);
    });
  });

  it('a call written twice verbatim keeps its dedup key, so folds count it once', async () => {
    await inTempDir(async (dir) => {
      const line = usageLine(1787700000000, { model: 'gpt-5', cost: 0.01, inputTokens: 100, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 10, time: 0 });
      const next = usageLine(1787700005000, { model: 'gpt-5', cost: 0.01, inputTokens: 100, cacheInputTokens: 0, cacheCreateTokens: 0, outputTokens: 10, time: 0 });
      const usage = byKind(await readEvents(junie, await sessionFile(dir, [line, line, next].join('\n') + '\n'))).usage as UsageEvent[];
      expect(usage).toHaveLength(3);
      expect(usage[0]!.dedupKey).toBe(usage[1]!.dedupKey);
      expect(usage[2]!.dedupKey).not.toBe(usage[0]!.dedupKey);
      expect(codecUsageTotals(usage).responses).toBe(2);
    });
  });

  it('multi-byte text and CRLF line ends read the same in every chunking, and resumed at every cut', async () => {
    await inTempDir(async (dir) => {
      const text = [promptLine(1787700000000, 'Zeige die Übersicht — 日本語 🚀'), usageLine(1787700001000, { model: 'claude-fable-5', cost: 0.2, inputTokens: 1, cacheInputTokens: 0, cacheCreateTokens: 900, outputTokens: 20, time: 0 })].join('\r\n') + '\r\n';
      const content = Buffer.from(text);
      const file = await sessionFile(dir, content);
      const events = await expectChunkInvariant(junie, file);
      expect((byKind(events).message[0] as MessageEvent).text).toBe('Zeige die Übersicht — 日本語 🚀');
      const cuts = Array.from({ length: content.length + 1 }, (_, i) => i);
      await expectResumeEqualsFull(junie, content, cuts, {}, 'session-260901-120000-abcd/events.jsonl');
      expect(lineBoundaries(content).length).toBe(3);
    });
  });
});

describe('junie discovery and roots', () => {
  it('$JUNIE_HOME moves the home; else ~/.junie', () => {
    expect(getJunieRoots({ HOME: '/h' })).toEqual(['/h/.junie/sessions']);
    expect(getJunieRoots({ HOME: '/h', JUNIE_HOME: '/j' })).toEqual(['/j/sessions']);
    expect(getJunieRoots({ HOME: '/h', JUNIE_HOME: '~/jh' })).toEqual(['/h/jh/sessions']);
  });

  it('finds each session folder\u2019s events.jsonl, and not the index, a folder without a log or a task folder\u2019s files', async () => {
    await inTempDir(async (dir) => {
      const root = join(dir, 'sessions');
      await mkdir(root);
      await writeFile(join(root, 'index.jsonl'), '{}\n');
      await sessionFile(root, promptLine(1, 'a') + '\n', 'session-a');
      await mkdir(join(root, 'session-b', 'task-1'), { recursive: true });
      await writeFile(join(root, 'session-b', 'task-1', 'events.jsonl'), '{}\n');
      await writeFile(join(root, 'session-b', 'state.json'), '{}');
      const found = await discoverAll(junie, [root, join(dir, 'missing')]);
      expect(found.map((f) => [f.sessionId, f.path])).toEqual([['session-a', join(root, 'session-a', 'events.jsonl')]]);
      expect(await junie.locate?.([root], 'session-a')).toMatchObject({ sessionId: 'session-a' });
      expect(await junie.locate?.([root], 'session-b')).toBeUndefined();
    });
  });
});
