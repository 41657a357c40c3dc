/**
 * The codex codec: roots, discovery and locate over the fixture tree (real layout), session / message /
 * tool events, and the cursor state (32-bit id hashes, RESTART on a hash hit, bounded open calls).
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex, codexCore } from '../codecs/codex/index.js';
import { MAX_OPEN_CALLS } from '../codecs/codex/parse.js';
import type { CodexState } from '../codecs/codex/parse.js';
import { parseSync } from '../cursors/sync.js';
import { hashId32 } from '../cursors/ids.js';
import { newReadInfo, normalizeReadOptions, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import { getCodec, loadCodec } from '../src/registry.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import type { MessageEvent, SessionEvent, ToolCallEvent, ToolResultEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import {
  CODEX_HOME, count, eventMsg, FILE_A, FILE_A_ARCHIVED, FILE_B, FILE_C, FILE_OLD, ID_A, ID_B, ID_C, ID_OLD, ID_PARENT_C, item, jsonl, meta, record, tmpRollout, tu, usages,
} from './codex-helpers.js';

describe('codex paths', () => {
  it('takes every comma-separated entry of CODEX_HOME as a root', () => {
    expect(codex.defaultRoots({ CODEX_HOME: '/a/.codex, /b/codex-home,', HOME: '/home/u' })).toEqual(['/a/.codex', '/b/codex-home']);
  });

  it('falls back to ~/.codex from HOME', () => {
    expect(codex.defaultRoots({ HOME: '/home/u' })).toEqual(['/home/u/.codex']);
    expect(codex.defaultRoots({ HOME: '/home/u', CODEX_HOME: '  ' })).toEqual(['/home/u/.codex']);
  });

  it('discovers sessions/YYYY/MM/DD and archived_sessions rollouts, the live copy winning over an archived one of the same name', async () => {
    const found = [];
    for await (const f of codex.discover([CODEX_HOME, '/nonexistent/codex-home'])) found.push(f);
    expect(found.map((f) => f.path)).toEqual([FILE_A, FILE_B, FILE_C, FILE_OLD]);
    expect(found.map((f) => f.sessionId)).toEqual([ID_A, ID_B, ID_C, ID_OLD]);
    expect(found.every((f) => f.agent === 'codex' && f.root === CODEX_HOME)).toBe(true);
    expect(found.map((f) => f.path)).not.toContain(FILE_A_ARCHIVED);
  });

  it('walks a root that is not a Codex home (sessions/ itself, an archive folder) as a folder of rollouts', async () => {
    const paths = async (roots: string[]) => {
      const out: string[] = [];
      for await (const f of codex.discover(roots)) out.push(f.path);
      return out;
    };
    expect(await paths([join(CODEX_HOME, 'sessions')])).toEqual([FILE_A, FILE_B, FILE_C]);
    expect(await paths([join(CODEX_HOME, 'archived_sessions')])).toEqual([FILE_OLD, FILE_A_ARCHIVED].sort());
    expect((await codex.locate!([join(CODEX_HOME, 'sessions')], ID_B))?.path).toBe(FILE_B);
  });

  it('locates a thread by the uuid at the end of its rollout name (day directory, archive, missing)', async () => {
    expect((await codex.locate!([CODEX_HOME], ID_B))?.path).toBe(FILE_B);
    expect((await codex.locate!([CODEX_HOME], ID_A.toUpperCase()))?.path).toBe(FILE_A);
    expect((await codex.locate!(['/nonexistent', CODEX_HOME], ID_OLD))?.path).toBe(FILE_OLD);
    expect(await codex.locate!([CODEX_HOME], '0199ffff-0000-7000-8000-000000000000')).toBeUndefined();
  });

  it('resumes with `codex resume <id>` and registers under its id and aliases', async () => {
    expect(codex.resumeCommand!(ID_A)).toEqual(['codex', 'resume', ID_A]);
    // The registry holds the codec's descriptor and loads this module's codec behind it.
    const registered = await loadCodec(getCodec('codex'));
    expect(getCodec('codex-cli')).toBe(registered);
    expect(registered.lineCore).toBe(codexCore);
    expect(registered.resumeCommand!(ID_A)).toEqual(['codex', 'resume', ID_A]);
    expect(codex.capabilities).toMatchObject({ incremental: true, persistence: 'jsonl' });
    expect(codex.lineCore).toBe(codexCore);
  });
});

describe('codex session events', () => {
  it('reads id, cwd, start, cli_version, git branch and provider from session_meta', async () => {
    const [s] = byKind(await readEvents(codex, FILE_A)).session as SessionEvent[];
    expect(s).toEqual({
      type: 'session', agent: 'codex', sessionId: ID_A, offset: 0, nativeId: ID_A, cwd: '/work/app', startedAt: '2025-10-01T10:00:00.000Z',
      version: '0.46.0', gitBranch: 'feature/ünïcode', provider: 'openai',
    });
  });

  it('names the parent of a fork (forked_from_id) and of a subagent thread, and emits no event for copied parent headers', async () => {
    const b = byKind(await readEvents(codex, FILE_B)).session as SessionEvent[];
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ nativeId: ID_B, forkedFrom: ID_A });
    expect(b[0]!.subagent).toBeUndefined();
    const c = byKind(await readEvents(codex, FILE_C)).session as SessionEvent[];
    expect(c).toHaveLength(1);
    expect(c[0]).toMatchObject({ nativeId: ID_C, forkedFrom: ID_PARENT_C, subagent: true, version: '0.153.4' });
  });

  it('uses the file name for a rollout without session_meta', async () => {
    const f = await tmpRollout(jsonl([turnLine()]), 'ccusage-like.jsonl');
    expect(byKind(await readEvents(codex, f)).session).toEqual([{ type: 'session', agent: 'codex', sessionId: 'ccusage-like', offset: 0, nativeId: 'ccusage-like', startedAt: '2025-11-05T12:00:00.000Z' }]);
  });

  it('reads the pre-RolloutLine format (header without type, bare response items)', async () => {
    const f = await tmpRollout(jsonl([
      { id: 'legacy-1', timestamp: '2025-04-20T10:00:00.000Z', instructions: null },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
      { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
    ]));
    const k = byKind(await readEvents(codex, f));
    expect(k.session).toMatchObject([{ nativeId: 'legacy-1', startedAt: '2025-04-20T10:00:00.000Z' }]);
    expect(k.message).toMatchObject([{ sessionId: 'legacy-1', role: 'user', text: 'hello' }]);
    expect(k.tool_call).toMatchObject([{ callId: 'c1', name: 'shell', input: { command: ['ls'] } }]);
  });
});

function turnLine(): Record<string, unknown> {
  return { timestamp: '2025-11-05T12:00:00.000Z', type: 'turn_context', payload: { model: 'gpt-5' } };
}

describe('codex messages', () => {
  it('keeps injected AGENTS.md / environment context out of the user messages, as system messages with a subtype', async () => {
    const m = byKind(await readEvents(codex, FILE_A)).message as MessageEvent[];
    expect(m.filter((x) => x.role === 'system').map((x) => x.subtype)).toEqual(['user_instructions', 'environment_context']);
    expect(m.filter((x) => x.role === 'user').map((x) => x.text)).toEqual(['Fix the failing test in ünïcode.ts 🐛', 'thanks, also apply the patch']);
  });

  it('counts a message written as both event_msg and response_item once, in either order', async () => {
    const m = byKind(await readEvents(codex, FILE_A)).message as MessageEvent[];
    expect(m.filter((x) => x.role === 'assistant' && x.text !== '').map((x) => [x.text, x.model])).toEqual([['Fixed: the test now passes — trims NBSP too.', 'gpt-5-codex']]);
    const c = byKind(await readEvents(codex, FILE_C)).message as MessageEvent[];
    expect(c.map((x) => [x.role, x.text])).toEqual([['user', 'Inspect the db/ schema'], ['assistant', 'The schema has 3 tables.']]);
  });

  it('keeps the same text typed twice as two messages', async () => {
    const say = (s: number) => [eventMsg(s, { type: 'user_message', message: 'again' }), item(s, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] })];
    const f = await tmpRollout(jsonl([meta('s1', 0), ...say(1), ...say(2), item(3, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] })]));
    expect((byKind(await readEvents(codex, f)).message as MessageEvent[]).map((x) => x.text)).toEqual(['again', 'again', 'again']);
  });

  it('reads reasoning summaries as thinking, once (agent_reasoning repeats them)', async () => {
    const m = byKind(await readEvents(codex, FILE_A)).message as MessageEvent[];
    expect(m.filter((x) => x.thinking !== undefined)).toMatchObject([{ role: 'assistant', text: '', thinking: '**Running the test suite first**', model: 'gpt-5-codex' }]);
  });

  it('treats an older user_message whose kind is not plain as injected context', async () => {
    const f = await tmpRollout(jsonl([meta('s1', 0), eventMsg(1, { type: 'user_message', message: 'cwd is /w', kind: 'environment_context' })]));
    expect(byKind(await readEvents(codex, f)).message).toMatchObject([{ role: 'system', subtype: 'environment_context', text: 'cwd is /w' }]);
  });

  it('turns a compaction summary into a system message', async () => {
    const f = await tmpRollout(jsonl([meta('s1', 0), { timestamp: '2025-11-05T12:00:09.000Z', type: 'compacted', payload: { message: 'Summary so far', replacement_history: [] } }]));
    expect(byKind(await readEvents(codex, f)).message).toEqual([{ type: 'message', agent: 'codex', sessionId: 's1', offset: expect.any(Number), role: 'system', text: 'Summary so far', subtype: 'compaction', timestamp: '2025-11-05T12:00:09.000Z' }]);
  });
});

describe('codex tool calls', () => {
  it('reads function, custom, local shell and web search calls, and their outputs with the tool name of the open call', async () => {
    const k = byKind(await readEvents(codex, FILE_A));
    expect((k.tool_call as ToolCallEvent[]).map((c) => [c.callId, c.name])).toEqual([['call_A', 'shell'], ['call_B', 'local_shell'], ['call_C', 'apply_patch'], ['ws_1', 'web_search']]);
    expect((k.tool_call[0] as ToolCallEvent).input).toEqual({ command: ['npm', 'test'], workdir: '/work/app' });
    expect((k.tool_call[2] as ToolCallEvent).input).toMatch(/^\*\*\* Begin Patch/);
    expect((k.tool_result as ToolResultEvent[]).map((r) => [r.callId, r.toolName, r.isError])).toEqual([['call_A', 'shell', true], ['call_B', 'local_shell', false], ['call_C', 'apply_patch', false]]);
    expect((k.tool_result[0] as ToolResultEvent).output).toBe('1 failing: ünïcode › trims');
  });

  it('marks a plain-text shell output with a non-zero exit code as an error', async () => {
    const f = await tmpRollout(jsonl([
      meta('s1', 0),
      item(1, { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"false"}', call_id: 'x' }),
      item(2, { type: 'function_call_output', call_id: 'x', output: 'Chunk ID: 1\nWall time: 0.1s\nProcess exited with code 1\nOutput:\n' }),
      item(3, { type: 'function_call', name: 'exec_command', arguments: 'not json', call_id: 'y' }),
      item(4, { type: 'function_call_output', call_id: 'y', output: [{ type: 'input_text', text: 'ok' }] }),
    ]));
    const k = byKind(await readEvents(codex, f));
    expect((k.tool_result as ToolResultEvent[]).map((r) => [r.toolName, r.isError, r.output])).toEqual([['exec_command', true, expect.any(String)], ['exec_command', false, 'ok']]);
    expect((k.tool_call[1] as ToolCallEvent).input).toBe('not json');
  });

  it('keeps at most MAX_OPEN_CALLS open calls in the state, evicting the oldest', async () => {
    const rows = [meta('s1', 0)];
    for (let i = 0; i < MAX_OPEN_CALLS + 44; i++) rows.push(item(1, { type: 'function_call', name: `t${i}`, arguments: '{}', call_id: `c${i}` }));
    rows.push(item(2, { type: 'function_call_output', call_id: 'c0', output: 'late' }), item(2, { type: 'function_call_output', call_id: `c${MAX_OPEN_CALLS + 43}`, output: 'ok' }));
    const opts = normalizeReadOptions();
    const state = codexCore.init({ file: 'x.jsonl', options: opts });
    const emitted: unknown[] = [];
    rows.forEach((r, i) => codexCore.line(state, Buffer.from(JSON.stringify(r)), i, (e) => emitted.push(e)));
    const results = emitted.filter((e): e is ToolResultEvent => (e as { type: string }).type === 'tool_result');
    expect(results.map((r) => r.toolName)).toEqual([undefined, `t${MAX_OPEN_CALLS + 43}`]);
    expect((codexCore.snapshot(state) as { openCalls: unknown[] }).openCalls.length).toBe(MAX_OPEN_CALLS - 1);
  });
});

describe('codex robustness', () => {
  it('skips unknown record types and counts malformed lines while the rest of the file still counts', async () => {
    const info = newReadInfo();
    const f = await tmpRollout(jsonl([meta('s1', 0), { timestamp: 'x', type: 'realtime_item', payload: { a: 1 } }, '{"timestamp":"2025-11-05T12:00:01.000Z","type":"event_msg","payload":{broken', '[1,2]', count(3, tu(100, 0, 10, 0), tu(100, 0, 10, 0))]));
    const events = await readEvents(codex, f, { info });
    expect(info.skippedLines).toBe(2);
    expect(usages(events)).toHaveLength(1);
  });

  it('rejects a cursor state it cannot use with CURSOR_INVALID', () => {
    const ctx = { file: 'x.jsonl', options: normalizeReadOptions() };
    for (const bad of [null, 3, { v: 99 }, { v: 1, sessionId: 's' }, { ...codexCore.snapshot(codexCore.init(ctx)) as object, totals: { input: 'x' } }]) {
      let err: unknown;
      try {
        codexCore.restore(bad, ctx);
      } catch (e) {
        err = e;
      }
      expect(isSessionfoldError(err, 'CURSOR_INVALID'), JSON.stringify(bad)).toBe(true);
    }
  });
});

async function resumeOnce(file: string, from: ReadCursor | undefined): Promise<{ start: ResumeStart; cursor: ReadCursor; events: Awaited<ReturnType<typeof readEvents>> }> {
  let start: ResumeStart | undefined;
  let cursor: ReadCursor | undefined;
  const events = await readEvents(codex, file, { resume: { from, onStart: (s) => (start = s), onCursor: (u) => (cursor = JSON.parse(JSON.stringify(u.cursor)) as ReadCursor) } });
  return { start: start!, cursor: cursor!, events };
}

describe('codex cursor state', () => {
  it('stores seen response ids as 32-bit hashes and restarts on a hash hit of a different id (a real collision)', async () => {
    const [a, b] = ['resp_67900', 'resp_149579'];
    expect(hashId32(a)).toBe(hashId32(b));
    const f = await tmpRollout(jsonl([meta('s1', 0), turnLine(), record(1, a, tu(100, 0, 10, 0))]));
    const first = await resumeOnce(f, undefined);
    expect((first.cursor.state as { core: { seen: number[] } }).core.seen).toEqual([hashId32(a)]);
    await appendFile(f, jsonl([record(2, b, tu(200, 0, 20, 0))]));
    const second = await resumeOnce(f, first.cursor);
    expect(second.start).toMatchObject({ restarted: true, reason: 'id-collision' });
    expect(usages(second.events).map((u) => u.messageId)).toEqual([a, b]);
  });

  it('restarts on a response id repeated after the cursor, and the full read counts it once', async () => {
    const f = await tmpRollout(jsonl([meta('s1', 0), record(1, 'r1', tu(100, 0, 10, 0))]));
    const first = await resumeOnce(f, undefined);
    await appendFile(f, jsonl([record(2, 'r1', tu(100, 0, 10, 0)), record(3, 'r2', tu(5, 0, 1, 0))]));
    const second = await resumeOnce(f, first.cursor);
    expect(second.start.restarted).toBe(true);
    expect(usages(second.events).map((u) => u.messageId)).toEqual(['r1', 'r2']);
    const third = await resumeOnce(f, second.cursor);
    expect(third.start).toEqual({ restarted: false, replaced: {} });
    expect(third.events).toEqual([]);
  });

  it('keeps the cursor state small', async () => {
    const { cursor } = await resumeOnce(FILE_A, undefined);
    const state = cursor.state as { core: CodexState };
    expect(JSON.stringify(state).length).toBeLessThan(2048);
    expect(Object.keys(state.core).sort()).toEqual(
      ['bornAt', 'copiedTurn', 'ctxProvider', 'decided', 'epoch', 'forked', 'historyStart', 'lastTs', 'metaProvider', 'model', 'openCalls', 'pending', 'recent', 'recordsSeen', 'region', 'seen', 'sessionId', 'totals', 'v'].sort(),
    );
  });

  it('parses identically through parseSync and the file reader', async () => {
    const content = await readFile(FILE_C);
    expect(parseSync(codexCore, content, { file: FILE_C })).toEqual(await readEvents(codex, FILE_C));
  });
});
