/**
 * Command Code (`~/.commandcode/projects/<slug>/<id>.jsonl`) over the fixtures in fixtures/commandcode, shaped on
 * the transcripts Command Code 1.40.1 and 1.49.0 wrote (codecs/commandcode/README.md cites them): golden events,
 * token totals checked by a deliberately simple second reader, a legacy transcript that records no usage (no
 * estimate, its usage unknown), chunk invariance, resume at every line boundary and random cuts, the usage-only
 * read's byte markers, and the root. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/commandcode.test.ts` (the totals check then still holds them to the simple reader).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandCode, discoverCommandCodeSync, getCommandCodeRoots } from '../codecs/commandcode/index.js';
import type { MessageEvent, SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/commandcode/projects/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/commandcode/', import.meta.url).pathname;
const FILES = [...discoverCommandCodeSync([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));
const MAIN = '5d7c1e2a-8b34-4f61-9c0d-2a6e4b8f1c03';
const LEGACY = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

/**
 * The simple second reader: JSON.parse each line, take the top-level `usage` of assistant entries; billed input
 * is `inputTokens` (cache reads inside it), output is `outputTokens`.
 */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line);
    const u = r.usage;
    if (r.message?.role !== 'assistant' || u === undefined) continue;
    sum.input += u.inputTokens;
    sum.cached += u.cacheReadTokens;
    sum.output += u.outputTokens;
    sum.responses++;
  }
  return sum;
}

/** Events of one transcript given as text (`s1.jsonl` in a temp dir, removed after). */
async function eventsOf(text: string, kinds?: ['usage']) {
  const dir = await mkdtemp(join(tmpdir(), 'sf-commandcode-'));
  try {
    const path = join(dir, 's1.jsonl');
    await writeFile(path, text);
    return await readEvents(commandCode, path, kinds === undefined ? {} : { kinds });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('commandcode golden files', () => {
  it('discovers the transcripts, not the checkpoint logs or meta files beside them', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual([MAIN, LEGACY]);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id, path) => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(commandCode, path, { info });
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(path, 'utf8')));
    expect(info.skippedLines).toBe(0);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    expect(naiveTotals(await readFile(FILES[0]!.path, 'utf8'))).toEqual({ input: 49342, cached: 40640, output: 349, reasoning: 0, responses: 3 });
  });

  it('books the cache reads apart from the input that holds them, with the recorded cost, once per message uuid', async () => {
    const usage = byKind(await readEvents(commandCode, FILES[0]!.path)).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens, u.costUsd, u.singleRequest])).toEqual([
      [8186, 8064, 212, 0.003771368, true],
      [198, 16192, 41, 0.003746204, true],
      [318, 16384, 96, 0.003852488, true],
    ]);
    expect(usage[0]).toMatchObject({ model: 'deepseek/deepseek-v4-flash', dedupKey: 'commandcode:7e1a2b3c-4d5e-4f60-8172-93a4b5c6d7e8', timestamp: '2026-03-02T09:15:06.120Z' });
  });

  it('reads thinking, tool calls and results, and keeps a steering prompt apart', async () => {
    const k = byKind(await readEvents(commandCode, FILES[0]!.path));
    const msgs = k.message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.subtype])).toEqual([['user', undefined], ['assistant', undefined], ['assistant', undefined], ['user', undefined], ['user', 'steering'], ['assistant', undefined]]);
    expect(msgs[1]!.thinking).toBe('Look at the orders handler first.');
    expect(k.tool_call.map((t) => (t as { callId: string }).callId)).toEqual(['call_00_q8Zr3']);
    expect(k.tool_result.map((t) => (t as { callId: string }).callId)).toEqual(['call_00_q8Zr3']);
    expect((k.session[0] as SessionEvent).cwd).toBe('/home/dev/shop-api');
    expect(k.session.some((s) => (s as SessionEvent).usageUnknown)).toBe(false);
  });

  it('a legacy transcript without usage gives no usage, not an estimate, and says its usage is unknown', async () => {
    const events = await readEvents(commandCode, FILES[1]!.path);
    const k = byKind(events);
    expect(k.usage).toEqual([]);
    expect((k.message as MessageEvent[]).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(events.at(-1)).toMatchObject({ type: 'session', sessionId: LEGACY, usageUnknown: true });
  });
});

describe('commandcode token semantics', () => {
  const entry = (usage: object) => JSON.stringify({ type: 'message', id: 'e1', parentId: null, timestamp: '2026-03-02T09:15:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], meta: { source: 'model' } }, usage, model: 'm' });

  it('a cache larger than the input cannot be inside it, so is taken as apart', async () => {
    const [u] = (await eventsOf(`${entry({ inputTokens: 12, outputTokens: 5, cacheReadTokens: 9000, cacheWriteTokens: 300 })}\n`, ['usage'])) as UsageEvent[];
    expect([u!.inputTokens, u!.cacheReadTokens, u!.cacheWriteTokens, u!.outputTokens]).toEqual([12, 9000, 300, 5]);
  });

  it('an entry without a message uuid is keyed by session and entry id; an empty usage block gives nothing', async () => {
    const events = await eventsOf(`${entry({ inputTokens: 100, outputTokens: 5, cacheReadTokens: 64, cacheWriteTokens: 0 })}\n${entry({ inputTokens: 0, outputTokens: 0 })}\n`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.dedupKey, u.inputTokens])).toEqual([['commandcode:s1:e1', 36]]);
    expect(events.at(-1)).toMatchObject({ type: 'session', usageUnknown: true });
  });
});

describe('commandcode: a prompt left without its reply', () => {
  // Command Code 1.40.1's capture three-turns-1401.jsonl ends so: a resumed `-p` run showed its reply, but only
  // the prompt reached the file (README "Where"): that request's tokens are nowhere in the transcript.
  const header = JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-03-02T09:15:00.000Z', cwd: '/w' });
  const prompt = (id: string, text: string, source = 'user') => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-03-02T09:16:00.000Z', message: { role: 'user', content: [{ type: 'text', text }], meta: { source, createdAt: 1772442960000 } } });
  const reply = (id: string) => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-03-02T09:16:05.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], meta: { source: 'model', messageId: `m-${id}` } }, usage: { inputTokens: 900, outputTokens: 5, cacheReadTokens: 640, cacheWriteTokens: 0 }, model: 'deepseek/deepseek-v4-flash' });
  const tool = (id: string) => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-03-02T09:16:03.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'x' }] }], meta: { source: 'tool' } } });
  const unknown = (events: Awaited<ReturnType<typeof eventsOf>>) => (byKind(events).session as SessionEvent[]).some((s) => s.usageUnknown === true);

  it('a transcript ending in a prompt (or a tool result) with no reply after it has unknown usage', async () => {
    expect(unknown(await eventsOf(`${header}\n${prompt('a1', 'hi')}\n${reply('b1')}\n${prompt('c1', 'again')}\n`))).toBe(true);
    expect(unknown(await eventsOf(`${header}\n${prompt('a1', 'hi')}\n${reply('b1')}\n${tool('c1')}\n`))).toBe(true);
  });

  it('one whose every prompt has its reply (a steering prompt before it included) has not', async () => {
    expect(unknown(await eventsOf(`${header}\n${prompt('a1', 'hi')}\n${prompt('a2', 'use vitest', 'steering')}\n${reply('b1')}\n${tool('c1')}\n${reply('d1')}\n`))).toBe(false);
  });

  it('a read resumed once the reply is written drops the unknown the prompt alone gave', async () => {
    const content = Buffer.from(`${header}\n${prompt('a1', 'hi')}\n${reply('b1')}\n${prompt('c1', 'again')}\n${reply('d1')}\n`);
    const run = await expectResumeEqualsFull(commandCode, content, lineBoundaries(content), {}, 's1.jsonl');
    expect((run.kept.session as SessionEvent[]).some((s) => s.usageUnknown === true)).toBe(false);
  });
});

describe('commandcode chunking, resume and the usage-only markers', () => {
  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: same events (all kinds, and usage only) whatever the chunks', async (_id, path) => {
    const events = await expectChunkInvariant(commandCode, path);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(commandCode, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: resuming at every line boundary and random cuts equals a full read', async (_id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(commandCode, content, cuts, {}, `${_id}.jsonl`);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });

  it('a usage-only read parses only the lines holding a marker', async () => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    await readEvents(commandCode, FILES[0]!.path, { kinds: ['usage'], info });
    // 8 lines: the header (a stream's session id) and the three assistant entries hold a marker
    expect([info.lines, info.filteredLines]).toEqual([8, 4]);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a session and usage read parses every line (the end state needs each prompt) and equals a full read', async (_id, path) => {
    const full = byKind(await readEvents(commandCode, path));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const read = await expectChunkInvariant(commandCode, path, { kinds: ['session', 'usage'], info });
    expect(info.filteredLines).toBe(0);
    expect(byKind(read).session).toEqual(full.session);
    expect(byKind(read).usage).toEqual(full.usage);
  });
});

describe('commandcode roots', () => {
  it('is ~/.commandcode/projects', () => {
    expect(getCommandCodeRoots({ HOME: '/h' })).toEqual(['/h/.commandcode/projects']);
  });
});
