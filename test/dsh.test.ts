/**
 * DeepSeek Harness (`~/.dsh/sessions/<project>/<session>/session[.vN].jsonl[.zstd]`) over fixtures/dsh, written
 * by hand from dsh's own types (codecs/dsh/README.md, "Fixtures"): golden events, token totals checked by a
 * deliberately simple second reader (dsh's token meter written out plainly over the decompressed lines), the
 * retry and fork rules, usage dsh does not record, generations, bad lines skipped and counted, chunk
 * invariance and resume of the plain logs, discovery, roots and the agent's variables. The compressed path's
 * own checks are in test/dsh-zstd.test.ts. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/dsh.test.ts`.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decompress } from 'fzstd';
import { decodeSessionDir, detectDsh, dsh, dshHome, generationOf, getDshRoots } from '../codecs/dsh/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { inTempDir as inTempDirOf } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';
import { jsonLines } from './helpers/json-lines.js';
import { CHERRY, CHERRY_ROOT, DSH_EXPECTED as EXPECTED_DIR, DSH_FIXTURES as FIXTURES, FORK, HOME_ROOT, LOGS, MAIN, N0, N3, NOTES, SDK_ROOT, SHOP, SUB } from './helpers/dsh-fixtures.js';

/** A log's lines: decompressed when it is zstd frames (fzstd decodes concatenated frames whole). */
async function logText(file: string): Promise<string> {
  const bytes = await readFile(file);
  return file.endsWith('.zstd') ? Buffer.from(decompress(bytes)).toString('utf8') : bytes.toString('utf8');
}

/**
 * The simple second reader: dsh's token meter written out plainly. Each assistant settlement's usage (a
 * message's `usage`, else its stream's last usage chunk; an attempt's stream; a generation-0 usage chunk) is
 * added, taking back the previous sample of the same turn and step unless a retry of that step started between
 * them; a compaction summary's usage is added as it is.
 */
function naiveTotals(text: string): UsageTotals {
  const t = emptyTotals();
  const add = (u: any, sign: number) => {
    t.input += sign * ((u.inputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0));
    t.cached += sign * (u.cacheReadTokens ?? 0);
    t.output += sign * u.outputTokens;
    t.reasoning += sign * (u.reasoningTokens ?? 0);
    t.responses += sign;
  };
  let last: { turn: number; step: number; u: any } | undefined;
  for (const e of jsonLines(text)) {
    const d = e?.data ?? {};
    if (e?.type === 'llm/retry-started' && last?.turn === d.turn && last?.step === d.step) last = undefined;
    const fromStream = (s: any[] = []) => [...s].reverse().find((r) => r.type === 'chunk' && r.chunk.type === 'usage')?.chunk.usage;
    let u: any;
    if (e?.type === 'assistant/message') u = d.usage ?? fromStream(d.stream);
    else if (e?.type === 'assistant/attempt') u = fromStream(d.stream);
    else if (e?.type === 'assistant/chunk' && d.chunk?.type === 'usage') u = d.chunk.usage;
    else if (e?.type === 'compaction/summary' && d.usage) add(d.usage, 1);
    if (u === undefined) continue;
    if (last !== undefined && last.turn === d.turn && last.step === d.step) add(last.u, -1);
    add(u, 1);
    last = { turn: d.turn, step: d.step, u };
  }
  return t;
}

const inTempDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => inTempDirOf('sf-dsh-', fn);

/** A plain log holding `lines` in a session folder of a project folder of `root`. */
async function plainLog(root: string, lines: readonly unknown[], id = 'session-test', name = 'session.v3.jsonl'): Promise<string> {
  const dir = join(root, '--home-dev-x--', id);
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

const v3Header = (id: string, extra: Record<string, unknown> = {}) => ({ type: 'session', version: 3, id, createdAt: 1787000000000, cwd: '/home/dev/x', isSeeded: false, delegationDepth: 0, ...extra });
const message = (seq: number, time: number, id: string, turn: number, usage: Record<string, number>) => ({
  type: 'assistant/message',
  data: { turn, step: 1, message: { id, role: 'assistant', content: [{ type: 'text', text: id }], source: { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' } }, stream: [], usage },
  surfaceOp: 'append',
  seq,
  time,
});

const usageOf = (events: readonly SessionfoldEvent[]) => byKind(events).usage as UsageEvent[];

describe('dsh golden files', () => {
  it.each(Object.keys(LOGS))('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (name) => {
    const file = LOGS[name] as string;
    const events = await readEvents(dsh, file);
    await expectGolden(EXPECTED_DIR, name, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: name.replace(/\.v\d$/, '') });
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await logText(file)));
  });

  it('books each call as dsh records it: uncached input, cache reads and output with its reasoning, apart', async () => {
    const usage = usageOf(await readEvents(dsh, LOGS[MAIN] as string));
    expect(usage.map((u) => [u.model, u.provider, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.dedupKey])).toEqual([
      ['deepseek-v4-flash', 'deepseek-official', 5120, 0, 0, 412, 188, 'dsh:msg-7c1e-0001'],
      ['deepseek-v4-flash', 'deepseek-official', 5610, 5120, 0, 0, 0, 'dsh:attempt:1787900004100:1:2:5610:0'],
      ['deepseek-v4-flash', 'deepseek-official', 490, 5120, 0, 236, 61, 'dsh:msg-7c1e-0002'],
      ['deepseek-v4-flash', 'deepseek-official', 384, 5846, 0, 151, 0, 'dsh:msg-7c1e-0003'],
      ['deepseek-v4-flash', 'deepseek-official', 2950, 0, 0, 96, 0, 'dsh:compaction:cmp-0001'],
    ]);
    // DeepSeek's prompt_tokens less its cache hits is dsh's inputTokens: a request's whole prompt is the two together
    expect(usage[2]!.inputTokens + usage[2]!.cacheReadTokens).toBe(5610);
    expect(usage.every((u) => u.singleRequest && u.copied === undefined && u.modelFallback === undefined)).toBe(true);
    expect(usage[0]!.timestamp).toBe(new Date(1787900003400).toISOString());
    expect(usage[0]!.messageId).toBe('msg-7c1e-0001');
  });

  it('reads the conversation: prompts, replies with their reasoning, tool calls and results, the compaction summary', async () => {
    const kinds = byKind(await readEvents(dsh, LOGS[MAIN] as string));
    const messages = kinds.message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.subtype, m.text.slice(0, 24)])).toEqual([
      ['user', undefined, 'Why does GET /orders ret'],
      ['assistant', undefined, 'Let me read the route fir'.slice(0, 24)],
      ['assistant', undefined, '`reduce()` has no initia'],
      ['user', undefined, 'Apply the fix and summar'],
      ['assistant', undefined, 'Done: `rows.reduce((a, r'],
      ['user', 'compaction', 'GET /orders failed on an'],
    ]);
    expect(messages[1]).toMatchObject({ thinking: 'The 500 comes from the handler.', model: 'deepseek-v4-flash', nativeId: 'msg-7c1e-0001' });
    expect(kinds.tool_call).toEqual([expect.objectContaining({ callId: 'call_00_q8R1', name: 'read', input: { file_path: 'src/routes/orders.ts' } })]);
    expect((kinds.tool_result as ToolResultEvent[]).map((r) => [r.callId, r.toolName, r.isError, String(r.output).slice(0, 12)])).toEqual([['call_00_q8R1', 'read', false, 'export const']]);
    const sessions = kinds.session as SessionEvent[];
    expect(sessions.at(-1)).toMatchObject({ cwd: '/home/dev/shop-api', title: 'GET /orders 500 after deploy', startedAt: new Date(1787900000000).toISOString(), usageUnknown: true });
  });
});

describe('dsh retries, forks and subagents', () => {
  it('an attempt a retry started after counts beside the retried call; one the step\u2019s message follows without a retry is replaced by it', async () => {
    // main: attempt, llm/retry-started, message → both; the subagent: attempt, message → the message alone
    expect(usageOf(await readEvents(dsh, LOGS[MAIN] as string)).filter((u) => u.dedupKey.includes(':attempt:'))).toHaveLength(1);
    const sub = usageOf(await readEvents(dsh, LOGS[SUB] as string));
    expect(sub.map((u) => [u.model, u.inputTokens, u.outputTokens, u.messageId])).toEqual([['deepseek-v4-pro', 1800, 97, 'msg-4b5c-0001']]);
    // generation 0: the streamed usage chunk a retry started after counts, the retried call's chunk is its message's
    const n0 = usageOf(await readEvents(dsh, LOGS[N0] as string));
    expect(n0.map((u) => [u.model, u.inputTokens, u.outputTokens, u.messageId])).toEqual([
      ['deepseek-chat', 2200, 3, undefined],
      ['deepseek-chat', 2200, 19, 'n0-msg-1'],
    ]);
  });

  it('a fork\u2019s inherited calls are marked copied under their parent\u2019s keys; its own are not; subagents say whose they are', async () => {
    const main = usageOf(await readEvents(dsh, LOGS[MAIN] as string));
    const events = await readEvents(dsh, LOGS[FORK] as string);
    const fork = usageOf(events);
    const copied = fork.filter((u) => u.copied === true);
    expect(copied.map((u) => u.dedupKey)).toEqual(main.slice(0, 3).map((u) => u.dedupKey));
    expect(fork.filter((u) => u.copied !== true).map((u) => u.dedupKey)).toEqual(['dsh:msg-9f2a-0001']);
    expect(events[0]).toMatchObject({ forkedFrom: MAIN, subagent: true, spawnDepth: 1 });
    // counted once across the two files, as the folds count each key
    expect(codecUsageTotals([...main, ...fork]).responses).toBe(main.length + 1);
    expect((await readEvents(dsh, LOGS[SUB] as string))[0]).toMatchObject({ forkedFrom: MAIN, subagent: true, spawnDepth: 1 });
    expect((await readEvents(dsh, LOGS[MAIN] as string))[0]).not.toHaveProperty('subagent');
  });

  it('a fork of a fork: the prefix before its own cut is copied, its parent\u2019s cut inside that prefix included', async () => {
    await inTempDir(async (dir) => {
      const created = 1787000090000;
      const file = await plainLog(dir, [
        v3Header('grandchild', { isSeeded: true, parentSession: 'child', createdAt: created }),
        message(0, 1787000010000, 'root-own', 1, { inputTokens: 10, outputTokens: 1 }),
        { type: 'session/end-seed', data: { inherited: true }, seq: 1, time: 1787000050000 },
        message(2, 1787000060000, 'child-own', 2, { inputTokens: 20, outputTokens: 2 }),
        { type: 'session/end-seed', data: { inherited: true }, seq: 3, time: created },
        message(4, created + 5000, 'grandchild-own', 3, { inputTokens: 30, outputTokens: 3 }),
      ]);
      const usage = usageOf(await readEvents(dsh, file));
      expect(usage.map((u) => [u.messageId, u.copied])).toEqual([
        ['root-own', true],
        ['child-own', true],
        ['grandchild-own', undefined],
      ]);
      // generations 0 and 1 give the cut as a count of events in the header
      const v0 = await plainLog(dir, [{ type: 'session', version: 0, id: 'v0-fork', createdAt: created, seedLength: 1, delegationDepth: 0 }, message(0, 1, 'old', 1, { inputTokens: 5, outputTokens: 1 }), message(1, created + 1, 'new', 2, { inputTokens: 6, outputTokens: 1 })], 'v0-fork', 'session.jsonl');
      expect(usageOf(await readEvents(dsh, v0)).map((u) => [u.messageId, u.copied])).toEqual([
        ['old', true],
        ['new', undefined],
      ]);
    });
  });
});

describe('dsh usage the log does not hold', () => {
  it('a title or search model request, a reply without usage, or a compaction call without it: the session says its usage is unknown', async () => {
    const n3 = byKind(await readEvents(dsh, LOGS[N3] as string));
    expect((n3.session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
    expect((n3.message as MessageEvent[]).filter((m) => m.role === 'assistant')).toHaveLength(2);
    expect(n3.usage).toHaveLength(1);
    for (const name of [CHERRY, SUB, FORK, N0]) {
      expect((byKind(await readEvents(dsh, LOGS[name] as string)).session as SessionEvent[]).some((s) => s.usageUnknown === true), name).toBe(false);
    }
    await inTempDir(async (dir) => {
      const summary = { type: 'compaction/summary', data: { compactionId: 'c1', summary: [], shadowedRange: { start: 0, end: 0 }, shadowedSeqs: [0], shadowedTokenCount: 1, provider: 'p', model: 'm', rawOutput: [], llmStreamCall: true }, seq: 0, time: 1787000001000 };
      const search = { type: 'web/deepseek-search-llm-request', data: {}, seq: 0, time: 1787000001000 };
      for (const line of [summary, search]) {
        const sessions = byKind(await readEvents(dsh, await plainLog(dir, [v3Header('u'), line], `u-${line.type.replace('/', '-')}`))).session as SessionEvent[];
        expect(sessions.at(-1), line.type).toMatchObject({ usageUnknown: true });
      }
      // a usage-only read leaves the flag to the session views, as other codecs do
      const only = await readEvents(dsh, await plainLog(dir, [v3Header('u2'), search], 'u2'), { kinds: ['usage'] });
      expect(only).toEqual([]);
    });
  });
});

describe('dsh bad input', () => {
  it('skips and counts a torn line, a line that is no object and a call with an absurd count; the rest is read', async () => {
    await inTempDir(async (dir) => {
      const good = message(3, 1787000003000, 'good', 1, { inputTokens: 100, cacheReadTokens: 50, outputTokens: 10 });
      const absurd = message(2, 1787000002000, 'absurd', 1, { inputTokens: -5, outputTokens: 1 });
      const file = await plainLog(dir, [v3Header('bad'), '{"type":"assistant/message","data":{', '[1,2]', absurd, good]);
      const info = newReadInfo();
      const events = await readEvents(dsh, file, { info });
      expect(info.skippedLines).toBe(3);
      expect(usageOf(events).map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[100, 50, 10]]);
      await expect(readEvents(dsh, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('multi-byte text and CRLF line ends read the same in every chunking, and resumed at every cut', async () => {
    await inTempDir(async (dir) => {
      const lines = [v3Header('crlf'), { type: 'user/message', data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Überall “Notizen” → 日本語 🚀' }], source: { kind: 'user' } }, surfaceOp: 'append', seq: 0, time: 1787000001000 }, message(1, 1787000002000, 'm1', 1, { inputTokens: 7, outputTokens: 2 })];
      const content = Buffer.from(lines.map((l) => JSON.stringify(l)).join('\r\n') + '\r\n');
      const file = join(dir, '--p--', 'crlf', 'session.v3.jsonl');
      await mkdir(join(dir, '--p--', 'crlf'), { recursive: true });
      await writeFile(file, content);
      const events = await expectChunkInvariant(dsh, file);
      expect((byKind(events).message[0] as MessageEvent).text).toBe('Überall “Notizen” → 日本語 🚀');
      await expectResumeEqualsFull(dsh, content, Array.from({ length: content.length + 1 }, (_, i) => i), {}, '--p--/crlf/session.v3.jsonl');
      expect(lineBoundaries(content)).toHaveLength(4);
    });
  });
});

describeChunkingAndResume(dsh, `${NOTES}/`, [`${N0}/session.jsonl`, `${N3}/session.v3.jsonl`]);

describe('dsh discovery and roots', () => {
  it('lists each session folder\u2019s current generation alone, under its own id, in every root', async () => {
    const found = await discoverAll(dsh, [HOME_ROOT, SDK_ROOT, CHERRY_ROOT, join(FIXTURES, 'missing')]);
    expect(found.map((f) => [f.sessionId, f.path])).toEqual([
      [FORK, LOGS[FORK]],
      [SUB, LOGS[SUB]],
      [MAIN, LOGS[MAIN]],
      [N0, LOGS[N0]],
      [N3, LOGS[N3]],
      [CHERRY, LOGS[CHERRY]],
    ]);
    expect(await dsh.locate?.([HOME_ROOT], MAIN)).toMatchObject({ path: LOGS[MAIN] });
  });

  it('takes the highest generation by number, and no name that is not one (a lock, a relocation\u2019s copies, a flat log)', async () => {
    await inTempDir(async (dir) => {
      const s = join(dir, '--p--', 'a~002Fb');
      await mkdir(s, { recursive: true });
      for (const n of ['session.jsonl.zstd', 'session.v9.jsonl.zstd', 'session.v10.jsonl.zstd', 'session.v11.jsonl.zstd.relocating-ab12', 'session.v12.jsonl.zstd.relocate-ab12.tmp', 'session.v013.jsonl.zstd', 'session.lock']) await writeFile(join(s, n), '');
      await writeFile(join(dir, '--p--', 'flat.jsonl'), '{}\n');
      await mkdir(join(dir, '.relocate-stage', 'x'), { recursive: true });
      await writeFile(join(dir, '.relocate-stage', 'x', 'session.v3.jsonl'), '');
      const plain = join(dir, '--q--', 'b');
      await mkdir(plain, { recursive: true });
      for (const n of ['session.v2.jsonl', 'session.v2.jsonl.zstd', 'session.v1.jsonl']) await writeFile(join(plain, n), '');
      const found = await discoverAll(dsh, [dir]);
      expect(found.map((f) => [f.sessionId, f.path.slice(dir.length + 1)])).toEqual([
        ['a/b', '--p--/a~002Fb/session.v10.jsonl.zstd'],
        ['b', '--q--/b/session.v2.jsonl.zstd'],
      ]);
    });
    expect(['session.jsonl', 'session.v3.jsonl.zstd', 'session.v0.jsonl', 'session.v3.JSONL'].map(generationOf)).toEqual([{ version: 0, compressed: false }, { version: 3, compressed: true }, undefined, undefined]);
    expect(decodeSessionDir('~002E~002E')).toBe('..');
    expect(decodeSessionDir('~zz~1')).toBe('~zz~1');
  });

  it('$DSH_HOME moves the home (blank is unset, ~ expanded); $DSH_SESSION_ROOT and Cherry Studio\u2019s runtime folder are read too', () => {
    const cherryLinux = '/h/.config/CherryStudio/Data/Agents/.dsh/sessions';
    expect(getDshRoots({ HOME: '/h' }, 'linux')).toEqual(['/h/.dsh/sessions', cherryLinux]);
    expect(getDshRoots({ HOME: '/h', DSH_HOME: '  ' }, 'linux')).toEqual(['/h/.dsh/sessions', cherryLinux]);
    expect(getDshRoots({ HOME: '/h', DSH_HOME: '~/dh' }, 'linux')).toEqual(['/h/dh/sessions', cherryLinux]);
    expect(getDshRoots({ HOME: '/h', DSH_HOME: '/d', DSH_SESSION_ROOT: '/sdk/sessions' }, 'linux')).toEqual(['/d/sessions', '/sdk/sessions', cherryLinux]);
    expect(getDshRoots({ HOME: '/h' }, 'darwin')).toEqual(['/h/.dsh/sessions', '/h/Library/Application Support/CherryStudio/Data/Agents/.dsh/sessions']);
    expect(getDshRoots({ HOME: '/h', APPDATA: '/h/AppData/Roaming' }, 'win32')).toEqual(['/h/.dsh/sessions', '/h/AppData/Roaming/CherryStudio/Data/Agents/.dsh/sessions']);
    expect(getDshRoots({ HOME: '/h', SESSIONFOLD_DSH_DIR: '/a,/b', DSH_HOME: '/d' }, 'linux')).toEqual(['/a', '/b']);
    expect(dshHome({ HOME: '/h', DSH_HOME: '/d/' })).toBe('/d');
    expect(dsh.rootVariables).toEqual(['DSH_HOME', 'DSH_SESSION_ROOT']);
  });

  it('knows its own files by their first bytes: a header with dsh\u2019s fields, or zstd frames under a generation\u2019s name', async () => {
    expect(detectDsh(LOGS[N3] as string, await readFile(LOGS[N3] as string))).toBe(2);
    expect(detectDsh(LOGS[MAIN] as string, await readFile(LOGS[MAIN] as string))).toBe(2);
    expect(detectDsh('/x/rollout.jsonl.zst', await readFile(LOGS[MAIN] as string))).toBe(0);
    expect(detectDsh('/x/s.jsonl', Buffer.from('{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'))).toBe(0);
    expect(dsh.lineCoreFor?.(LOGS[MAIN] as string)).toBeUndefined();
    expect(dsh.lineCoreFor?.(LOGS[N3] as string)).toBe(dsh.lineCore);
  });

  it('the fixture folders hold what the README says', async () => {
    expect((await readdir(join(SHOP, MAIN))).sort()).toEqual(['session.jsonl.zstd', 'session.v3.jsonl.zstd']);
    expect((await readdir(join(NOTES, N3))).sort()).toEqual(['session.v2.jsonl', 'session.v3.jsonl']);
  });
});
