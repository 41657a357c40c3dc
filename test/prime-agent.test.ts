/**
 * Prime Agent (codecs/prime-agent): pi's files under `~/.prime/agent`, with RLM children and an Act lane in the
 * `session-artifacts` tree and a fork that Prime wrote with the parent's aggregate usage in it. The fixture
 * (fixtures/prime-agent/, README there) is read to golden events, in chunks and resumed at every line, and its
 * usage is held to a deliberately simple reader that applies Prime's own rule; the built CLI reads it under an
 * isolated HOME and changes nothing there. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/prime-agent.test.ts`.
 */
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { primeAgent } from '../codecs/prime-agent/index.js';
import { createPiCore } from '../codecs/pi/index.js';
import { capUsage, type UsageCap } from '../codecs/pi/rlm.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { usageEventOf } from '../cursors/protocol/events.js';
import { parseSync } from '../cursors/sync.js';
import { byKind, discoverAll, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { cliJson, isolatedHome } from './helpers/isolated-home.js';
import { EXPECTED_DIR, usages } from './pi-helpers.js';

const AGENT = fileURLToPath(new URL('../fixtures/prime-agent/agent/', import.meta.url));
const P = '0198f3a2-5c10-7a41-9b2e-3d4c5e6f7a01';
const C = '0198f3a4-0e21-7c52-8a3f-4e5d6f7a8b02';
const F = '0198f3b0-7d32-7e63-9c4a-5f6e7a8b9c03';
const L = '0198f3a6-1f43-7f74-8d5b-6a7f8b9cad04';
/** Each fixture session by the name of its golden file, relative to the agent dir. */
const FILES = {
  root: `sessions/${P}.jsonl`,
  fork: `sessions/${F}.jsonl`,
  child: `session-artifacts/${P}/sub-1a2b3c4d/${C}.jsonl`,
  'act-lane': `session-artifacts/${P}/act/session.jsonl`,
} as const;
const EACH = Object.entries(FILES);
const path = (rel: string) => join(AGENT, rel);
/** A fixture file's text (they are small). */
const text = (rel: string) => readFileSync(path(rel), 'utf8');

type Obj = Record<string, unknown>;
type Usage = { input: number; output: number; cacheRead: number; cacheWrite: number; cost?: { total?: number } };
const COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/**
 * The deliberately simple reader: Prime's own scan (`foldSessionScanLine` / `snapshotSessionInfo`), per file: each
 * assistant message's usage, replaced by the last aggregate attributed to it, less every child usage attributed
 * to it, plus the usage of compactions and branch summaries; a response copied into several files once.
 */
async function primeTotals(files: readonly string[]): Promise<{ requests: number; tokens: Record<(typeof COUNTS)[number], number>; usd: number }> {
  const seen = new Map<string, Usage>();
  for (const f of files) {
    const recs = (await readFile(f, 'utf8')).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Obj);
    const own = new Map<string, Usage>();
    const key = new Map<string, string>();
    for (const r of recs) {
      const msg = r.message as { role?: string; usage?: Usage; timestamp?: number } | undefined;
      if (r.type === 'message' && msg?.role === 'assistant' && msg.usage) {
        own.set(r.id as string, { ...msg.usage });
        key.set(r.id as string, `${r.id as string}:${msg.timestamp}`);
      } else if ((r.type === 'compaction' || r.type === 'branch_summary') && r.usage) {
        own.set(r.id as string, { ...(r.usage as Usage) });
        key.set(r.id as string, `${r.id as string}:${r.timestamp as string}`);
      }
    }
    const attributed = recs.filter((r) => r.type === 'child_usage_attributed' && own.has(r.targetId as string));
    for (const a of attributed) own.set(a.targetId as string, { ...(a.aggregateUsage as Usage) });
    for (const a of attributed) {
      const u = own.get(a.targetId as string)!;
      const child = a.childUsage as Usage;
      for (const k of COUNTS) u[k] -= child[k];
      u.cost = { total: (u.cost?.total ?? 0) - (child.cost?.total ?? 0) };
    }
    for (const [id, u] of own) if (!seen.has(key.get(id)!)) seen.set(key.get(id)!, u);
  }
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let usd = 0;
  for (const u of seen.values()) {
    for (const k of COUNTS) tokens[k] += u[k];
    usd += u.cost?.total ?? 0;
  }
  return { requests: seen.size, tokens, usd };
}

const sessionOf = (events: readonly SessionfoldEvent[]) => byKind(events).session.at(-1) as SessionEvent;

describe('prime-agent: roots and the agent\'s own variables', () => {
  it.each([
    [{}, ['/h/.prime/agent/sessions']],
    [{ PRIME_AGENT_CODING_AGENT_DIR: '~/p' }, ['/h/p/sessions']],
    [{ PRIME_AGENT_SESSION_DIR: '/x/s', PRIME_AGENT_CODING_AGENT_DIR: '/a' }, ['/x/s', '/a/sessions']],
    [{ PRIME_AGENT_CODING_AGENT_SESSION_DIR: '~/old' }, ['/h/old', '/h/.prime/agent/sessions']],
    [{ PRIME_AGENT_SESSION_DIR: '/new', PRIME_AGENT_CODING_AGENT_SESSION_DIR: '/old' }, ['/new', '/h/.prime/agent/sessions']],
    [{ PRIME_AGENT_SESSION_DIR: ' ', PRIME_AGENT_CODING_AGENT_SESSION_DIR: '/old' }, ['/old', '/h/.prime/agent/sessions']],
    [{ SESSIONFOLD_PRIME_AGENT_DIR: '/s1,~/s2', PRIME_AGENT_SESSION_DIR: '/new' }, ['/s1', '/h/s2']],
    [{ PI_CODING_AGENT_DIR: '/p', PI_CODING_AGENT_SESSION_DIR: '/q' }, ['/h/.prime/agent/sessions']],
  ] as [NodeJS.ProcessEnv, string[]][])('%j', (env, roots) => {
    expect(primeAgent.defaultRoots({ HOME: '/h', ...env })).toEqual(roots);
  });

  it('follows the settings\' sessionDir when no variable moves the folder', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sf-prime-settings-'));
    try {
      await mkdir(join(home, '.prime', 'agent'), { recursive: true });
      await writeFile(join(home, '.prime', 'agent', 'settings.json'), JSON.stringify({ sessionDir: '~/elsewhere' }));
      expect(primeAgent.defaultRoots({ HOME: home })).toEqual([join(home, 'elsewhere'), join(home, '.prime', 'agent', 'sessions')]);
      expect(primeAgent.defaultRoots({ HOME: home, PRIME_AGENT_SESSION_DIR: '/env' })).toEqual(['/env', join(home, '.prime', 'agent', 'sessions')]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('prime-agent: discovery', () => {
  it('lists the sessions folder and its artifacts tree: children and Act lanes as subagents, no ledger', async () => {
    const found = await discoverAll(primeAgent, [join(AGENT, 'sessions')]);
    expect(found.map((f) => [relative(AGENT, f.path), f.sessionId, f.subagent === true])).toEqual([
      [FILES.root, P, false],
      [FILES.fork, F, false],
      [FILES['act-lane'], undefined, true],
      [FILES.child, C, true],
    ]);
    expect((await primeAgent.locate!([join(AGENT, 'sessions')], C))?.path).toBe(path(FILES.child));
    expect((await primeAgent.locate!([join(AGENT, 'sessions')], F))?.path).toBe(path(FILES.fork));
    expect(await primeAgent.locate!([join(AGENT, 'sessions')], '../x')).toBeUndefined();
  });
});

describe('prime-agent: fixture events', () => {
  it.each(EACH)('%s: golden events, the same in chunks of any size, usage alike in a usage-only read', async (name, rel) => {
    const events = await expectChunkInvariant(primeAgent, path(rel));
    await expectGolden(join(EXPECTED_DIR, 'prime-agent'), name, events);
    expect(await expectChunkInvariant(primeAgent, path(rel), { kinds: ['usage'] })).toEqual(byKind(events).usage);
    expect(usages(events).every((u) => u.agent === 'prime-agent' && u.dedupKey.startsWith('prime-agent:') && (u.costUsd ?? 0) > 0)).toBe(true);
  });

  it.each(EACH)('%s: a read resumed at every line boundary equals one full read (all kinds, and usage only)', async (_name, rel) => {
    const content = await readFile(path(rel));
    await expectResumeEqualsFull(primeAgent, content, lineBoundaries(content), {}, rel.split('/').pop());
    await expectResumeEqualsFull(primeAgent, content, lineBoundaries(content), { kinds: ['session', 'usage'] }, rel.split('/').pop());
  });

  it('an attribution more than OPEN_NODES calls after its target: a usage-only read resumed at any line equals a whole one', async () => {
    const lines = text(FILES.root).split('\n').filter((l) => l !== '');
    const at = (id: string) => lines.findIndex((l) => l.includes(`"id":"${id}"`));
    const reply = lines[at('e000000c')] as string;
    let parent = 'e0000006';
    const calls = Array.from({ length: 70 }, (_, i) => {
      const id = `f${String(i).padStart(7, '0')}`;
      const line = reply.replace('"id":"e000000c"', `"id":"${id}"`).replace(/"parentId":"[^"]*"/, `"parentId":"${parent}"`);
      parent = id;
      return line;
    });
    const attributions = [lines[at('e0000007')], lines[at('e0000008')]].map((l) => (l as string).replace(/"parentId":"[^"]*"/, `"parentId":"${parent}"`));
    // the target as a fork or rewrite saves it: its usage already the children's aggregate, which the caps undo
    const target = JSON.parse(lines[at('e0000005')] as string) as { message: { usage: unknown } };
    target.message.usage = (JSON.parse(attributions[1] as string) as { aggregateUsage: unknown }).aggregateUsage;
    const head = lines.slice(0, at('e0000007'));
    head[at('e0000005')] = JSON.stringify(target);
    const content = Buffer.from([...head, ...calls, ...attributions].join('\n') + '\n');
    const run = await expectResumeEqualsFull(primeAgent, content, lineBoundaries(content), { kinds: ['usage'] }, `${P}.jsonl`);
    expect(run.starts.length).toBeGreaterThan(70);
  });

  it('a child is a subagent of the session that spawned it, one level down; an Act lane of its root session', async () => {
    const child = sessionOf(await readEvents(primeAgent, path(FILES.child)));
    expect(child).toMatchObject({ nativeId: C, subagent: true, spawnDepth: 1, forkedFrom: P, title: 'csv-reader', cwd: '/home/dev/svc' });
    const lane = sessionOf(await readEvents(primeAgent, path(FILES['act-lane'])));
    expect(lane).toMatchObject({ nativeId: L, subagent: true, spawnDepth: 1, forkedFrom: P });
    const fork = sessionOf(await readEvents(primeAgent, path(FILES.fork)));
    expect(fork).toMatchObject({ nativeId: F, forkedFrom: P, title: 'Billing export drops rows' });
    expect(fork.subagent).toBeUndefined();
    const root = sessionOf(await readEvents(primeAgent, path(FILES.root)));
    expect([root.subagent, root.forkedFrom, root.title]).toEqual([undefined, undefined, 'Billing export drops rows']);
  });

  it('a child read anywhere but in its folder is still a subagent by its header, at no known depth', () => {
    const lines = Buffer.from(text(FILES.child).split('\n').slice(0, 2).join('\n') + '\n');
    const [s] = parseSync(primeAgent.lineCore!, lines, { file: 'elsewhere.jsonl' }) as SessionEvent[];
    expect(s).toMatchObject({ subagent: true, forkedFrom: P });
    expect(s!.spawnDepth).toBeUndefined();
  });
});

describe('prime-agent: usage counted once', () => {
  it('restated usage is never usage: attributions and Act facts yield none', async () => {
    const ids = usages(await readEvents(primeAgent, path(FILES.root))).map((u) => u.messageId);
    expect(ids).toEqual(['e0000005', 'e000000c', 'e000000e']);
  });

  it('the parent\'s message counts its own call: written own in the parent, aggregate in the fork, the same event in both', async () => {
    const written = (rel: string) => (text(rel).split('\n').map((l) => (l === '' ? {} : (JSON.parse(l) as Obj))).find((r) => r.id === 'e0000005')!.message as { usage: Usage }).usage;
    expect(written(FILES.fork).input).toBeGreaterThan(written(FILES.root).input); // Prime wrote the aggregate into the fork
    const pick = async (rel: string) => usages(await readEvents(primeAgent, path(rel))).find((u) => u.messageId === 'e0000005')!;
    const [root, fork] = [await pick(FILES.root), await pick(FILES.fork)];
    expect(fork.dedupKey).toBe(root.dedupKey);
    const counts = (u: UsageEvent) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens];
    expect(counts(fork)).toEqual(counts(root));
    expect(counts(root)).toEqual(COUNTS.map((k) => written(FILES.root)[k]));
    expect(fork.costUsd).toBeCloseTo(root.costUsd!, 12);
  });

  it('every file together, each dedupKey once, equals Prime\'s own rule', async () => {
    const events = (await Promise.all(Object.values(FILES).map((rel) => readEvents(primeAgent, path(rel), { kinds: ['usage'] })))).flat();
    const once = [...new Map(usages(events).map((u) => [u.dedupKey, u])).values()];
    const want = await primeTotals(Object.values(FILES).map(path));
    expect(once.length).toBe(want.requests);
    expect({ input: sum(once, 'inputTokens'), output: sum(once, 'outputTokens'), cacheRead: sum(once, 'cacheReadTokens'), cacheWrite: sum(once, 'cacheWriteTokens') }).toEqual(want.tokens);
    expect(once.reduce((n, u) => n + (u.costUsd ?? 0), 0)).toBeCloseTo(want.usd, 9);
  });

  it('a compaction\'s call counts once, at the model in effect', async () => {
    const [c] = usages(await readEvents(primeAgent, path(FILES.root))).filter((u) => u.messageId === 'e000000e');
    expect(c).toMatchObject({ model: 'claude-sonnet-4-5', modelFallback: true, singleRequest: false, inputTokens: 9100, outputTokens: 640 });
  });

  it('two passes over a large read give the one-pass events', () => {
    const fork = text(FILES.fork);
    const one = parseSync(createPiCore({ agent: 'prime-agent', rlm: true, twoPassBytes: Infinity }), fork, { file: path(FILES.fork) });
    const two = parseSync(createPiCore({ agent: 'prime-agent', rlm: true, twoPassBytes: 0 }), fork, { file: path(FILES.fork) });
    expect(two).toEqual(one);
    expect(usages(one).find((u) => u.messageId === 'e0000005')?.inputTokens).toBe(1840);
  });

  it('an attribution that bounds nothing (a child above its aggregate, a bad count) leaves its target as written', () => {
    const fork = text(FILES.fork).replace(/"childUsage":\{"input":2400/, '"childUsage":{"input":99999').replace(/"childUsage":\{"input":900/, '"childUsage":{"input":-4');
    const u = usages(parseSync(primeAgent.lineCore!, fork, { file: 'f.jsonl' })).find((e) => e.messageId === 'e0000005')!;
    expect(u.inputTokens).toBe(1840 + 2400 + 900);
  });

  it('skips and counts a malformed line, never the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-prime-bad-'));
    try {
      const lines = text(FILES.root).split('\n');
      lines.splice(3, 0, 'not json', '{"type":"message","id":"x1",');
      const file = join(dir, `${P}.jsonl`);
      await writeFile(file, lines.join('\n'));
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const events = await readEvents(primeAgent, file, { info });
      expect(info.skippedLines).toBe(2);
      expect(usages(events).length).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function sum(us: readonly UsageEvent[], k: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): number {
  return us.reduce((n, u) => n + u[k], 0);
}

describe('prime-agent through the built CLI, under an isolated HOME', () => {
  const h = isolatedHome('sf-prime-cli-', async (home) => {
    await cp(AGENT, join(home, '.prime', 'agent'), { recursive: true });
  });
  const cli = (args: string[]) => cliJson(h.env, args);

  it('lists its two sessions (children are subagents) and reports their usage once, changing nothing', async () => {
    const folder = join(h.home, '.prime');
    const before = await treeListing(folder);
    const list = (await cli(['sessions', 'list', 'prime-agent', '--json'])) as { agent: string; sessionId: string; title: string; cwd: string }[];
    expect(list.map((s) => [s.sessionId, s.title, s.cwd]).sort()).toEqual([
      [P, 'Billing export drops rows', '/home/dev/svc'],
      [F, 'Billing export drops rows', '/home/dev/svc'],
    ]);
    const report = (await cli(['cost', 'report', '--agent', 'prime', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; totalUsd: number }> };
    const want = await primeTotals(Object.values(FILES).map(path));
    expect(Object.keys(report.breakdowns)).toEqual(['prime-agent']);
    expect(report.breakdowns['prime-agent']).toMatchObject({
      requestCount: want.requests,
      inputTokens: want.tokens.input,
      outputTokens: want.tokens.output,
      cacheReadTokens: want.tokens.cacheRead,
      cacheWriteTokens: want.tokens.cacheWrite,
    });
    expect(report.breakdowns['prime-agent']!.totalUsd).toBeCloseTo(want.usd, 9);
    expect(await treeListing(folder)).toEqual(before);
  }, 120_000);
});

describe('prime-agent attribution caps', () => {
  /** A target's usage as its line wrote it: its own calls plus every child call attributed to it (the aggregate). */
  const written = (): UsageEvent =>
    usageEventOf('prime-agent', 's', 0, { model: 'm', timestamp: '2026-01-01T00:00:00.000Z', inputTokens: 130, outputTokens: 60, reasoningTokens: 40, cacheReadTokens: 900, cacheWriteTokens: 70, cacheWrite1hTokens: 70, costUsd: 0.5, singleRequest: true, dedupKey: 'k' });
  const cap = (input: number, output: number, cacheRead: number, cacheWrite: number, cost: number | undefined): UsageCap => ({ input, output, cacheRead, cacheWrite, cost });
  // three attributions of one target, each aggregate the previous plus one child call; the first is the own usage
  const caps = [cap(100, 30, 600, 50, 0.3), cap(110, 45, 800, 50, 0.4), cap(130, 55, 900, 70, undefined)];
  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

  it('lowers a target to the field-wise minimum of its caps in any order: its own usage, the children\u2019s taken out once', () => {
    const results = orders.map((o) => {
      const e = written();
      for (const i of o) capUsage(e, caps[i]!);
      return [e.inputTokens, e.outputTokens, e.reasoningTokens, e.cacheReadTokens, e.cacheWriteTokens, e.cacheWrite1hTokens, e.costUsd];
    });
    for (const r of results) expect(r).toEqual([100, 30, 30, 600, 50, 50, 0.3]);
  });

  it('takes each count from the smallest cap that bounds it, even when no one cap is smallest in all', () => {
    const mixed = [cap(100, 45, 900, 70, 0.4), cap(130, 30, 600, 50, undefined)];
    for (const o of [[0, 1], [1, 0]]) {
      const e = written();
      for (const i of o) capUsage(e, mixed[i]!);
      expect([e.inputTokens, e.outputTokens, e.cacheReadTokens, e.cacheWriteTokens, e.costUsd]).toEqual([100, 30, 600, 50, 0.4]);
    }
  });
});
