/**
 * Gemini's codec yields a turn's usage as soon as it reads it, and the turn's messages only when the next
 * user message closes the turn: the session fold must wait for the message a usage event names rather than
 * give it to the previous turn's reply (or to no message). Over the real JSONL chat and a two-turn chat, laid
 * out as Gemini CLI lays them out, through `get()` and `stream()`.
 */
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { createSessionManager, type Session, type SessionManager } from '../src/index.js';
import { FAKE_PRICER, makeHome, REAL, type Home } from './sessions-helpers.js';

const T = (s: number) => `2026-05-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const tok = (input: number, output: number, cached: number) => ({ input, output, cached, thoughts: 0, tool: 0, total: input + output });

/** Two turns, each answered by one reply with its own tokens. */
const TWO_TURNS = [
  { sessionId: 'two-turns', projectHash: 'h', startTime: T(0), lastUpdated: T(0), kind: 'main' },
  { id: 'u1', timestamp: T(1), type: 'user', content: [{ text: 'first' }] },
  { id: 'g1', timestamp: T(2), type: 'gemini', content: 'answer one', tokens: tok(1000, 10, 0), model: 'gemini-2.5-pro' },
  { id: 'u2', timestamp: T(3), type: 'user', content: [{ text: 'second' }] },
  { id: 'g2', timestamp: T(4), type: 'gemini', content: 'answer two', tokens: tok(3000, 30, 2000), model: 'gemini-2.5-pro' },
];

let home: Home;
let sm: SessionManager;

beforeAll(async () => {
  home = await makeHome();
  home.env.GEMINI_CLI_HOME = home.dir;
  const chats = join(home.dir, '.gemini', 'tmp', 'proj-a', 'chats');
  await mkdir(chats, { recursive: true });
  await copyFile(join(REAL, 'gemini', 'agent-sessions-jsonl-v0.40.jsonl'), join(chats, 'session-2026-04-29T21-39-gemini_s.jsonl'));
  await writeFile(join(chats, 'session-2026-05-01T10-00-two-turn.jsonl'), TWO_TURNS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false });
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** Each assistant message's id with the tokens it carries. */
function replies(s: Session): [string | undefined, number | undefined, number | undefined, number | undefined][] {
  return s.messages.filter((m) => m.role === 'assistant').map((m) => [m.id, m.tokenUsage?.inputTokens, m.tokenUsage?.outputTokens, m.tokenUsage?.cachedTokens]);
}

function totals(events: readonly UsageEvent[]): { inputTokens: number; outputTokens: number; cacheReadTokens: number; requestCount: number } {
  const sum = (f: (u: UsageEvent) => number) => events.reduce((n, u) => n + f(u), 0);
  return { inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), requestCount: events.length };
}

describe('Gemini usage read before its message', () => {
  it.each([
    ['gemini_stage0_jsonl', [['g-assistant-1', 11855, 81, 0], ['g-assistant-2', 567, 147, 11502]]],
    ['two-turns', [['g1', 1000, 10, 0], ['g2', 1000, 30, 2000]]],
  ] as const)('%s: each reply carries its own tokens, none left over, the session totals as before', async (id, expected) => {
    const { session, usageEvents } = await sm.getWithUsage('gemini', id);
    expect(replies(session)).toEqual(expected);
    expect(session.raw?.orphanUsage).toEqual([]);
    expect(session.cost).toMatchObject(totals(usageEvents));
    expect(session.cost?.requestCount).toBe(expected.length);
    const messageUsd = session.messages.reduce((n, m) => n + (m.cost?.totalUsd ?? 0), 0);
    expect(messageUsd).toBeCloseTo(session.cost?.totalUsd ?? NaN, 12);
  });

  it('stream() gives the same messages as get()', async () => {
    for (const id of ['gemini_stage0_jsonl', 'two-turns']) {
      const stream = await sm.stream('gemini', id);
      const streamed = [];
      for await (const m of stream.messages()) streamed.push(m);
      expect(streamed).toEqual((await sm.get('gemini', id)).messages);
    }
  });
});
