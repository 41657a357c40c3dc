/**
 * Open Code Review (`~/.opencodereview/sessions/<repo key>/<id>.jsonl`) over the fixtures in
 * fixtures/opencodereview, written from OCR's session writer (codecs/opencodereview/README.md cites it): golden
 * events, token totals checked by a deliberately simple second reader, the cache taken out of `prompt_tokens`
 * once, a killed run's usage unknown, malformed and absurd records skipped and counted, chunk invariance, resume
 * at every line boundary and random cuts, the usage-only markers, discovery and the roots. Regenerate the golden
 * files with `UPDATE_GOLDEN=1 npx vitest run test/opencodereview.test.ts` (the totals check still holds them to
 * the simple reader).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverOpenCodeReviewSync, getOpenCodeReviewRoots, openCodeReview } from '../codecs/opencodereview/index.js';
import type { MessageEvent, SessionEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/opencodereview/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/opencodereview/', import.meta.url).pathname;
const FILES = [...discoverOpenCodeReviewSync([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));
const DONE = '3f2c9a1e-7b4d-4e8a-9c51-0d6e2f8a4b17';
const KILLED = '8d1e5f3a-2c6b-4a9e-b7d0-4f1a9c3e6b25';
const newInfo = () => ({ bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 });

/**
 * The simple second reader: JSON.parse each line, take `usage` of `llm_response` records; billed input is
 * `prompt_tokens` (which holds the cache), output is `completion_tokens`.
 */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line);
    if (r.type !== 'llm_response') continue;
    sum.input += r.usage.prompt_tokens;
    sum.cached += r.usage.cache_read_tokens;
    sum.output += r.usage.completion_tokens;
    sum.responses++;
  }
  return sum;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-opencodereview-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Events of one session file given as text (`s1.jsonl` in the temp dir). */
async function eventsOf(text: string, options: Parameters<typeof readEvents>[2] = {}) {
  const path = join(tmp, 's1.jsonl');
  await writeFile(path, text);
  return readEvents(openCodeReview, path, options);
}

const line = (r: object) => JSON.stringify(r);
const start = line({ type: 'session_start', uuid: 'u0', parentUuid: null, sessionId: 's1', timestamp: '2026-03-10T08:00:00Z', cwd: '/w', gitBranch: 'main', model: 'glm-4.6' });
const response = (uuid: string, usage: object, model = 'glm-4.6') => line({ type: 'llm_response', uuid, sessionId: 's1', timestamp: '2026-03-10T08:00:05Z', filePath: 'a.go', taskType: 'main_task', model, content: 'ok', tool_calls: [], duration_ms: 10, usage });
const end = line({ type: 'session_end', uuid: 'u9', sessionId: 's1', timestamp: '2026-03-10T08:00:09Z', files_reviewed: ['a.go'], duration_seconds: 9, llm_failures: 0 });

describe('opencodereview golden files', () => {
  it('discovers the session files of every repository folder, current and pre-v2 names alike', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual([DONE, KILLED]);
    expect(FILES.every((f) => f.agent === 'opencodereview' && f.root === ROOT)).toBe(true);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id, path) => {
    const info = newInfo();
    const events = await readEvents(openCodeReview, path, { info });
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(path, 'utf8')));
    expect(info.skippedLines).toBe(0);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    expect(naiveTotals(await readFile(FILES[0]!.path, 'utf8'))).toEqual({ input: 13202, cached: 5632, output: 497, reasoning: 0, responses: 4 });
  });

  it('takes the cache reads and writes out of prompt_tokens, once per response uuid', async () => {
    const usage = byKind(await readEvents(openCodeReview, FILES[0]!.path)).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.singleRequest])).toEqual([
      [1134, 0, 4096, 88, true],
      [1294, 4096, 312, 143, true],
      [314, 1536, 0, 260, true],
      [420, 0, 0, 6, true],
    ]);
    expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(4);
    expect(usage[0]).toMatchObject({ model: 'claude-sonnet-4-5-20250929', timestamp: '2026-03-10T08:00:07.000Z', dedupKey: `opencodereview:${DONE}:a1000000-0000-4000-8000-000000000004` });
  });

  it('reads the prompts, replies, the tool call with its result and the failed request', async () => {
    const k = byKind(await readEvents(openCodeReview, FILES[0]!.path));
    const msgs = k.message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.subtype])).toEqual([
      ['user', 'main_task'],
      ['user', 'main_task'],
      ['assistant', 'main_task'],
      ['system', 'error'],
      ['user', 'main_task'],
      ['assistant', 'main_task'],
      ['assistant', 'main_task'],
      ['user', 'review_filter_task'],
      ['assistant', 'review_filter_task'],
    ]);
    expect(msgs[1]!.text).toContain('& rounds <once>');
    expect(msgs[6]!.text).toContain('🧾');
    const [call] = k.tool_call as ToolCallEvent[];
    const [result] = k.tool_result as ToolResultEvent[];
    expect(call).toMatchObject({ callId: 'toolu_01Orders', name: 'read_file', input: { path: 'src/orders.ts', start: 1, end: 60 } });
    expect(result).toMatchObject({ callId: 'toolu_01Orders', toolName: 'read_file', isError: false });
    expect(k.session[0]).toMatchObject({ cwd: '/home/dev/shop-api', gitBranch: 'feature/orders', model: 'claude-sonnet-4-5', title: 'review commit 9e1f2ab', startedAt: '2026-03-10T08:00:00.000Z' });
    expect(k.session.some((s) => (s as SessionEvent).usageUnknown)).toBe(false);
  });

  it('a resumed run killed before session_end: the session it resumed, the model of its start, usage unknown', async () => {
    const events = await readEvents(openCodeReview, FILES[1]!.path);
    const k = byKind(events);
    expect(k.session[0]).toMatchObject({ forkedFrom: DONE });
    expect((k.usage as UsageEvent[]).map((u) => [u.model, u.modelFallback, u.inputTokens, u.cacheReadTokens])).toEqual([['gpt-4.1-mini', true, 1186, 1024]]);
    expect(events.at(-1)).toMatchObject({ type: 'session', sessionId: KILLED, usageUnknown: true });
  });
});

describe('opencodereview replies: tool results, which name no call id, and reasoning', () => {
  const rec = (o: object) => line({ sessionId: 's1', timestamp: '2026-03-10T08:00:05Z', filePath: 'a.go', taskType: 'main_task', ...o });
  const read = (id: string, path: string) => ({ arguments: `{"path":"${path}"}`, id, name: 'read_file' });
  const twoReads = rec({ type: 'llm_response', uuid: 'r1', model: 'glm-4.6', content: '', tool_calls: [read('call_a', 'a.go'), read('call_b', 'b.go')], usage: { prompt_tokens: 100, completion_tokens: 5 } });
  const result = (uuid: string, path: string | undefined, extra: object = {}) => rec({ type: 'tool_call', uuid, tool_name: 'read_file', ...(path !== undefined && { arguments: `{"path":"${path}"}` }), result: `text of ${path}`, ok: true, ...extra });

  it('two calls of one tool answered in reverse order: each result goes to the call with its arguments', async () => {
    const text = `${start}\n${twoReads}\n${result('t1', 'b.go')}\n${result('t2', 'a.go')}\n${end}\n`;
    const events = await eventsOf(text);
    expect((byKind(events).tool_result as ToolResultEvent[]).map((r) => [r.callId, r.output])).toEqual([
      ['call_b', 'text of b.go'],
      ['call_a', 'text of a.go'],
    ]);
    await expectResumeEqualsFull(openCodeReview, Buffer.from(text), lineBoundaries(Buffer.from(text)), {}, 's1.jsonl');
  });

  it('a newer writer\'s reasoning is the reply\'s thinking, also when the reply has no text', async () => {
    const reasoned = rec({ type: 'llm_response', uuid: 'r2', taskType: 'grouping_task', model: 'glm-4.6', content: '', reasoning_content: 'group by file', tool_calls: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
    const messages = byKind(await eventsOf(`${start}\n${twoReads}\n${reasoned}\n${end}\n`)).message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.text, m.thinking, m.subtype])).toEqual([['assistant', '', 'group by file', 'grouping_task']]);
  });

  it('arguments that match no open call fall back to the tool name; a result with no open call gets an id of its own', async () => {
    const other = rec({ type: 'tool_call', uuid: 't3', tool_name: 'grep', arguments: '{}', result: '', ok: true });
    const text = `${start}\n${twoReads}\n${result('t1', 'c.go')}\n${result('t2', undefined)}\n${other}\n${end}\n`;
    const results = byKind(await eventsOf(text)).tool_result as ToolResultEvent[];
    const otherAt = text.indexOf(other);
    expect(results.map((r) => r.callId)).toEqual(['call_a', 'call_b', `s1:${otherAt}`]);
  });
});

describe('opencodereview token semantics and bad records', () => {
  it('a cache larger than the prompt cannot be inside it, so is taken as apart', async () => {
    const [u] = (await eventsOf(`${start}\n${response('r1', { prompt_tokens: 12, completion_tokens: 5, cache_read_tokens: 9000, cache_write_tokens: 300 })}\n${end}\n`, { kinds: ['usage'] })) as UsageEvent[];
    expect([u!.inputTokens, u!.cacheReadTokens, u!.cacheWriteTokens, u!.outputTokens]).toEqual([12, 9000, 300, 5]);
  });

  it('a response recording no tokens gives no usage, and the session says its usage is unknown', async () => {
    const events = await eventsOf(`${start}\n${response('r1', { prompt_tokens: 0, completion_tokens: 0 })}\n${end}\n`);
    expect(byKind(events).usage).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'session', usageUnknown: true });
  });

  it('a malformed line and an absurd count are skipped and counted, the rest of the file read', async () => {
    const info = newInfo();
    const absurd = response('r2', { prompt_tokens: 1e15, completion_tokens: 5 });
    const events = await eventsOf(`${start}\n{"type":"llm_resp\n${absurd}\n${response('r3', { prompt_tokens: 100, completion_tokens: 5, cache_read_tokens: 64 })}\n${end}\n`, { info });
    expect((byKind(events).usage as UsageEvent[]).map((u) => [u.messageId, u.inputTokens])).toEqual([['r3', 36]]);
    expect(info.skippedLines).toBe(2);
    expect(events.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(false);
  });

  it('a read resumed once session_end is written drops the unknown the running session gave', async () => {
    const content = Buffer.from(`${start}\n${response('r1', { prompt_tokens: 100, completion_tokens: 5 })}\n${end}\n`);
    const run = await expectResumeEqualsFull(openCodeReview, content, lineBoundaries(content), {}, 's1.jsonl');
    expect((run.kept.session as SessionEvent[]).some((s) => s.usageUnknown === true)).toBe(false);
  });
});

describe('opencodereview chunking, resume and the usage-only markers', () => {
  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: same events (all kinds, and usage only) whatever the chunks', async (_id, path) => {
    const events = await expectChunkInvariant(openCodeReview, path);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(openCodeReview, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: resuming at every line boundary and random cuts equals a full read', async (id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(openCodeReview, content, cuts, {}, `${id}.jsonl`);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });

  it('a usage-only read parses only the lines holding a marker', async () => {
    const info = newInfo();
    await readEvents(openCodeReview, FILES[0]!.path, { kinds: ['usage'], info });
    // 15 lines: only the start, the four responses and the end hold a marker, so 9 are never parsed
    expect([info.lines, info.filteredLines]).toEqual([15, 9]);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a session and usage read (a cost scan) skips the requests and tool results, same events whatever the chunks', async (_id, path) => {
    const full = byKind(await readEvents(openCodeReview, path));
    const info = newInfo();
    const lean = await readEvents(openCodeReview, path, { kinds: ['session', 'usage'], info });
    expect(info.filteredLines).toBeGreaterThan(0);
    expect(byKind(lean).session).toEqual(full.session);
    expect(byKind(lean).usage).toEqual(full.usage);
    expect(await expectChunkInvariant(openCodeReview, path, { kinds: ['session', 'usage'] })).toEqual(lean);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a session and usage read resumed at every line boundary and random cuts equals a full read', async (id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(openCodeReview, content, cuts, { kinds: ['session', 'usage'] }, `${id}.jsonl`);
    const full = byKind(await readEvents(openCodeReview, path));
    expect(run.kept.session).toEqual(full.session);
    expect(run.kept.usage).toEqual(full.usage);
  });

  it('a session and usage read still says a killed run or a response without tokens has unknown usage', async () => {
    for (const text of [`${start}\n${response('r1', { prompt_tokens: 100, completion_tokens: 5 })}\n`, `${start}\n${response('r1', {})}\n${end}\n`]) {
      const sessions = (await eventsOf(text, { kinds: ['session', 'usage'] })).filter((e): e is SessionEvent => e.type === 'session');
      expect(sessions.at(-1)?.usageUnknown).toBe(true);
    }
    const done = await eventsOf(`${start}\n${response('r1', { prompt_tokens: 100, completion_tokens: 5 })}\n${end}\n`, { kinds: ['session', 'usage'] });
    expect(done.some((e) => e.type === 'session' && e.usageUnknown === true)).toBe(false);
  });
});

describe('opencodereview roots and discovery', () => {
  it('is ~/.opencodereview/sessions; SESSIONFOLD_OPENCODEREVIEW_DIR (comma-separated) replaces it', () => {
    expect(getOpenCodeReviewRoots({ HOME: '/h' })).toEqual(['/h/.opencodereview/sessions']);
    expect(getOpenCodeReviewRoots({ HOME: '/h', SESSIONFOLD_OPENCODEREVIEW_DIR: '/a, /b' })).toEqual(['/a', '/b']);
    expect(openCodeReview.rootVariables).toEqual([]);
  });

  it('lists only <repo>/<id>.jsonl: not files at the root, deeper files, or other extensions', async () => {
    const root = join(tmp, 'roots', 'sessions');
    await mkdir(join(root, 'repo', 'deeper'), { recursive: true });
    await writeFile(join(root, 'stray.jsonl'), '');
    await writeFile(join(root, 'repo', 'abc.jsonl'), `${start}\n`);
    await writeFile(join(root, 'repo', 'abc.lock'), '');
    await writeFile(join(root, 'repo', 'deeper', 'x.jsonl'), '');
    expect([...discoverOpenCodeReviewSync([root, join(tmp, 'missing')])].map((f) => f.sessionId)).toEqual(['abc']);
  });
});
