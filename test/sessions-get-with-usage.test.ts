/**
 * `SessionManager.getWithUsage`, through the package root: `get()`'s session and the usage events its fold
 * kept, from one read, over the fixture home's sessions (real Claude and Codex files, sessionfold-jsonl ones).
 * The events are held to the session they came with: each dedup key once, exactly the keys and the token
 * totals of its messages' usage and its orphan usage, none of another session's (the subagent copies a Claude
 * parent's file holds), and every one written by the JSONL export.
 */
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import type { TokenCounts } from '../cursors/protocol/events.js';
import { createSessionManager, read, type Session, type SessionManager } from '../src/index.js';
import { PARENT_ID } from './claude-progress-helpers.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, EXPORT_IDS, FAKE_PRICER, makeFixtureHome, type Home } from './sessions-helpers.js';

/** A Claude 2.1 parent whose `agent_progress` lines copy its subagents' responses (fixtures/claude/progress). */
const PROGRESS = fileURLToPath(new URL('../fixtures/claude/progress/projects/', import.meta.url));

const FIELDS = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens', 'cacheWrite1hTokens'] as const;

function sum(rows: readonly TokenCounts[]): number[] {
  return FIELDS.map((f) => rows.reduce((n, r) => n + r[f], 0));
}

/** The session's usage as `get()` attached it: to its messages (keys `+`-joined) and as orphans. */
function attached(s: Session): { keys: string[]; tokens: number[] } {
  const rows = [...s.messages.flatMap((m) => (m.usage === undefined ? [] : [m.usage])), ...(s.raw?.orphanUsage ?? [])];
  return { keys: rows.flatMap((u) => u.dedupKey.split('+')).sort(), tokens: sum(rows) };
}

let home: Home;
let sm: SessionManager;
let sessions: [agent: string, id: string][] = [];

beforeAll(async () => {
  const made = await makeFixtureHome();
  home = made.home;
  await cp(PROGRESS, join(home.claude, 'projects'), { recursive: true });
  sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
  sessions = [
    ...Object.values(CLAUDE_COPIES).map((id) => ['claude', id] as [string, string]),
    ['claude', CLAUDE_SUBAGENT_PARENT],
    ['claude', PARENT_ID],
    ...made.codexIds.map((id) => ['codex', id] as [string, string]),
    ...[EXPORT_IDS.parent, EXPORT_IDS.fork, EXPORT_IDS.big].map((id) => ['sessionfold-jsonl', id] as [string, string]),
  ];
});

afterAll(async () => {
  if (home !== undefined) await rm(home.dir, { recursive: true, force: true });
});

describe('getWithUsage', () => {
  it("answers get()'s session with the usage events it is made of, each key once", async () => {
    let events = 0;
    for (const [agent, id] of sessions) {
      const { session, usageEvents } = await sm.getWithUsage(agent, id);
      expect(session, `${agent} ${id}`).toEqual(await sm.get(agent, id));
      const keys = usageEvents.map((u) => u.dedupKey);
      expect(new Set(keys).size, `${agent} ${id}: a key twice`).toBe(keys.length);
      const want = attached(session);
      expect([...keys].sort(), `${agent} ${id}`).toEqual(want.keys);
      expect(sum(usageEvents), `${agent} ${id}`).toEqual(want.tokens);
      events += usageEvents.length;
    }
    // the fixtures hold usage: a manager that answered no events would not pass by agreeing with itself
    expect(events).toBeGreaterThan(sessions.length);
  });

  it("leaves out the usage a parent's file holds for its subagents", async () => {
    const { session, usageEvents } = await sm.getWithUsage('claude', PARENT_ID);
    const inFile = new Set<string>();
    for await (const e of read('claude', session.raw?.file as string, { kinds: ['usage'] })) inFile.add(e.sessionId);
    expect(inFile.size, 'the file holds usage of other sessions').toBeGreaterThan(1);
    expect(usageEvents.length).toBeGreaterThan(0);
    expect(new Set(usageEvents.map((u) => u.sessionId))).toEqual(new Set([PARENT_ID]));
  });

  it('gives the events the JSONL export writes, with their origin keys', async () => {
    for (const [agent, id] of sessions) {
      const [{ usageEvents }, text] = await Promise.all([sm.getWithUsage(agent, id), sm.export(agent, id, 'jsonl')]);
      for (const u of usageEvents) expect(text, `${agent} ${id} ${u.dedupKey}`).toContain(JSON.stringify(u.dedupKey));
    }
  });

  it("fails as get() does for an unknown session or agent", async () => {
    for (const [agent, id, code] of [
      ['claude', 'no-such-session', 'SESSION_NOT_FOUND'],
      ['no-such-agent', 'x', 'AGENT_NOT_FOUND'],
    ] as const) {
      const e = await sm.getWithUsage(agent, id).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isSessionfoldError(e) && e.code, String(e)).toBe(code);
    }
  });
});
