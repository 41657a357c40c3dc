/**
 * The Gemini CLI codec on inline chats: copies of a message under one id (the last write wins), rewinds,
 * checkpoints, titles, the token mapping, bad input, the fingerprint cursor of whole-file JSON, and the
 * layout (roots, discovery, cwd from the marker and the registry) in a temporary tree that is never written.
 */
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiCore, findRewinds, gemini, geminiCore } from '../codecs/gemini/index.js';
import { parseSync } from '../cursors/sync.js';
import { nativeKernel } from '../cursors/native.js';
import { nativeLineReads } from '../cursors/native-lines.js';
import { newReadInfo, type FingerprintCursor, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { generateGeminiChat } from '../fixtures/generate/gemini.js';
import { Rng } from '../fixtures/generate/prng.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';

const T = (s: number) => `2026-05-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const tok = (input: number, output: number, cached: number, thoughts: number, tool: number) => ({ input, output, cached, thoughts, tool, total: input + output + thoughts + tool });
const line = (o: unknown) => JSON.stringify(o);

/** A chat with every kind of line: copies, a rewind into the open turn, a title and a checkpoint. */
const CHAT = [
  { sessionId: 's-1', projectHash: 'h', startTime: T(0), lastUpdated: T(0), kind: 'main' },
  { id: 'u1', timestamp: T(1), type: 'user', content: [{ text: 'first' }] },
  { $set: { lastUpdated: T(1) } },
  { id: 'g1', timestamp: T(2), type: 'gemini', content: '', thoughts: [{ subject: 'Plan', description: 'read it' }], tokens: null, model: 'gemini-2.5-pro', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' }, status: 'executing' }] },
  { id: 'g1', timestamp: T(2), type: 'gemini', content: '', thoughts: [{ subject: 'Plan', description: 'read it' }], tokens: tok(100, 10, 40, 5, 3), model: 'gemini-2.5-pro', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' }, status: 'success', result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'A' } } }] }] },
  { id: 'g2', timestamp: T(3), type: 'gemini', content: 'answer one', tokens: tok(200, 20, 150, 0, 0), model: 'gemini-2.5-pro' },
  { id: 'u2', timestamp: T(4), type: 'user', content: 'second' },
  { id: 'g3', timestamp: T(5), type: 'gemini', content: 'wrong answer', tokens: tok(300, 30, 0, 0, 0), model: 'gemini-2.5-pro' },
  { $rewindTo: 'u2' },
  { id: 'u3', timestamp: T(6), type: 'user', content: 'second, again' },
  { id: 'g4', timestamp: T(7), type: 'gemini', content: 'right answer', tokens: tok(400, 40, 100, 8, 0), model: 'gemini-3-flash-preview' },
  { $set: { summary: 'A title' } },
  {
    $set: {
      messages: [
        { id: 'u1', timestamp: T(1), type: 'user', content: 'first (masked)' },
        { id: 'u3', timestamp: T(6), type: 'user', content: 'second, again' },
        { id: 'x1', timestamp: T(8), type: 'user', content: 'a synthetic turn' },
        { id: 'g4', timestamp: T(7), type: 'gemini', content: 'right answer (masked)', tokens: tok(400, 40, 100, 8, 0), model: 'gemini-3-flash-preview' },
      ],
    },
  },
]
  .map(line)
  .join('\n') + '\n';

let dir: string;
let chatFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-gemini-'));
  chatFile = join(dir, 'session-2026-05-01T10-00-s-1.jsonl');
  await writeFile(chatFile, CHAT);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A read through the native line source (when the kernel is built) or the JavaScript splitter. */
async function readVia(file: string, native: boolean, kinds: readonly ('usage' | 'session')[] | undefined): Promise<unknown> {
  const was = process.env.SESSIONFOLD_NATIVE_LINES;
  process.env.SESSIONFOLD_NATIVE_LINES = native ? '1' : '0';
  try {
    const info = newReadInfo();
    let cursor: ReadCursor | undefined;
    // verifyPrefix false: no running sha256, so the native source may take the read
    const events = await readEvents(gemini, file, { ...(kinds !== undefined && { kinds: [...kinds] }), info, resume: { verifyPrefix: false, onCursor: (u) => (cursor = u.cursor) } });
    return { events, info, cursor };
  } finally {
    if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_LINES;
    else process.env.SESSIONFOLD_NATIVE_LINES = was;
  }
}

function usages(events: readonly SessionfoldEvent[]): UsageEvent[] {
  return events.filter((e): e is UsageEvent => e.type === 'usage');
}

describe('gemini JSONL chat', () => {
  it('keeps the last copy of a message, drops what a rewind drops, and applies a checkpoint to the open turn', async () => {
    const events = await readEvents(gemini, chatFile);
    const messages = byKind(events).message as MessageEvent[];
    expect(messages.map((m) => [m.nativeId, m.role, m.text])).toEqual([
      ['u1', 'user', 'first'],
      ['g1', 'assistant', ''],
      ['g2', 'assistant', 'answer one'],
      ['u3', 'user', 'second, again'],
      ['x1', 'user', 'a synthetic turn'],
      ['g4', 'assistant', 'right answer (masked)'],
    ]);
    expect(messages[1]?.thinking).toBe('Plan: read it');
    const calls = byKind(events).tool_call;
    const results = byKind(events).tool_result;
    expect(calls).toHaveLength(1);
    expect(results).toEqual([expect.objectContaining({ callId: 'c1', toolName: 'read_file', output: { output: 'A' }, isError: false })]);
  });

  it('counts each response once, a rewound one included, with input net of cache and output with thoughts', async () => {
    const u = usages(await readEvents(gemini, chatFile));
    expect(u.map((e) => e.messageId)).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(u[0]).toMatchObject({ model: 'gemini-2.5-pro', provider: 'google', inputTokens: 63, cacheReadTokens: 40, outputTokens: 15, reasoningTokens: 5, cacheWriteTokens: 0, singleRequest: true, dedupKey: 'gemini:s-1:g1' });
    expect(u[3]).toMatchObject({ model: 'gemini-3-flash-preview', inputTokens: 300, cacheReadTokens: 100, outputTokens: 48, reasoningTokens: 8 });
    expect(new Set(u.map((e) => e.dedupKey)).size).toBe(4);
  });

  it('emits the session first and again with the title', async () => {
    const sessions = byKind(await readEvents(gemini, chatFile)).session as SessionEvent[];
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ nativeId: 's-1', startedAt: T(0), offset: 0 });
    expect(sessions[0]?.title).toBeUndefined();
    expect(sessions[1]).toMatchObject({ nativeId: 's-1', startedAt: T(0), title: 'A title' });
  });

  it('is chunk invariant, and a usage-only read filters lines and gives the same usage', async () => {
    const all = await expectChunkInvariant(gemini, chatFile);
    const info = newReadInfo();
    const fast = await readEvents(gemini, chatFile, { kinds: ['usage'], info });
    expect(fast).toEqual(byKind(all).usage);
    expect(info.filteredLines).toBeGreaterThan(0);
    expect(await expectChunkInvariant(gemini, chatFile, { kinds: ['session', 'usage'], titles: false })).toEqual(all.filter((e) => e.type === 'usage' || (e.type === 'session' && e.offset === 0)));
  });

  it('resumes at every line boundary and at random cuts as one full read, and replaces the open turn', async () => {
    const content = Buffer.from(CHAT);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 60, 7)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(gemini, content, cuts);
    expect(run.starts.every((s) => !s.restarted || s.reason === 'no-cursor')).toBe(true);
    expect(run.starts.some((s) => (s.replaced.message ?? 0) > 1)).toBe(true);
    await expectResumeEqualsFull(gemini, content, cuts, { kinds: ['usage'] });
  });

  it('a rewind turns back as far as its target, in a full read, in chunks and resumed (restarting where it must)', async () => {
    const deep = [
      { sessionId: 's-deep', projectHash: 'h', startTime: T(0) },
      { id: 'u1', timestamp: T(1), type: 'user', content: 'one' },
      { id: 'g1', timestamp: T(2), type: 'gemini', content: 'answer one', model: 'gemini-2.5-pro', tokens: tok(10, 1, 0, 0, 0) },
      { id: 'u2', timestamp: T(3), type: 'user', content: 'two' },
      { id: 'g2', timestamp: T(4), type: 'gemini', content: 'answer two', model: 'gemini-2.5-pro', tokens: tok(20, 2, 0, 0, 0) },
      { id: 'u3', timestamp: T(5), type: 'user', content: 'three' },
      { id: 'g3', timestamp: T(6), type: 'gemini', content: 'answer three', model: 'gemini-2.5-pro', tokens: tok(30, 3, 0, 0, 0) },
      { $rewindTo: 'u2' },
      { id: 'u4', timestamp: T(7), type: 'user', content: 'two, again' },
      { id: 'g4', timestamp: T(8), type: 'gemini', content: 'answer four', model: 'gemini-2.5-pro', tokens: tok(40, 4, 0, 0, 0) },
      { id: 'u5', timestamp: T(9), type: 'user', content: 'five' },
      { $rewindTo: 'g4' },
    ]
      .map(line)
      .join('\n') + '\n';
    const file = join(dir, 'deep.jsonl');
    await writeFile(file, deep);
    const events = await readEvents(gemini, file);
    expect((byKind(events).message as MessageEvent[]).map((m) => m.text)).toEqual(['one', 'answer one', 'two, again']);
    expect(usages(events).map((u) => u.messageId)).toEqual(['g1', 'g2', 'g3', 'g4']);
    const rewinds = new Map<string, number>();
    findRewinds(file, 0, rewinds);
    expect([...rewinds.keys()]).toEqual(['u2', 'g4']);
    for (const chunkSize of [1, 3, 7, 64]) expect(parseSync(createGeminiCore({ rewinds }), deep, { chunkSize, file })).toEqual(events);
    expect(parseSync(gemini.lineCoreFor?.(file) ?? geminiCore, deep, { file })).toEqual(events);
    // Without the lookahead (a stream), a rewind takes back only the open turn.
    expect((byKind(parseSync(geminiCore, deep, { file })).message as MessageEvent[]).map((m) => m.text)).toEqual(['one', 'answer one', 'two', 'answer two', 'two, again', 'answer four']);
    const content = Buffer.from(deep);
    const run = await expectResumeEqualsFull(gemini, content, [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 30, 11)])].sort((a, b) => a - b));
    expect(run.starts.some((s) => s.restarted && s.reason === 'id-collision')).toBe(true);
  });

  it('skips and counts a malformed line, and never lets a bad count reach a total', async () => {
    const file = join(dir, 'bad.jsonl');
    const lines = [
      line({ sessionId: 's-bad', projectHash: 'h', startTime: T(0) }),
      '{"id":"g1","type":"gemini",',
      '[1,2]',
      line({ id: 'g2', timestamp: T(1), type: 'gemini', content: 'x', model: 'gemini-2.5-pro', tokens: { input: -5, output: 1.5, cached: 1e300, thoughts: 'many', tool: Number.MAX_SAFE_INTEGER } }),
      line({ id: 'g3', timestamp: T(2), type: 'gemini', content: 'y', tokens: { input: 10, output: 2, cached: 50 } }),
    ];
    await writeFile(file, lines.join('\n') + '\n');
    const info = newReadInfo();
    const u = usages(await readEvents(gemini, file, { info }));
    expect(info.skippedLines).toBe(2);
    expect(u.map((e) => [e.inputTokens, e.outputTokens, e.cacheReadTokens, e.reasoningTokens])).toEqual([
      [0, 0, 0, 0],
      [0, 2, 10, 0],
    ]);
    // g3 names no model: the last response's model stands in, marked as a fallback.
    expect(u[1]).toMatchObject({ model: 'gemini-2.5-pro', modelFallback: true });
    await expect(readEvents(gemini, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('gemini usage-only reads', () => {
  it('give the full read\'s usage when the exact scanner refuses a line (tab, escaped id, nesting) and when it answers', async () => {
    const file = join(dir, 'scanner.jsonl');
    const lines = [
      line({ sessionId: 's-scan', projectHash: 'h', startTime: T(0) }),
      line({ id: 'plain', timestamp: T(1), type: 'gemini', content: 'a', model: 'gemini-2.5-pro', tokens: tok(10, 1, 2, 0, 0) }),
      '{"id":"tab",\t"timestamp":"' + T(2) + '","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":20,"output":2,"cached":0}}',
      '{"id":"\\u00e9t\\u00e9","timestamp":"' + T(3) + '","type":"gemini","tokens":{"input":30,"output":3,"cached":5,"thoughts":1}}',
      line({ id: 'deep', timestamp: T(4), type: 'gemini', content: [[[[{ text: 'x' }]]]], model: 'gemini-3-flash-preview', tokens: tok(40, 4, 0, 0, 7) }),
      line({ $rewindTo: 'tab', id: 'odd', tokens: tok(1, 1, 0, 0, 0) }),
    ];
    await writeFile(file, lines.join('\n') + '\n');
    const full = usages(await readEvents(gemini, file));
    expect(full.map((u) => u.messageId)).toEqual(['plain', 'tab', 'été', 'deep']);
    expect(await readEvents(gemini, file, { kinds: ['usage'] })).toEqual(full);
  });

  it('read a generated chat (copies, large tool outputs, rewinds) to the totals it wrote, resumed or not, natively or not', async () => {
    const chat = generateGeminiChat(join(dir, 'generated', 'session-2026-05-01T09-00-gen00000.jsonl'), 2_000_000, new Rng('gemini-test'));
    expect((await readFile(chat.path, 'utf8')).includes('"$rewindTo"'), 'the chat holds a rewind').toBe(true);
    const totals = (events: readonly SessionfoldEvent[]) => {
      const u = usages(events);
      return {
        responses: u.length,
        input: u.reduce((a, e) => a + e.inputTokens + e.cacheReadTokens, 0),
        cached: u.reduce((a, e) => a + e.cacheReadTokens, 0),
        output: u.reduce((a, e) => a + e.outputTokens, 0),
        reasoning: u.reduce((a, e) => a + e.reasoningTokens, 0),
      };
    };
    const full = await readEvents(gemini, chat.path);
    expect(totals(full)).toEqual(chat.totals);
    expect(chat.totals.responses).toBeGreaterThan(20);
    expect(await readEvents(gemini, chat.path, { kinds: ['usage'] })).toEqual(byKind(full).usage);
    const content = await readFile(chat.path);
    await expectResumeEqualsFull(gemini, content, randomCuts(content.length, 25, 3));
    if (nativeKernel() !== undefined) {
      const before = nativeLineReads.count;
      for (const file of [chat.path, chatFile]) for (const kinds of [['usage'], ['session', 'usage'], undefined] as const) expect(await readVia(file, true, kinds)).toEqual(await readVia(file, false, kinds));
      expect(nativeLineReads.count - before).toBe(6);
    }
  });
});

describe('gemini whole-file JSON', () => {
  const doc = (content: string) =>
    JSON.stringify({ sessionId: 's-json', projectHash: 'h', startTime: T(0), lastUpdated: T(3), messages: [{ id: 'u1', timestamp: T(1), type: 'user', content }, { id: 'g1', timestamp: T(2), type: 'gemini', content: 'ok', model: 'gemini-2.5-pro', tokens: tok(50, 5, 0, 1, 0) }] }, null, 2);

  async function readWithCursor(file: string, from?: ReadCursor): Promise<{ events: SessionfoldEvent[]; start: ResumeStart; cursor: ReadCursor }> {
    let start: ResumeStart | undefined;
    let cursor: ReadCursor | undefined;
    const events: SessionfoldEvent[] = [];
    for await (const e of gemini.read(file, { resume: { from, onStart: (s) => (start = s), onCursor: (u) => (cursor = u.cursor) } })) events.push(e);
    return { events, start: start as ResumeStart, cursor: cursor as ReadCursor };
  }

  it('leaves a fingerprint cursor: unchanged or touched, nothing is parsed again; changed, it restarts', async () => {
    const file = join(dir, 'session-2026-05-01T10-00-s-json.json');
    await writeFile(file, doc('hello'));
    const first = await readWithCursor(file);
    expect(first.start).toEqual({ restarted: true, reason: 'no-cursor', replaced: {} });
    const c = first.cursor as FingerprintCursor;
    expect(c).toMatchObject({ format: 'json', version: 1, size: (await stat(file)).size, hash: createHash('sha256').update(doc('hello')).digest('hex') });
    expect(usages(first.events)).toHaveLength(1);

    const again = await readWithCursor(file, JSON.parse(JSON.stringify(c)) as ReadCursor);
    expect(again.start).toEqual({ restarted: false, replaced: {} });
    expect(again.events).toEqual([]);

    await utimes(file, new Date('2030-01-01'), new Date('2030-01-01'));
    const touched = await readWithCursor(file, c);
    expect(touched.start.restarted).toBe(false);
    expect(touched.events).toEqual([]);

    await writeFile(file, doc('hellO'));
    const changed = await readWithCursor(file, touched.cursor);
    expect(changed.start).toEqual({ restarted: true, reason: 'prefix-changed', replaced: {} });
    expect((byKind(changed.events).message[0] as MessageEvent).text).toBe('hellO');
    const shrunk = doc('h');
    await writeFile(file, shrunk);
    expect((await readWithCursor(file, changed.cursor)).start.reason).toBe('file-shrunk');
    const jsonl = await readWithCursor(file, { format: 'jsonl', version: 1, parser: 'x', offset: 0, prefixHash: '' });
    expect(jsonl.start.reason).toBe('parser-changed');
  });

  it('reads keys that follow the messages (a late title too), and counts a broken document as one skipped record', async () => {
    const file = join(dir, 'late-keys.json');
    await writeFile(file, JSON.stringify({ messages: [{ id: 'g1', type: 'gemini', content: 'x', model: 'gemini-2.5-pro', tokens: tok(5, 1, 0, 0, 0) }], sessionId: 's-late', startTime: T(0) }));
    const events = await readEvents(gemini, file);
    expect(events[0]).toMatchObject({ type: 'session', nativeId: 's-late', startedAt: T(0) });
    expect(usages(events)[0]?.dedupKey).toBe('gemini:s-late:g1');
    const titled = join(dir, 'titled.json');
    await writeFile(titled, JSON.stringify({ sessionId: 's-t', projectHash: 'h', startTime: T(0), messages: [{ id: 'u1', type: 'user', content: 'hi' }], summary: 'Late title' }));
    const sessions = byKind(await expectChunkInvariant({ ...gemini, lineCore: undefined }, titled)).session as SessionEvent[];
    expect(sessions.map((e) => e.title)).toEqual([undefined, 'Late title']);
    expect(await expectChunkInvariant({ ...gemini, lineCore: undefined }, file)).toEqual(events);
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"sessionId":"s-b","messages":[{"id":"u1","type":"user","content":"a"},');
    const info = newReadInfo();
    await readEvents(gemini, broken, { info });
    expect(info.skippedLines).toBe(1);
    await expect(readEvents(gemini, broken, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('gemini layout', () => {
  let home: string;
  let tree: string[];
  const project = '/work/some/project';
  const oldProject = '/work/old-project';
  const hashDir = createHash('sha256').update(oldProject).digest('hex');

  beforeAll(async () => {
    home = join(dir, 'home');
    const tmp = join(home, '.gemini', 'tmp');
    await mkdir(join(tmp, 'project', 'chats', 'parent-1'), { recursive: true });
    await mkdir(join(tmp, hashDir, 'chats'), { recursive: true });
    await writeFile(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [project]: 'project', [oldProject]: 'old-project' } }));
    await writeFile(join(tmp, 'project', '.project_root'), project);
    await writeFile(join(tmp, 'project', 'chats', 'session-2026-05-01T10-00-s-1.jsonl'), CHAT);
    await writeFile(join(tmp, 'project', 'chats', 'parent-1', 'sub-1.jsonl'), line({ sessionId: 'sub-1', projectHash: 'h', startTime: T(0), kind: 'subagent' }) + '\n');
    await writeFile(join(tmp, hashDir, 'chats', 'session-2025-01-01T00-00-old12345.json'), JSON.stringify({ sessionId: 'old12345-aaaa', projectHash: hashDir, startTime: T(0), messages: [] }));
    await writeFile(join(tmp, hashDir, 'chats', 'session-2025-01-02T00-00-mig12345.json'), JSON.stringify({ sessionId: 'mig12345-aaaa', projectHash: hashDir, messages: [] }));
    await writeFile(join(tmp, hashDir, 'chats', 'session-2025-01-02T00-00-mig12345.jsonl'), line({ sessionId: 'mig12345-aaaa', projectHash: hashDir, startTime: T(0) }) + '\n');
    tree = await treeListing(home);
  });

  it('takes its roots from GEMINI_CLI_HOME, else the home directory', () => {
    expect(gemini.defaultRoots({ GEMINI_CLI_HOME: '/a, /b' })).toEqual(['/a/.gemini/tmp', '/b/.gemini/tmp']);
    expect(gemini.defaultRoots({ HOME: '/h' })).toEqual(['/h/.gemini/tmp']);
  });

  it('discovers sessions, subagents and unmigrated JSON, with the cwd from the marker or the registry', async () => {
    const root = gemini.defaultRoots({ GEMINI_CLI_HOME: home })[0] as string;
    const files = [];
    for await (const f of gemini.discover([root, join(dir, 'missing')])) files.push(f);
    expect(files.map((f) => [f.path.slice(root.length + 1), f.subagent === true])).toEqual([
      [`${hashDir}/chats/session-2025-01-01T00-00-old12345.json`, false],
      [`${hashDir}/chats/session-2025-01-02T00-00-mig12345.jsonl`, false],
      ['project/chats/parent-1/sub-1.jsonl', true],
      ['project/chats/session-2026-05-01T10-00-s-1.jsonl', false],
    ]);
    const first = async (path: string) => (await readEvents(gemini, path, { kinds: ['session'] }))[0] as SessionEvent;
    expect(await first(files[0]!.path)).toMatchObject({ nativeId: 'old12345-aaaa', cwd: oldProject });
    expect(await first(files[2]!.path)).toMatchObject({ nativeId: 'sub-1', cwd: project, subagent: true, forkedFrom: 'parent-1', spawnDepth: 1 });
    expect(await first(files[3]!.path)).toMatchObject({ nativeId: 's-1', cwd: project });
    expect(gemini.getParseDependencies(files[3]!.path)).toEqual([join(root, 'project', '.project_root'), join(home, '.gemini', 'projects.json')]);
    expect(await gemini.locate?.([root], 's-1')).toMatchObject({ path: files[3]!.path });
    expect(await gemini.locate?.([root], 'old12345-aaaa')).toMatchObject({ path: files[0]!.path });
    expect(await gemini.locate?.([root], 'sub-1')).toMatchObject({ subagent: true });
    expect(await gemini.locate?.([root], 'nope-0000')).toBeUndefined();
    expect(await treeListing(home)).toEqual(tree);
  });
});
