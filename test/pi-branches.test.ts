/**
 * The pi engine on generated files: branches (near, deep, back to an abandoned leaf, a new root), resume
 * across them, forks counted once, raw reads, insane counts, omp's and OpenClaw's differences, and discovery.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { omp } from '../codecs/omp/index.js';
import { openclaw } from '../codecs/openclaw/index.js';
import { OPEN_BYTES, OPEN_NODES, pi } from '../codecs/pi/index.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent } from '../cursors/protocol/events.js';
import { parseSync } from '../cursors/sync.js';
import { generatePiSession } from '../fixtures/generate/pi.js';
import { Rng } from '../fixtures/generate/prng.js';
import { byKind, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { assistant, HEADER, jsonl, user, usages } from './pi-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-pi-branch-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function eventsOf(records: readonly unknown[], name = '2026-01-01T00-00-00-000Z_sess-1.jsonl', codec = pi): Promise<SessionfoldEvent[]> {
  const file = join(dir, name);
  await writeFile(file, jsonl(records));
  return readEvents(codec, file);
}

function texts(events: readonly SessionfoldEvent[]): string[] {
  return (byKind(events).message as MessageEvent[]).map((m) => m.text);
}

const NEAR = [HEADER, user('a', null, 'A'), assistant('b', 'a', 'B'), user('c', 'b', 'C'), assistant('d', 'c', 'D'), user('e', 'b', 'E'), assistant('f', 'e', 'F')];

describe('the branch that ends at the last entry', () => {
  it('a branch from an earlier entry leaves the abandoned messages out, and keeps their usage', async () => {
    const events = await eventsOf(NEAR);
    expect(texts(events)).toEqual(['A', 'B', 'E', 'F']);
    expect(usages(events).map((u) => u.messageId)).toEqual(['b', 'd', 'f']);
  });

  it('going back to an abandoned leaf makes its branch the branch again', async () => {
    expect(texts(await eventsOf([...NEAR, user('g', 'd', 'G')]))).toEqual(['A', 'B', 'C', 'D', 'G']);
  });

  it('resume at every line boundary equals a full read across the branch, and says which messages it replaces', async () => {
    const content = jsonl(NEAR);
    const r = await expectResumeEqualsFull(pi, content, lineBoundaries(content));
    expect(r.starts.every((s) => !s.restarted || s.reason === 'no-cursor')).toBe(true);
    await expectResumeEqualsFull(pi, content, lineBoundaries(content), { kinds: ['message', 'usage'] });
    expect(Math.max(...r.starts.map((s) => s.replaced.message ?? 0))).toBeGreaterThan(0);
  });

  it(`a branch back more than ${OPEN_NODES} entries restarts a resumed read, and the result still equals a full read`, async () => {
    const records: unknown[] = [HEADER];
    let parent: string | null = null;
    for (let i = 0; i < OPEN_NODES; i++) {
      records.push(user(`u${i}`, parent, `q${i}`), assistant(`a${i}`, `u${i}`, `r${i}`));
      parent = `a${i}`;
    }
    records.push(user('late', 'a0', 'back to the start'), assistant('late-a', 'late', 'again'));
    const content = jsonl(records);
    const r = await expectResumeEqualsFull(pi, content, lineBoundaries(content));
    expect(r.starts.some((s) => s.restarted && s.reason === 'id-collision')).toBe(true);
    expect(texts(r.full.message)).toEqual(['q0', 'r0', 'back to the start', 'again']);
    await expectResumeEqualsFull(pi, content, lineBoundaries(content), { kinds: ['message'] });
    expect(r.full.usage).toHaveLength(OPEN_NODES + 1);
  });

  it(`lines over ${OPEN_BYTES} bytes settle at once: the cursor stays small, resume still equals a full read`, async () => {
    const big = { type: 'message', id: 'r', parentId: 'b', timestamp: '2026-01-01T00:10:00.000Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'x'.repeat(OPEN_BYTES + 10) }], isError: false } };
    const content = jsonl([HEADER, user('a', null, 'A'), assistant('b', 'a', 'B'), big, user('c', 'r', 'C'), user('d', 'a', 'D')]);
    const r = await expectResumeEqualsFull(pi, content, lineBoundaries(content));
    expect(Math.max(...r.cursors.map((c) => JSON.stringify(c).length))).toBeLessThan(OPEN_BYTES);
    expect(texts(r.full.message)).toEqual(['A', 'D']);
    expect(r.starts.some((s) => s.restarted && s.reason === 'id-collision')).toBe(true);
  });

  it('a new root (parentId null) after settled entries restarts a resumed read too', async () => {
    const records: unknown[] = [HEADER];
    let parent: string | null = null;
    for (let i = 0; i < OPEN_NODES + 2; i++) {
      records.push(user(`u${i}`, parent, `q${i}`));
      parent = `u${i}`;
    }
    records.push(user('root2', null, 'fresh'));
    const content = jsonl(records);
    const r = await expectResumeEqualsFull(pi, content, lineBoundaries(content));
    expect(texts(r.full.message)).toEqual(['fresh']);
    expect(r.starts.some((s) => s.restarted && s.reason === 'id-collision')).toBe(true);
  });

  it('a session_info name is the title, also in a window of lines without the header', async () => {
    const name = { type: 'session_info', id: 'n', parentId: 'b', timestamp: '2026-01-02T00:00:00.000Z', name: ' Refactor ' };
    const all = byKind(await eventsOf([HEADER, user('a', null, 'A'), assistant('b', 'a', 'B'), name])).session as SessionEvent[];
    expect(all.map((e) => e.title)).toEqual([undefined, 'Refactor']);
    expect(all[1]?.cwd).toBe('/w/app');
    const tail = byKind(await eventsOf([assistant('b', 'a', 'B'), name], 'tail.jsonl')).session as SessionEvent[];
    expect(tail.map((e) => e.title)).toEqual(['Refactor']);
  });

  it('an entry whose parent is in no line of the file hangs under the last entry', async () => {
    expect(texts(await eventsOf([HEADER, user('a', 'nowhere', 'A'), assistant('b', 'a', 'B'), user('c', 'lost', 'C')]))).toEqual(['A', 'B', 'C']);
  });

  it('raw: every entry, on the branch or not, each event carrying its entry', async () => {
    const file = join(dir, 'raw.jsonl');
    const records = [...NEAR, { type: 'label', id: 'l', parentId: 'f', timestamp: '2026-01-02T00:00:00.000Z', targetId: 'a', label: 'x' }];
    await writeFile(file, jsonl(records));
    const events = await readEvents(pi, file, { raw: true });
    const msgs = byKind(events).message as (MessageEvent & { raw?: { id?: string } })[];
    expect(msgs.map((m) => m.raw?.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'l']);
    expect(msgs.at(-1)?.subtype).toBe('entry:label');
    const content = jsonl(records);
    await expectResumeEqualsFull(pi, content, lineBoundaries(content), { raw: true });
  });

  it('a usage-only read gives the same usage events as a full read, without parsing lines that hold none', async () => {
    const events = await eventsOf(NEAR);
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    expect(await readEvents(pi, join(dir, '2026-01-01T00-00-00-000Z_sess-1.jsonl'), { kinds: ['usage'], info })).toEqual(usages(events));
    expect(info.filteredLines).toBe(3);
  });
});

describe('usage', () => {
  it('a fork copies its parent entries: the same dedup keys, so the parent is counted once', async () => {
    const parentFile = join(dir, '2026-01-01T00-00-00-000Z_parent.jsonl');
    const parent = [{ ...HEADER, id: 'parent' }, user('a', null, 'A'), assistant('b', 'a', 'B', 100, 20, 0.5)];
    await writeFile(parentFile, jsonl(parent));
    const fork = [{ ...HEADER, id: 'fork', parentSession: parentFile }, ...parent.slice(1), user('c', 'b', 'C'), assistant('d', 'c', 'D', 7, 3)];
    const a = await readEvents(pi, parentFile);
    const b = await eventsOf(fork, '2026-01-02T00-00-00-000Z_fork.jsonl');
    expect((byKind(b).session[0] as SessionEvent).forkedFrom).toBe('parent');
    const keys = new Set([...usages(a), ...usages(b)].map((u) => u.dedupKey));
    expect(keys.size).toBe(2);
    expect(usages(b)[0]?.dedupKey).toBe(usages(a)[0]?.dedupKey);
    expect(usages(a)[0]?.costUsd).toBe(0.5);
  });

  it('a recorded cost of 0 is no cost (pi writes 0 for models it cannot price); insane counts never reach a total', async () => {
    const bad = (id: string, parentId: string, v: unknown) => {
      const e = assistant(id, parentId, 'X');
      return { ...e, message: { ...(e.message as object), usage: { input: v, output: 1 } } };
    };
    const events = await eventsOf([HEADER, assistant('a', null, 'A', 10, 5, 0), bad('n', 'a', -5), bad('f', 'n', 1.5), bad('h', 'f', 1e15), bad('s', 'h', '7'), bad('k', 's', true)]);
    const u = usages(events);
    expect(u).toHaveLength(1);
    expect(u[0]?.costUsd).toBeUndefined();
    expect(texts(events)).toEqual(['A', 'X', 'X', 'X', 'X', 'X']);
  });

  it('a prompt served wholly from cache through Kimi\u2019s Anthropic API (input -1 beside cache reads) keeps its other counts and cost', async () => {
    const kimi = (id: string, parentId: string | null, usage: object) => {
      const e = assistant(id, parentId, 'K');
      return { ...e, message: { ...(e.message as object), provider: 'kimi-coding', api: 'anthropic-messages', usage } };
    };
    const events = await eventsOf([
      HEADER,
      kimi('a', null, { input: -1, output: 50, cacheRead: 33_000, cacheWrite: 0, cost: { total: 0.005 } }),
      // without cache reads, or another negative, is damage still: the usage is dropped whole
      kimi('b', 'a', { input: -1, output: 60, cacheRead: 0, cacheWrite: 0 }),
      kimi('c', 'b', { input: -5, output: 70, cacheRead: 100, cacheWrite: 0 }),
    ]);
    const u = usages(events);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ inputTokens: 0, outputTokens: 50, cacheReadTokens: 33_000, cacheWriteTokens: 0, costUsd: 0.005 });
  });

  it('a v1 file: entries without ids link one after another; a response without a model takes the header model', async () => {
    const v1 = [
      { type: 'session', id: 'old', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w', provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
      { type: 'message', timestamp: '2025-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1 } },
      { type: 'message', timestamp: '2025-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'yo' }], usage: { input: 3, output: 4 }, timestamp: 2 } },
    ];
    const events = await eventsOf(v1, '2025-01-01T00-00-00-000Z_old.jsonl');
    expect(texts(events)).toEqual(['hi', 'yo']);
    expect(usages(events)[0]).toMatchObject({ model: 'claude-sonnet-4-5', modelFallback: true, provider: 'anthropic', dedupKey: 'pi:v1:2:claude-sonnet-4-5' });
  });
});

describe('omp and OpenClaw', () => {
  it('omp: the title slot and title_change, model_change {model: "provider/id"}, model_usage, session_init, ttsr_injection', async () => {
    const slot = { type: 'title', v: 1, title: 'Slot title', source: 'auto', updatedAt: '2026-01-01T00:00:00.000Z', pad: '      ' };
    const records = [
      slot,
      { ...HEADER, title: 'Header title' },
      { type: 'model_change', id: 'm', parentId: null, timestamp: '2026-01-01T00:00:00.500Z', model: 'anthropic/claude-sonnet-4-5', role: 'default' },
      { type: 'session_init', id: 'i', parentId: 'm', timestamp: '2026-01-01T00:00:00.550Z', systemPrompt: 'p', task: 't', tools: [], agent: 'scout' },
      { type: 'ttsr_injection', id: 't', parentId: 'i', timestamp: '2026-01-01T00:00:00.600Z', injectedRules: ['no-console'] },
      { type: 'model_usage', id: 'mu', parentId: 't', timestamp: '2026-01-01T00:00:00.700Z', purpose: 'title', api: 'openai-responses', provider: 'openai', model: 'gpt-5-mini', usage: { input: 50, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.001 } }, stopReason: 'stop' },
      { type: 'message', id: 'a', parentId: 'mu', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'A' }], usage: { input: 1, output: 2 }, timestamp: 5 } },
      { type: 'title_change', id: 'tc', parentId: 'a', timestamp: '2026-01-01T00:00:02.000Z', title: 'Renamed', source: 'user' },
    ];
    const events = await eventsOf(records, '2026-01-01T00-00-00-000Z_sess-1.jsonl', omp);
    const sessions = byKind(events).session as SessionEvent[];
    expect(sessions.map((e) => e.title)).toEqual(['Slot title', 'Slot title', 'Renamed']);
    expect(sessions.at(-1)).toMatchObject({ subagent: true, agentType: 'scout', sessionId: 'sess-1' });
    expect(byKind(events).message.map((m) => [(m as MessageEvent).subtype, (m as MessageEvent).text])).toEqual([['ttsr_injection', 'no-console'], [undefined, 'A']]);
    expect(usages(events).map((u) => [u.model, u.provider, u.modelFallback ?? false, u.costUsd, u.dedupKey])).toEqual([
      ['gpt-5-mini', 'openai', false, 0.001, 'omp:mu:2026-01-01T00:00:00.700Z'],
      ['claude-sonnet-4-5', 'anthropic', true, undefined, 'omp:a:5'],
    ]);
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    expect(await readEvents(omp, join(dir, '2026-01-01T00-00-00-000Z_sess-1.jsonl'), { kinds: ['usage'], info })).toEqual(usages(events));
    const content = jsonl(records);
    await expectResumeEqualsFull(omp, content, lineBoundaries(content));
  });

  it('OpenClaw: key, title, channel and subagents from sessions.json; reset archives found, deleted ones and backups not', async () => {
    const sessions = join(dir, 'oc', 'agents', 'main', 'sessions');
    await mkdir(sessions, { recursive: true });
    const t = [HEADER, user('a', null, 'hello'), assistant('b', 'a', 'hi')];
    await writeFile(join(sessions, 's1.jsonl'), jsonl(t));
    await writeFile(join(sessions, 's0.jsonl.reset.2026-01-01T10-00-00.000Z'), jsonl(t));
    await writeFile(join(sessions, 's9.jsonl.deleted.2026-01-01T10-00-00.000Z'), jsonl(t));
    await writeFile(join(sessions, 's1.jsonl.bak.2026-01-01T10-00-00.000Z'), jsonl(t));
    await writeFile(join(sessions, 's2.jsonl'), jsonl(t));
    await writeFile(
      join(sessions, 'sessions.json'),
      JSON.stringify({
        'agent:main:telegram:group:42': { sessionId: 's1', label: 'Team chat', channel: 'telegram', updatedAt: 1 },
        'agent:main:subagent:abc': { sessionId: 's2', spawnedBy: 'agent:main:telegram:group:42', updatedAt: 2 },
      }),
    );
    const files = [];
    for await (const f of openclaw.discover([join(dir, 'oc')])) files.push([f.sessionId, f.subagent === true]);
    expect(files).toEqual([['s0', false], ['s1', false], ['s2', true]]);
    const [sub] = byKind(await readEvents(openclaw, join(sessions, 's2.jsonl'))).session as SessionEvent[];
    expect(sub).toMatchObject({ sessionId: 's2', subagent: true, forkedFrom: 's1', sessionKey: 'agent:main:subagent:abc' });
    const [s] = byKind(await readEvents(openclaw, join(sessions, 's1.jsonl'))).session as (SessionEvent & { sessionKey?: string; channel?: string })[];
    expect(s).toMatchObject({ sessionId: 's1', title: 'Team chat', sessionKey: 'agent:main:telegram:group:42', channel: 'telegram' });
    expect(openclaw.getParseDependencies(join(sessions, 's1.jsonl'))).toEqual([join(sessions, 'sessions.json')]);
    const viaCore = parseSync(openclaw.lineCoreFor!(join(sessions, 's1.jsonl'))!, await readFile(join(sessions, 's1.jsonl')), { file: join(sessions, 's1.jsonl') });
    expect(viaCore).toEqual(await readEvents(openclaw, join(sessions, 's1.jsonl')));
    const archived = await readEvents(openclaw, join(sessions, 's0.jsonl.reset.2026-01-01T10-00-00.000Z'));
    expect(archived.every((e) => e.sessionId === 's0')).toBe(true);
    expect(texts(archived)).toEqual(['hello', 'hi']);
  });

  it('pi discovers `<root>/--<cwd>--/<time>_<id>.jsonl` under its variable, which omp leaves to pi (test/omp-roots.test.ts)', async () => {
    const agentDir = join(dir, 'pi-agent');
    await mkdir(join(agentDir, 'sessions', '--w-app--'), { recursive: true });
    await writeFile(join(agentDir, 'sessions', '--w-app--', '2026-01-01T00-00-00-000Z_sess-1.jsonl'), jsonl(NEAR));
    const roots = pi.defaultRoots({ HOME: '/nowhere', PI_CODING_AGENT_DIR: agentDir });
    expect(omp.defaultRoots({ HOME: '/h' })).toContain('/h/.omp/agent/sessions');
    expect(omp.defaultRoots({ HOME: '/h', PI_CODING_AGENT_DIR: '~/o' })).not.toContain('/h/o/sessions');
    const found = [];
    for await (const f of pi.discover(roots)) found.push(f.sessionId);
    expect(found).toEqual(['sess-1']);
    expect((await pi.locate?.(roots, 'sess-1'))?.path).toContain('--w-app--');
    expect(await pi.locate?.(roots, '../x')).toBeUndefined();
  });
});

describe('the bench generator (fixtures/generate/pi.ts)', () => {
  it('reads a generated session (branches, tool results, compactions) to the totals it wrote, resumed or not', async () => {
    const s = generatePiSession(join(dir, 'generated', '2026-05-01T09-00-00-000Z_gen.jsonl'), 1_500_000, new Rng('pi-test'));
    const content = await readFile(s.path);
    let branches = 0;
    let previous: string | null = null;
    for (const l of content.toString('utf8').split('\n').filter((x) => x !== '')) {
      const e = JSON.parse(l) as { id?: string; parentId?: string | null; type: string };
      if (e.type !== 'session' && e.parentId !== previous) branches++;
      if (e.id !== undefined) previous = e.id;
    }
    expect(branches, 'the session holds branches').toBeGreaterThan(0);
    const full = await readEvents(pi, s.path);
    const u = usages(full);
    expect({
      responses: u.length,
      input: u.reduce((a, e) => a + e.inputTokens, 0),
      cacheRead: u.reduce((a, e) => a + e.cacheReadTokens, 0),
      cacheWrite: u.reduce((a, e) => a + e.cacheWriteTokens, 0),
      output: u.reduce((a, e) => a + e.outputTokens, 0),
      costMicroUsd: u.reduce((a, e) => a + Math.round((e.costUsd ?? 0) * 1e6), 0),
    }).toEqual(s.totals);
    expect(s.totals.responses).toBeGreaterThan(50);
    expect(await readEvents(pi, s.path, { kinds: ['usage'] })).toEqual(byKind(full).usage);
    await expectResumeEqualsFull(pi, content, randomCuts(content.length, 12, 5));
  });
});
