import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { SCAN_MIN_FILES } from '../src/sessions/usage-scan.js';
import type { SessionSummary } from '../src/sessions/types.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, EXPORT_IDS, FAKE_PRICER, HAS_CLAUDE, HAS_CODEX, writeExportSession, type Home } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';

const AGENT = 'sessionfold-jsonl';

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isSessionfoldError(e), `expected ${code}, got ${String(e)}`).toBe(true);
  expect((e as { code: string }).code).toBe(code);
}

let home: Home;
let sm: SessionManager;
let codexIds: string[] = [];

fixtureManager(
  (f) => ({ home, sm, codexIds } = f),
  (h) => writeFile(h.env.SESSIONFOLD_TAGS as string, JSON.stringify({ [`${AGENT}:${EXPORT_IDS.fork}`]: ['docs'], 'cwd:/work/big': ['bulk'] })),
);

const ids = (rows: SessionSummary[]) => rows.map((r) => r.sessionId);

describe('list', () => {
  it('lists every readable session, newest first, and leaves out a file with no valid line', async () => {
    const rows = await sm.list(AGENT);
    expect(ids(rows)).toEqual([EXPORT_IDS.escaped, EXPORT_IDS.other, EXPORT_IDS.big, EXPORT_IDS.fork, EXPORT_IDS.parent]);
    expect(rows[3]).toMatchObject({
      agent: AGENT,
      unifiedId: `${AGENT}:${EXPORT_IDS.fork}`,
      title: 'Refactor the auth middleware',
      turnCount: 3,
      messageCount: 8,
      model: 'claude-sonnet-4-5', // two requests each for sonnet and opus: the first model seen wins the tie
      cwd: '/work/app/sub',
      forkedFrom: EXPORT_IDS.parent,
      tags: ['docs'],
      exact: true,
    });
    expect(rows[3]?.createdAt.toISOString()).toBe('2026-01-02T09:00:00.000Z');
    expect(rows[3]?.updatedAt.toISOString()).toBe('2026-01-02T09:02:05.000Z');
    // $1/M input + $2/M output over the fork's own two responses; its two copies of the parent's apart.
    expect(rows[3]?.cost).toMatchObject({ requestCount: 2, inputTokens: 5000 + 6000, outputTokens: 900 + 20 });
    expect(rows[3]?.cost?.totalUsd).toBeCloseTo((5000 + 6000 + 2 * (900 + 20)) / 1e6, 12);
    expect(rows[3]?.copiedCost).toMatchObject({ requestCount: 2, inputTokens: 1000 + 2000, outputTokens: 500 + 300 });
    expect(rows[3]?.copiedCost?.totalUsd).toBeCloseTo((1000 + 2000 + 2 * (500 + 300)) / 1e6, 12);
    expect(rows[4]?.copiedCost).toBeUndefined();
  });

  it('summarizes a large file from its head and tail only, and exactly with full', async () => {
    const big = (await sm.list(AGENT)).find((r) => r.sessionId === EXPORT_IDS.big) as SessionSummary;
    expect(big.sizeBytes).toBeGreaterThan(FULL_PEEK_BYTES);
    expect(big.exact).toBe(false);
    expect(big.cost).toBeUndefined();
    expect(big.title).toMatch(/^Question 0: lorem ipsum/);
    expect(big.model).toBe('model-late'); // from the tail
    expect(big.updatedAt.toISOString()).toBe(new Date(Date.UTC(2026, 0, 3, 8, 0, 598)).toISOString());
    expect(big.messageCount).toBeLessThan(600);
    const [full] = await sm.list(AGENT, { full: true, cwd: '/work/big' });
    expect(full).toMatchObject({ exact: true, messageCount: 600, turnCount: 300, title: big.title, tags: ['bulk'] });
    expect(full?.cost?.requestCount).toBe(300);
    expect(full?.model).toBe('model-early'); // a tie on requests keeps the first model seen
  });

  it('folds returned sessions whole within an exactBytes budget, larger ones stay lazy', async () => {
    const lazy = (await sm.list(AGENT)).find((r) => r.sessionId === EXPORT_IDS.big) as SessionSummary;
    const tight = await sm.list(AGENT, { exactBytes: lazy.sizeBytes - 1 });
    expect(tight.find((r) => r.sessionId === EXPORT_IDS.big)?.exact).toBe(false);
    const enough = await sm.list(AGENT, { exactBytes: lazy.sizeBytes });
    expect(enough.find((r) => r.sessionId === EXPORT_IDS.big)).toMatchObject({ exact: true, messageCount: 600 });
    await rejectsWith(sm.list(AGENT, { exactBytes: -1 }), 'INVALID_OPTION');
  });

  it('has counts equal to get() for every exact summary', async () => {
    for (const s of await sm.list(AGENT, { full: true })) {
      const g = await sm.get(AGENT, s.sessionId);
      expect([s.messageCount, s.turnCount, s.title, s.model]).toEqual([g.messages.length, g.turnCount, g.title, g.model]);
      expect(s.cost?.totalUsd).toEqual(g.cost?.totalUsd);
    }
  });

  it('filters by since, until, cwd (directory and below), model (substring) and tags (any)', async () => {
    expect(ids(await sm.list(AGENT, { since: new Date('2026-01-02T00:00:00Z'), until: new Date('2026-01-04T23:59:59Z') }))).toEqual([EXPORT_IDS.other, EXPORT_IDS.big, EXPORT_IDS.fork]);
    expect(ids(await sm.list(AGENT, { cwd: '/work/app' }))).toEqual([EXPORT_IDS.fork, EXPORT_IDS.parent]);
    expect(ids(await sm.list(AGENT, { cwd: '/work/ap' }))).toEqual([]);
    expect(ids(await sm.list(AGENT, { model: 'OPUS' }))).toEqual([EXPORT_IDS.fork]);
    // model-early only appears in the middle of the big file: the usage read finds it.
    expect(ids(await sm.list(AGENT, { model: 'model-early' }))).toEqual([EXPORT_IDS.big]);
    expect(ids(await sm.list(AGENT, { tags: ['nope', 'bulk'] }))).toEqual([EXPORT_IDS.big]);
  });

  it('sorts by cost and turns, both directions, reading only what it needs', async () => {
    const byCost = await sm.list(AGENT, { sort: 'cost' });
    expect(ids(byCost)).toEqual([EXPORT_IDS.big, EXPORT_IDS.fork, EXPORT_IDS.parent, EXPORT_IDS.other, EXPORT_IDS.escaped]);
    expect(byCost[0]).toMatchObject({ exact: false }); // cost from a usage-only read, counts still lazy
    expect(byCost[0]?.cost?.requestCount).toBe(300);
    expect(byCost.map((r) => r.cost?.totalUsd)).toEqual([...byCost.map((r) => r.cost?.totalUsd)].sort((a, b) => (b ?? -1) - (a ?? -1)));
    expect(ids(await sm.list(AGENT, { sort: 'turns', sortDirection: 'asc' }))).toEqual([EXPORT_IDS.other, EXPORT_IDS.escaped, EXPORT_IDS.parent, EXPORT_IDS.fork, EXPORT_IDS.big]);
    expect(ids(await sm.list(AGENT, { sortDirection: 'asc', limit: 2 }))).toEqual([EXPORT_IDS.parent, EXPORT_IDS.fork]);
  });

  it('throws AGENT_NOT_FOUND for an unknown agent and gives [] when the agent has no storage', async () => {
    await rejectsWith(sm.list('no-such-agent'), 'AGENT_NOT_FOUND');
    const empty = createSessionManager({ env: { ...home.env, SESSIONFOLD_EXPORT_DIR: join(home.dir, 'missing') }, pricer: FAKE_PRICER });
    expect(await empty.list(AGENT)).toEqual([]);
  });

  it('rejects bad options with INVALID_OPTION', async () => {
    await rejectsWith(sm.list(AGENT, { limit: 0 }), 'INVALID_OPTION');
    await rejectsWith(sm.list(AGENT, { sort: 'size' as never }), 'INVALID_OPTION');
    await rejectsWith(sm.list(AGENT, { since: new Date('nope') }), 'INVALID_OPTION');
  });
});

describe('get', () => {
  it('returns the whole session: messages, tool calls with results, usage and cost per message', async () => {
    const s = await sm.get(AGENT, EXPORT_IDS.parent);
    expect(s).toMatchObject({ agent: AGENT, sessionId: EXPORT_IDS.parent, unifiedId: `${AGENT}:${EXPORT_IDS.parent}`, title: 'Refactor the auth middleware', turnCount: 2, cwd: '/work/app', model: 'claude-sonnet-4-5' });
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    const a1 = s.messages[1];
    expect(a1?.toolCalls).toEqual([{ toolCallId: 'call_1', toolName: 'Bash', input: { command: 'ls src/auth' }, output: 'auth.ts\nmiddleware.ts' }]);
    expect(a1?.thinking).toBe('Look at verifyToken first.');
    expect(a1?.tokenUsage).toEqual({ inputTokens: 1000, outputTokens: 500, thinkingTokens: 0, cachedTokens: 0 });
    expect(a1?.cost?.totalUsd).toBeCloseTo(2000 / 1e6, 12);
    expect(s.messages[2]?.toolResult).toEqual({ toolCallId: 'call_1', toolName: 'Bash', output: 'auth.ts\nmiddleware.ts' });
    expect(s.cost?.totalUsd).toBeCloseTo((6000 + 2 * 900) / 1e6, 12);
    expect(s.costByModel?.['claude-sonnet-4-5']?.requestCount).toBe(3);
    expect(s.raw).toMatchObject({ parser: expect.stringMatching(/^sessionfold-jsonl@n\d+\.p\d+$/), skippedLines: 0, lines: 7 });
    expect(s.raw?.file).toBe(join(home.exports, `${EXPORT_IDS.parent}.jsonl`));
    expect(s.raw?.sessionEvents[0]).toMatchObject({ type: 'session', version: 'claude' });
  });

  it('reports unpriced usage instead of pricing it at $0', async () => {
    const s = await sm.get(AGENT, EXPORT_IDS.other);
    expect(s.cost).toMatchObject({ totalUsd: 0, requestCount: 1, unpricedCount: 1 });
  });

  it('throws SESSION_NOT_FOUND, AGENT_NOT_FOUND and PARSE_ERROR as the spec says', async () => {
    await rejectsWith(sm.get(AGENT, 'does-not-exist'), 'SESSION_NOT_FOUND');
    await rejectsWith(sm.get('nope', 'x'), 'AGENT_NOT_FOUND');
    await rejectsWith(sm.get(AGENT, EXPORT_IDS.broken), 'PARSE_ERROR');
    await rejectsWith(sm.export(AGENT, 'does-not-exist', 'json'), 'SESSION_NOT_FOUND');
    await rejectsWith(sm.diff({ agent: AGENT, sessionId: EXPORT_IDS.parent }, { agent: AGENT, sessionId: 'gone' }), 'SESSION_NOT_FOUND');
  });

  it('gives an empty session, not an error, for an empty file', async () => {
    await writeFile(join(home.exports, 'empty-1.jsonl'), '');
    const s = await sm.get(AGENT, 'empty-1');
    expect(s.messages).toEqual([]);
    expect((await sm.list(AGENT)).map((r) => r.sessionId)).not.toContain('empty-1');
  });
});

describe('diff', () => {
  it('aligns a fork against its parent: shared history unchanged, the new branch modified and added', async () => {
    const d = await sm.diff({ agent: AGENT, sessionId: EXPORT_IDS.parent }, { agent: AGENT, sessionId: EXPORT_IDS.fork });
    expect(d.a).toEqual({ agent: AGENT, sessionId: EXPORT_IDS.parent, unifiedId: `${AGENT}:${EXPORT_IDS.parent}` });
    expect(d.operations.map((o) => [o.type, o.indexA, o.indexB])).toEqual([
      ['unchanged', 0, 0],
      ['unchanged', 1, 1],
      ['unchanged', 2, 2],
      ['unchanged', 3, 3],
      ['modification', 4, 4],
      ['modification', 5, 5],
      ['addition', undefined, 6],
      ['addition', undefined, 7],
    ]);
    expect(d.stats).toEqual({ removals: 0, additions: 2, modifications: 2, unchanged: 4 });
    expect(d.operations[4]?.messageB?.content).toBe('Now add docs');
  });

  it.runIf(HAS_CLAUDE)('works across agents', async () => {
    const d = await sm.diff({ agent: 'claude', sessionId: CLAUDE_SUBAGENT_PARENT }, { agent: AGENT, sessionId: EXPORT_IDS.parent });
    expect(d.a.agent).toBe('claude');
    expect(d.b.agent).toBe(AGENT);
    expect(d.stats.unchanged + d.stats.modifications + d.stats.additions).toBe(6);
  });
});

describe.runIf(HAS_CLAUDE)('over the real Claude fixtures', () => {
  it('lists each session once (subagents only on request), found by its file name', async () => {
    const rows = await sm.list('claude');
    expect(ids(rows).sort()).toEqual([...Object.values(CLAUDE_COPIES), CLAUDE_SUBAGENT_PARENT].sort());
    const withSub = await sm.list('claude', { subagents: true });
    expect(withSub.find((r) => r.subagent === true)?.sessionId).toMatch(/^agent-/);
  });

  it('agrees with get() once read whole, for every fixture', async () => {
    for (const s of await sm.list('claude', { full: true })) {
      const g = await sm.get('claude', s.sessionId);
      expect([s.sessionId, s.messageCount, s.turnCount, s.title]).toEqual([g.sessionId, g.messages.length, g.turnCount, g.title]);
      expect(s.cost?.totalUsd).toEqual(g.cost?.totalUsd);
    }
  });

  it('keeps a lazy summary of the large real session consistent with the full one', async () => {
    const id = CLAUDE_COPIES['vibecodingtracker-real-session-v1.0.95-zh.jsonl'] as string;
    const lazy = (await sm.list('claude')).find((r) => r.sessionId === id) as SessionSummary;
    const full = (await sm.list('claude', { full: true })).find((r) => r.sessionId === id) as SessionSummary;
    expect(lazy.exact).toBe(false);
    expect([lazy.title, lazy.cwd, lazy.createdAt, lazy.updatedAt, lazy.model]).toEqual([full.title, full.cwd, full.createdAt, full.updatedAt, full.model]);
    expect(lazy.messageCount).toBeLessThanOrEqual(full.messageCount);
    expect(full.messageCount).toBe((await sm.get('claude', id)).messages.length);
  });

  it('throws PARSE_ERROR for a file that is not a Claude transcript', async () => {
    const id = '55555555-5555-4555-8555-555555555555';
    await writeFile(join(home.claude, 'projects', '-tmp-proj', `${id}.jsonl`), 'garbage\nmore garbage\n');
    await rejectsWith(sm.get('claude', id), 'PARSE_ERROR');
    expect(ids(await sm.list('claude'))).not.toContain(id);
  });
});

describe.runIf(HAS_CODEX)('over the real Codex fixtures', () => {
  it('lists and gets every rollout by its thread id', async () => {
    const rows = await sm.list('codex', { full: true });
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(codexIds).toContain(r.sessionId);
      const g = await sm.get('codex', r.sessionId);
      expect(g.messages.length).toBe(r.messageCount);
    }
  });
});

describe('list over many large sessions (scan engine)', () => {
  it('sorts by cost with exact costs from the event cache, cold and warm, equal to get()', async () => {
    const root = join(home.dir, 'many');
    await mkdir(root, { recursive: true });
    const filler = 'x'.repeat(1200);
    for (let i = 0; i < SCAN_MIN_FILES + 2; i++) {
      const msgs = [];
      for (let k = 0; k < 60; k++) {
        msgs.push({ role: 'user' as const, content: `q${k} ${filler}`, timestamp: new Date(Date.UTC(2026, 3, 1 + i, 0, k)).toISOString() });
        msgs.push({ role: 'assistant' as const, content: `a${k} ${filler}`, id: `m${i}-${k}`, model: k % 3 === 0 ? 'gpt-5' : 'claude-sonnet-4-5', usage: { model: k % 3 === 0 ? 'gpt-5' : 'claude-sonnet-4-5', inputTokens: 10 * i + k, outputTokens: i, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: `many:${i}:${k}` } });
      }
      await writeExportSession(root, { agent: 'x', sessionId: `many-${i}` }, msgs);
    }
    const many = createSessionManager({ env: { ...home.env, SESSIONFOLD_EXPORT_DIR: root }, pricer: FAKE_PRICER });
    for (const pass of ['cold', 'warm']) {
      const rows = await many.list(AGENT, { sort: 'cost', limit: 5 });
      expect(rows.map((r) => r.sessionId), pass).toEqual(['many-33', 'many-32', 'many-31', 'many-30', 'many-29']);
      for (const r of rows) {
        expect(r.exact).toBe(false);
        const g = await many.get(AGENT, r.sessionId);
        expect(r.cost, pass).toEqual(g.cost);
        expect(r.model).toBe(g.model);
      }
      expect(ids(await many.list(AGENT, { model: 'gpt-5', limit: 100 }))).toHaveLength(SCAN_MIN_FILES + 2);
    }
    expect((await stat(join(home.dir, '.cache', 'sessionfold', 'events.db'))).size).toBeGreaterThan(0);
  });
});

describe('totalCost', () => {
  it("is the cost module's fold over the same files, counting a response shared by a fork once", async () => {
    const real = createSessionManager({ env: home.env });
    const total = await real.totalCost({ agent: AGENT, cache: false });
    const byKey = new Map<string, number>();
    for (const s of await real.list(AGENT, { full: true })) {
      for (const m of (await real.get(AGENT, s.sessionId)).messages) if (m.usage !== undefined) byKey.set(m.usage.dedupKey, m.cost?.totalUsd ?? 0);
    }
    expect(byKey.has('k:a1')).toBe(true); // in both the parent and the fork
    expect(total.requestCount).toBe(byKey.size);
    expect(total.totalUsd).toBeCloseTo([...byKey.values()].reduce((a, b) => a + b, 0), 9);
  });
});

describe('resume', () => {
  it.runIf(HAS_CLAUDE)("gives the agent's own command and the session's directory", async () => {
    const r = await sm.resumeCommand('claude', CLAUDE_SUBAGENT_PARENT);
    expect(r.argv).toEqual(['claude', '--resume', CLAUDE_SUBAGENT_PARENT]);
    expect(r.cwd).toBe('/tmp');
  });

  it.runIf(HAS_CODEX)('gives codex its own resume command too', async () => {
    const id = '019fc8be-3658-7ca3-9e29-000000000000';
    expect(codexIds).toContain(id);
    expect(await sm.resumeCommand('codex', id)).toMatchObject({ argv: ['codex', 'resume', id], cwd: '/tmp/repo' });
  });

  it('says so when the agent has no resume command', async () => {
    await rejectsWith(sm.resumeCommand(AGENT, EXPORT_IDS.parent), 'USAGE_ERROR');
  });
});

describe('a codec registered later', () => {
  it('is listed, read and searched through the registry alone', async () => {
    const { registerCodec } = await import('../src/registry.js');
    const { sessionfoldJsonl } = await import('../codecs/sessionfold-jsonl/index.js');
    const root = join(home.dir, 'plugin');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'p-1.jsonl'), `${JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: 'p-1' })}\n${JSON.stringify({ type: 'sessionfold.message', index: 0, role: 'user', content: 'plugin hello' })}\n`);
    registerCodec({ ...sessionfoldJsonl, id: 'plugin-agent', aliases: ['plug'], displayName: 'Plugin', defaultRoots: () => [root] }, 'plugin-adapter');
    const plugin = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
    expect(ids(await plugin.list('plug'))).toEqual(['p-1']);
    expect((await plugin.get('plugin-adapter', 'p-1')).unifiedId).toBe('plugin-agent:p-1');
    expect(plugin.resolveNativeId('plugin-adapter:p-1')).toEqual({ agent: 'plugin-agent', nativeSessionId: 'p-1' });
    expect(ids(await plugin.search({ text: 'plugin hello' }))).toEqual(['p-1']);
    expect((await stat(join(root, 'p-1.jsonl'))).size).toBeGreaterThan(0);
  });
});

describe('totalCost with the manager’s own pricer', () => {
  it('prices the totals with it, as it prices sessions', async () => {
    const flat = createSessionManager({ env: home.env, pricer: { price: () => ({ usd: 1 }) } });
    const total = await flat.totalCost({ agent: AGENT, cache: false });
    expect(total.requestCount).toBeGreaterThan(0);
    expect(total.totalUsd).toBe(total.requestCount);
    const cached = await flat.totalCost({ agent: AGENT });
    expect(cached.totalUsd).toBe(total.requestCount);
  });
});
