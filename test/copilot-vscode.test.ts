/**
 * GitHub Copilot Chat in VS Code over the fixtures in fixtures/copilot-vscode (built by hand from VS Code's
 * serialization types, codecs/copilot-vscode/README.md): golden events, the mutation log applied as VS Code's
 * reader applies it, responses settled only when the save that ended them is over, tokens only where recorded,
 * chunk invariance, resume at every line boundary and random cuts, the whole `.json` document re-read when it
 * changes, malformed lines skipped and counted, and the roots per platform and variable. Regenerate the golden
 * files with `UPDATE_GOLDEN=1 npx vitest run test/copilot-vscode.test.ts`.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copilotVscode, discoverVscodeChatFiles, getVscodeChatRoots } from '../codecs/copilot-vscode/index.js';
import type { ReadCursor, ResumeStart } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';

const ROOT = new URL('../fixtures/copilot-vscode/User/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/copilot-vscode/', import.meta.url).pathname;
const FILES = [...discoverVscodeChatFiles([ROOT])];
const AGENT = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
const DOC = '0e4c2a18-7d3b-4f5e-9a6c-1b2d3e4f5a60';
const EMPTY = 'b7e5d3c1-a9f8-4e6d-8c2b-0a1f2e3d4c5b';
/** An empty window's session as an older build kept it, in `workspaceStorage/no-workspace/chatSessions`. */
const OLD_EMPTY = '5a3c9e71-2b4d-4f60-8e1a-7c9d0b2e4f36';
const LOGS = FILES.filter((f) => f.path.endsWith('.jsonl'));
const pathOf = (id: string): string => FILES.find((f) => f.sessionId === id)!.path;
const sessions = (events: readonly SessionfoldEvent[]) => events.filter((e): e is SessionEvent => e.type === 'session');

const temps: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'sf-copilot-vscode-'));
  temps.push(d);
  return d;
}
afterEach(async () => {
  for (const d of temps.splice(0)) await rm(d, { recursive: true, force: true });
});

const line = (v: unknown): string => JSON.stringify(v) + '\n';
const INITIAL = { kind: 0, v: { version: 3, creationDate: 1767225600000, sessionId: 's-1', requests: [] } };
const request = (id: string, extra: Record<string, unknown> = {}) => ({ requestId: id, timestamp: 1767225610000, message: { text: `ask ${id}` }, modelId: 'copilot/gpt-4.1', response: [], modelState: { value: 0 }, ...extra });

describe('copilot-vscode golden files', () => {
  it('discovers the workspace logs, the workspace document, the empty window’s log and an older build’s empty-window document', () => {
    expect(FILES.map((f) => f.sessionId).sort()).toEqual([DOC, AGENT, EMPTY, OLD_EMPTY].sort());
    expect(pathOf(OLD_EMPTY)).toBe(join(ROOT, 'workspaceStorage', 'no-workspace', 'chatSessions', `${OLD_EMPTY}.json`));
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events', async (id, path) => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(copilotVscode, path, { info });
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(info.skippedLines).toBe(0);
  });

  it('applies the log: prompt, the response as its last save left it, tool call and result, tokens per request', async () => {
    const k = byKind(await readEvents(copilotVscode, pathOf(AGENT)));
    const msgs = k.message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Why does the build fail?'],
      ['assistant', 'Checking the config. Strict mode flags an implicit any in `src/main.ts`.'],
      ['user', 'Fix it and run the tests.'],
      ['assistant', 'Fixed; all 12 tests pass.'],
    ]);
    expect(msgs[1]).toMatchObject({ thinking: 'Look at tsconfig first.', model: 'claude-sonnet-4.5' });
    expect(k.tool_call).toMatchObject([{ callId: 'toolu_01', name: 'copilot_readFile' }]);
    expect(k.tool_result).toMatchObject([{ callId: 'toolu_01', isError: false }]);
    const usage = k.usage as UsageEvent[];
    // request 1: result.metadata (thinking tokens of the rounds); request 2: modelTotals win over promptTokens
    expect(usage.map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens, u.dedupKey])).toEqual([
      ['claude-sonnet-4.5', 18561, 0, 143, 30, `copilot-vscode:${AGENT}:request_8a1f2c3d-0001`],
      ['gpt-5', 10000, 30000, 520, 0, `copilot-vscode:${AGENT}:request_8a1f2c3d-0002:gpt-5`],
    ]);
    expect(sessions(k.session).at(-1)).toMatchObject({ cwd: '/home/dev/app', title: 'Build failure in strict mode' });
  });

  it('a request without tokens gets none: the session says its usage is unknown, when none has tokens too', async () => {
    const doc = await readEvents(copilotVscode, pathOf(DOC));
    expect((byKind(doc).usage as UsageEvent[]).map((u) => u.inputTokens)).toEqual([2400]);
    expect(sessions(doc).at(-1)).toMatchObject({ title: 'Daily notes', cwd: '/home/dev/notes', usageUnknown: true });
    const empty = await readEvents(copilotVscode, pathOf(EMPTY));
    expect(byKind(empty).usage).toEqual([]);
    expect(sessions(empty).at(-1)).toMatchObject({ usageUnknown: true });
    expect(sessions(empty).every((s) => s.usageRecorded === undefined)).toBe(true);
    expect(sessions(empty).every((s) => s.cwd === undefined)).toBe(true);
  });
});

describe('copilot-vscode chunking and resume over every log', () => {
  it.each(LOGS.map((f) => [f.sessionId!, f.path]))('%s: same events (all kinds, and usage only) whatever the chunks', async (_id, path) => {
    const events = await expectChunkInvariant(copilotVscode, path);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(copilotVscode, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(LOGS.map((f) => [f.sessionId!, f.path]))('%s: resuming at every line boundary and random cuts equals a full read', async (id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(copilotVscode, content, cuts, {}, `${id}.jsonl`);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
    const usage = await expectResumeEqualsFull(copilotVscode, content, lineBoundaries(content), { kinds: ['usage', 'session'] }, `${id}.jsonl`);
    expect(usage.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });

  it('a read without messages does not parse the response pushes: their bytes cannot change its events', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    const push = line({ kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'streamed' }] });
    const damaged = push.slice(0, push.length - 4) + '\n';
    const end = { kind: 1, k: ['requests', 0, 'modelState'], v: { value: 1, completedAt: 1767225620000 } };
    await writeFile(file, line(INITIAL) + line({ kind: 2, k: ['requests'], v: [request('r1', { promptTokens: 30, completionTokens: 3 })] }) + damaged + line(end) + line({ kind: 1, k: ['customTitle'], v: 'T' }));
    const info = () => ({ bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 });
    const full = info();
    const all = await readEvents(copilotVscode, file, { info: full });
    expect(full.skippedLines).toBe(1);
    const some = info();
    const usage = await readEvents(copilotVscode, file, { kinds: ['usage', 'session'], info: some });
    expect(some.skippedLines).toBe(0);
    expect(usage).toEqual(all.filter((e) => e.type === 'usage' || e.type === 'session'));
    expect((byKind(usage).usage as UsageEvent[]).map((u) => u.inputTokens)).toEqual([30]);
  });
});

/** Read `file` from `cursor` on; the events, the new cursor and how the read started. */
async function readFrom(file: string, cursor: ReadCursor | undefined): Promise<{ events: SessionfoldEvent[]; cursor: ReadCursor | undefined; start: ResumeStart | undefined }> {
  let next: ReadCursor | undefined;
  let start: ResumeStart | undefined;
  const events: SessionfoldEvent[] = [];
  for await (const e of copilotVscode.read(file, { resume: { from: cursor, onStart: (s) => (start = s), onCursor: (u) => (next = u.cursor) } })) events.push(e);
  return { events, cursor: next, start };
}

describe('copilot-vscode log semantics', () => {
  it('a response still running is handed out as open events, replaced once it ends', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    await writeFile(file, line(INITIAL) + line({ kind: 2, k: ['requests'], v: [request('r1')] }) + line({ kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'Half' }] }));
    const first = await readFrom(file, undefined);
    expect((byKind(first.events).message as MessageEvent[]).map((m) => m.text)).toEqual(['ask r1', 'Half']);
    await appendFile(file, line({ kind: 1, k: ['requests', 0, 'modelState'], v: { value: 1, completedAt: 1767225620000 } }) + line({ kind: 2, k: ['requests', 0, 'response'], v: [{ value: 'Half and whole.' }], i: 0 }));
    const second = await readFrom(file, first.cursor);
    expect(second.start).toMatchObject({ restarted: false, replaced: { message: 1 } });
    expect((byKind(second.events).message as MessageEvent[]).map((m) => m.text)).toEqual(['Half and whole.']);
  });

  it('tokens recorded after the response settled are emitted again under the same dedup key', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    const done = request('r1', { modelState: { value: 1, completedAt: 1767225620000 }, response: [{ value: 'ok' }], promptTokens: 100, completionTokens: 10 });
    await writeFile(file, line(INITIAL) + line({ kind: 2, k: ['requests'], v: [done] }) + line({ kind: 1, k: ['customTitle'], v: 'T' }) + line({ kind: 1, k: ['requests', 0, 'completionTokens'], v: 25 }) + line({ kind: 1, k: ['customTitle'], v: 'T2' }));
    const usage = byKind(await readEvents(copilotVscode, file)).usage as UsageEvent[];
    expect(usage.map((u) => [u.outputTokens, u.dedupKey])).toEqual([
      [10, 'copilot-vscode:s-1:r1'],
      [25, 'copilot-vscode:s-1:r1'],
    ]);
  });

  it('a request cut from the array (`i`) after its save still counts once; pushes into other paths do not move requests', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    const a = request('a', { modelState: { value: 2 }, promptTokens: 5, completionTokens: 1 });
    const b = request('b', { modelState: { value: 3 }, result: { errorDetails: { message: 'Rate limited' } } });
    await writeFile(file, line(INITIAL) + line({ kind: 2, k: ['requests'], v: [a] }) + line({ kind: 2, k: ['requests', 0, 'editedFileEvents'], v: [{ eventKind: 1 }] }) + line({ kind: 2, k: ['requests'], v: [b], i: 0 }));
    const k = byKind(await readEvents(copilotVscode, file));
    expect((k.message as MessageEvent[]).map((m) => [m.role, m.text, m.subtype])).toEqual([
      ['user', 'ask a', undefined],
      ['user', 'ask b', undefined],
      ['assistant', 'Rate limited', 'error'],
    ]);
    expect((k.usage as UsageEvent[]).map((u) => u.dedupKey)).toEqual(['copilot-vscode:s-1:a']);
    expect(sessions(k.session).at(-1)).toMatchObject({ usageUnknown: true });
  });

  it('a malformed line is skipped and counted, the lines after it are read', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    const done = request('r1', { modelState: { value: 1 }, response: [{ value: 'ok' }], promptTokens: 7, completionTokens: 3 });
    await writeFile(file, line(INITIAL) + '{"kind":1,"k":["custom\n' + '[1,2]\n' + line({ kind: 2, k: ['requests'], v: [done] }));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const k = byKind(await readEvents(copilotVscode, file, { info }));
    expect(info.skippedLines).toBe(2);
    expect((k.usage as UsageEvent[]).map((u) => u.inputTokens)).toEqual([7]);
    await expect(readEvents(copilotVscode, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });

  it('the cursor keeps what the events need: not the input box, attachments, request context, nor an emitted prompt', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    const big = 'x'.repeat(50_000);
    const done = request('r1', { message: { text: big }, modelState: { value: 1, completedAt: 1767225620000 }, response: [{ value: 'ok' }], promptTokens: 100, completionTokens: 10 });
    const noise = [
      { kind: 1, k: ['inputState', 'attachments'], v: [{ id: 'img', value: big }] },
      { kind: 1, k: ['inputState'], v: { inputText: big } },
      { kind: 2, k: ['pendingRequests'], v: [{ id: 'p', request: { message: { text: big } } }] },
      { kind: 1, k: ['requests', 0, 'usedContext'], v: { documents: [big] } },
      { kind: 2, k: ['requests', 0, 'variableData', 'variables'], v: [{ value: big }] },
    ];
    await writeFile(file, line(INITIAL) + line({ kind: 2, k: ['requests'], v: [done] }) + noise.map(line).join('') + line({ kind: 1, k: ['customTitle'], v: 'T' }));
    const { events, cursor } = await readFrom(file, undefined);
    const k = byKind(events);
    expect((k.message as MessageEvent[]).map((m) => [m.role, m.text.length])).toEqual([['user', 50_000], ['assistant', 2]]);
    expect((k.usage as UsageEvent[]).map((u) => u.inputTokens)).toEqual([100]);
    expect(JSON.stringify(cursor).length).toBeLessThan(2_000);
  });

  it('entries before the first whole-session line, and paths that are no path, change nothing', async () => {
    const file = join(await tempDir(), 's-1.jsonl');
    await writeFile(file, line({ kind: 1, k: ['customTitle'], v: 'early' }) + line(INITIAL) + line({ kind: 1, k: 'requests', v: 1 }) + line({ kind: 1, k: ['requests', 1e9, 'x'], v: 1 }) + line({ kind: 9, k: ['x'] }));
    const events = await readEvents(copilotVscode, file);
    expect(events.map((e) => e.type)).toEqual(['session']);
    expect(sessions(events)[0]!.title).toBeUndefined();
  });
});

describe('copilot-vscode whole-document sessions', () => {
  it('an unchanged document is not read again; a changed one is read again whole', async () => {
    const dir = await tempDir();
    const file = join(dir, `${DOC}.json`);
    await writeFile(file, await readFile(pathOf(DOC)));
    const first = await readFrom(file, undefined);
    expect(byKind(first.events).usage).toHaveLength(1);
    const same = await readFrom(file, first.cursor);
    expect(same.events).toEqual([]);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.requests[1].result.metadata = { promptTokens: 900, outputTokens: 40 };
    await writeFile(file, JSON.stringify(doc));
    const again = await readFrom(file, first.cursor);
    expect(again.start?.restarted).toBe(true);
    expect((byKind(again.events).usage as UsageEvent[]).map((u) => u.inputTokens)).toEqual([2400, 900]);
    expect(sessions(again.events).at(-1)!.usageUnknown).toBeUndefined();
  });

  it('a document that does not parse is one skipped record', async () => {
    const file = join(await tempDir(), 'x.json');
    await writeFile(file, '{"requests":[{"requestId":"a"');
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    await readEvents(copilotVscode, file, { info });
    expect(info.skippedLines).toBe(1);
  });
});

describe('copilot-vscode roots and discovery', () => {
  const HOME = '/home/u';
  it('is each VS Code build’s user folder under the platform’s app data, then the VS Code servers', () => {
    const linux = getVscodeChatRoots({ HOME }, 'linux');
    expect(linux.slice(0, 3)).toEqual(['/home/u/.config/Code/User', '/home/u/.config/Code - Insiders/User', '/home/u/.config/Code - Exploration/User']);
    expect(linux).toContain('/home/u/.config/VSCodium/User');
    expect(linux.slice(-2)).toEqual(['/home/u/.vscode-server/data/User', '/home/u/.vscode-server-insiders/data/User']);
    expect(getVscodeChatRoots({ HOME, XDG_CONFIG_HOME: '/x' }, 'linux')[0]).toBe('/x/Code/User');
    expect(getVscodeChatRoots({ HOME }, 'darwin')[0]).toBe('/home/u/Library/Application Support/Code/User');
    expect(getVscodeChatRoots({ HOME, APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')[0]).toBe(join('C:\\Users\\u\\AppData\\Roaming', 'Code', 'User'));
    expect(getVscodeChatRoots({ HOME }, 'linux').some((r) => r.includes('Cursor'))).toBe(false);
  });

  it('SESSIONFOLD_VSCODE_USER_DIR replaces the defaults (a comma-separated list)', () => {
    expect(getVscodeChatRoots({ HOME, SESSIONFOLD_VSCODE_USER_DIR: '/a/User, /b/chatSessions' }, 'linux')).toEqual(['/a/User', '/b/chatSessions']);
    expect(copilotVscode.defaultRoots({ HOME, SESSIONFOLD_VSCODE_USER_DIR: '/a' })).toEqual(['/a']);
  });

  it('a root may be a session folder itself; a log wins over a document of the same id', async () => {
    const dir = join(await tempDir(), 'chatSessions');
    await mkdir(dir, { recursive: true });
    for (const name of ['a.json', 'a.jsonl', 'b.json', 'notes.txt']) await writeFile(join(dir, name), '{}');
    expect([...discoverVscodeChatFiles([dir])].map((f) => [f.sessionId, f.path.slice(dir.length + 1)]).sort()).toEqual([
      ['a', 'a.jsonl'],
      ['b', 'b.json'],
    ]);
  });

  it('a workspace session depends on its workspace.json; an empty window’s on nothing, in either of its folders', async () => {
    expect(copilotVscode.getParseDependencies(pathOf(AGENT))).toEqual([join(ROOT, 'workspaceStorage', '3c9e1f0a6b2d4e8f9a1b2c3d4e5f6a7b', 'workspace.json')]);
    expect(copilotVscode.getParseDependencies(pathOf(EMPTY))).toEqual([]);
    expect(copilotVscode.getParseDependencies(pathOf(OLD_EMPTY))).toEqual([]);
    expect(sessions(await readEvents(copilotVscode, pathOf(OLD_EMPTY))).every((s) => s.cwd === undefined)).toBe(true);
  });

  it('an older build’s empty-window folder is read, but not for an id the current one holds (VS Code reads it only then)', async () => {
    const user = join(await tempDir(), 'User');
    const previous = join(user, 'workspaceStorage', 'no-workspace', 'chatSessions');
    const current = join(user, 'globalStorage', 'emptyWindowChatSessions');
    const workspace = join(user, 'workspaceStorage', 'abc', 'chatSessions');
    for (const d of [previous, current, workspace]) await mkdir(d, { recursive: true });
    for (const [dir, name] of [[previous, 'moved.json'], [previous, 'old.json'], [current, 'moved.jsonl'], [current, 'new.json'], [workspace, 'old.json']] as const) await writeFile(join(dir, name), '{}');
    const found = (roots: string[]) => [...discoverVscodeChatFiles(roots)].map((f) => f.path.slice(user.length + 1)).sort();
    expect(found([user])).toEqual([
      'globalStorage/emptyWindowChatSessions/moved.jsonl',
      'globalStorage/emptyWindowChatSessions/new.json',
      'workspaceStorage/abc/chatSessions/old.json', // a workspace's session of the same id is another session
      'workspaceStorage/no-workspace/chatSessions/old.json',
    ]);
    // Named on their own, each folder is read whole: no user folder pairs them.
    expect(found([previous])).toEqual(['workspaceStorage/no-workspace/chatSessions/moved.json', 'workspaceStorage/no-workspace/chatSessions/old.json']);
    expect(copilotVscode.getParseDependencies(join(workspace, 'old.json'))).toEqual([join(user, 'workspaceStorage', 'abc', 'workspace.json')]);
  });

  it('detects a log by its first entry and a document by its keys', async () => {
    const head = async (id: string) => (await readFile(pathOf(id))).subarray(0, 4096);
    expect(copilotVscode.detect!(pathOf(AGENT), await head(AGENT))).toBe(2);
    expect(copilotVscode.detect!(pathOf(DOC), await head(DOC))).toBe(1);
    expect(copilotVscode.detect!('x.jsonl', Buffer.from('{"type":"session.start","data":{}}\n'))).toBe(0);
  });
});
