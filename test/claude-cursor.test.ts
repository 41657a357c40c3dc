/**
 * What the Claude cursor state carries and how a resumed read uses it: the pending usage, open tool calls
 * (bounded), and counted response keys as 32-bit hashes, where a hashed key met after the cursor restarts
 * the read (a repeat or a real collision), and a fresh read never has a false positive.
 */
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude, claudeCore, MAX_OPEN_CALLS, type ClaudeSnapshot } from '../codecs/claude/index.js';
import { MAX_OPEN_RESPONSES } from '../codecs/claude/parse.js';
import { hashId32 } from '../cursors/ids.js';
import { normalizeReadOptions, type JsonlCursor, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';

const SID = '0e0e0e0e-1111-4222-8333-444444444444';
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));

function asst(id: string, req: string, out: number, content: unknown[] = [{ type: 'text', text: 'ok' }]): string {
  return JSON.stringify({
    type: 'assistant',
    sessionId: SID,
    cwd: '/w',
    uuid: `${id}-${out}`,
    timestamp: '2026-03-02T00:00:00.000Z',
    requestId: req,
    message: { id, role: 'assistant', model: 'claude-opus-4-1', content, usage: { input_tokens: 1, output_tokens: out } },
  });
}

function toolResult(id: string): string {
  return JSON.stringify({ type: 'user', sessionId: SID, cwd: '/w', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'done' }] } });
}

async function session(lines: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-claude-cursor-'));
  const f = join(dir, `${SID}.jsonl`);
  await writeFile(f, lines.map((l) => l + '\n').join(''));
  return f;
}

async function readResumed(file: string, from?: ReadCursor): Promise<{ events: SessionfoldEvent[]; start: ResumeStart; cursor: JsonlCursor }> {
  let start: ResumeStart | undefined;
  let cursor: ReadCursor | undefined;
  const events: SessionfoldEvent[] = [];
  for await (const e of claude.read(file, { resume: { from, onStart: (s) => (start = s), onCursor: (u) => (cursor = u.cursor) } })) events.push(e);
  return { events, start: start!, cursor: JSON.parse(JSON.stringify(cursor)) as JsonlCursor };
}

function coreState(c: JsonlCursor): ClaudeSnapshot {
  return (c.state as { core: ClaudeSnapshot }).core;
}

/** Two distinct response keys with the same 32-bit xxhash (found by brute force, birthday bound ~2^16). */
function collidingKeys(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const key = `claude:msg_${i}`;
    const h = hashId32(key);
    const other = seen.get(h);
    if (other !== undefined) return [other, key];
    seen.set(h, key);
  }
}

describe('claude cursor state', () => {
  it('restarts from byte 0 when a response counted before the cursor appears again after it', async () => {
    // msg_a is counted (closed) once MAX_OPEN_RESPONSES later responses have opened.
    const later = Array.from({ length: MAX_OPEN_RESPONSES }, (_, i) => asst(`msg_${i}`, `r_${i}`, 20 + i));
    const f = await session([asst('msg_a', 'r1', 10), ...later]);
    const first = await readResumed(f);
    await appendFile(f, asst('msg_a', 'r1', 10) + '\n');
    const second = await readResumed(f, first.cursor);
    expect(second.start).toMatchObject({ restarted: true, reason: 'id-collision' });
    expect(second.events).toEqual(await readEvents(claude, f));
    expect((byKind(second.events).usage as UsageEvent[]).map((u) => u.messageId)).toEqual(['msg_a', ...later.map((_, i) => `msg_${i}`)]);
  });

  it('restarts on a genuine 32-bit hash collision, and the restarted read counts both responses', async () => {
    const [k1, k2] = collidingKeys();
    expect(k1).not.toBe(k2);
    const id1 = k1.slice('claude:'.length);
    const id2 = k2.slice('claude:'.length);
    const [req1, req2] = ['req_1', 'req_2'];
    const mids = Array.from({ length: MAX_OPEN_RESPONSES }, (_, i) => asst(`msg_mid${i}`, `r_mid${i}`, 100 + i));
    const f = await session([asst(id1, req1, 5), ...mids]);
    const first = await readResumed(f);
    await appendFile(f, asst(id2, req2, 7) + '\n');
    const second = await readResumed(f, first.cursor);
    expect(second.start).toMatchObject({ restarted: true, reason: 'id-collision' });
    const usage = byKind(second.events).usage as UsageEvent[];
    expect(usage.map((u) => u.outputTokens)).toEqual([5, ...mids.map((_, i) => 100 + i), 7]);
    // A fresh read keeps exact keys: no false positive.
    expect(byKind(await readEvents(claude, f)).usage).toEqual(usage);
  });

  it('does not restart when the pending response continues after the cursor, and replaces it', async () => {
    const f = await session([asst('msg_a', 'r1', 1)]);
    const first = await readResumed(f);
    expect(coreState(first.cursor).pending.map((p) => p.key)).toEqual(['claude:msg_a']);
    await appendFile(f, asst('msg_a', 'r1', 50, [{ type: 'tool_use', id: 'toolu_x', name: 'Bash', input: {} }]) + '\n');
    const second = await readResumed(f, first.cursor);
    expect(second.start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect((byKind(second.events).usage as UsageEvent[]).map((u) => u.outputTokens)).toEqual([50]);
  });

  it('names a tool result after the cursor from the call before it', async () => {
    const f = await session([asst('msg_a', 'r1', 3, [{ type: 'tool_use', id: 'toolu_9', name: 'Grep', input: { pattern: 'x' } }])]);
    const first = await readResumed(f);
    expect(coreState(first.cursor).calls).toEqual([['toolu_9', 'Grep', 'msg_a-3']]);
    await appendFile(f, toolResult('toolu_9') + '\n');
    const second = await readResumed(f, first.cursor);
    expect(second.start.restarted).toBe(false);
    expect(byKind(second.events).tool_result).toMatchObject([{ callId: 'toolu_9', toolName: 'Grep', output: 'done' }]);
  });

  it('keeps the state small: 4 bytes per counted response, and the open ones as data', async () => {
    const file = join(REAL, 'vibecodingtracker-real-session-v1.0.95-zh.jsonl');
    const { cursor, events } = await readResumed(file);
    const usage = byKind(events).usage.length;
    const core = coreState(cursor);
    expect(core.pending.length).toBeGreaterThan(0);
    expect(core.pending.length).toBeLessThanOrEqual(MAX_OPEN_RESPONSES);
    expect(Buffer.from(core.seen, 'base64').length).toBe(4 * (usage - core.pending.length));
    expect(core.pending.every((p) => p.event.type === 'usage')).toBe(true);
    // Besides the hashes and the open responses (~550 bytes each), the state holds the last session event.
    expect(JSON.stringify(cursor.state).length).toBeLessThan(1500 + 600 * MAX_OPEN_RESPONSES);
    expect((await readFile(file)).length).toBeGreaterThan(50 * JSON.stringify(cursor.state).length);
  });

  it('bounds the open tool calls it remembers, dropping the oldest', async () => {
    const n = MAX_OPEN_CALLS + 44;
    const lines = Array.from({ length: n }, (_, i) => asst(`msg_${i}`, `r_${i}`, 1, [{ type: 'tool_use', id: `t${i}`, name: `Tool${i}`, input: {} }]));
    const f = await session(lines);
    const first = await readResumed(f);
    expect(coreState(first.cursor).calls).toHaveLength(MAX_OPEN_CALLS);
    await appendFile(f, `${toolResult('t0')}\n${toolResult(`t${n - 1}`)}\n`);
    const results = byKind(await readEvents(claude, f)).tool_result as ToolResultEvent[];
    expect(results.map((r) => [r.callId, r.toolName])).toEqual([
      ['t0', undefined],
      [`t${n - 1}`, `Tool${n - 1}`],
    ]);
    expect((byKind((await readResumed(f, first.cursor)).events).tool_result as ToolResultEvent[]).map((r) => r.toolName)).toEqual([undefined, `Tool${n - 1}`]);
  });

  it('rejects a state it cannot use with CURSOR_INVALID', () => {
    const ctx = { file: `/x/${SID}.jsonl`, options: normalizeReadOptions() };
    expect(() => claudeCore.restore({ v: 99 }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    const good = claudeCore.snapshot(claudeCore.init(ctx)) as ClaudeSnapshot;
    expect(() => claudeCore.restore({ ...good, seen: 'abc' }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    expect(() => claudeCore.restore({ ...good, calls: [[1, 'x']] }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    expect(() => claudeCore.restore({ ...good, titles: { custom: 3 } }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    expect(() => claudeCore.restore({ ...good, session: { type: 'usage' } }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    // a cursor of the previous state version (no titles) is not resumed from: the parser string changed too
    expect(() => claudeCore.restore({ ...good, v: 1 }, ctx)).toThrow(expect.objectContaining({ code: 'CURSOR_INVALID' }));
    expect(claudeCore.snapshot(claudeCore.restore(good, ctx))).toEqual(good);
  });
});
