/**
 * One tree holding a sample of every agent (issues 18 and 22; test/helpers/every-agent-tree.ts), through the
 * built CLI with HOME and XDG_* only: every registered codec has an entry; `cost report --json --group-by agent`
 * has a row per agent that records tokens, equal to the golden totals (summed here by a plain reader of the
 * golden event files, each response once), and none for an agent that records none; `sessions list` lists each
 * agent's sessions with titles and cwd; a cached run answers as `--no-cache` does; and no file of the tree
 * changes (bytes, mtime), no -wal/-shm appears.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_CODECS } from '../src/builtin-codecs.js';
import { getCodec } from '../src/registry.js';
import { readEvents } from './helpers/codec-harness.js';
import { AGENT_TREE, buildEveryAgentTree, EXPECTED, NOT_AGENTS, type EveryAgentTree } from './helpers/every-agent-tree.js';
import { snapshotTree } from './sessions-helpers.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

let tree: EveryAgentTree;
let before: Awaited<ReturnType<typeof snapshotTree>>;

beforeAll(async () => {
  tree = await buildEveryAgentTree();
  before = await snapshotTree(tree.home);
}, 120_000);

afterAll(async () => {
  await tree?.remove();
});

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const r = await run(process.execPath, [CLI, ...args], { env: tree.env, maxBuffer: 64 << 20 });
  return { out: r.stdout, err: r.stderr };
}

interface Tokens {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  thinkingTokens: number;
  requestCount: number;
}

/** A usage event as the golden files hold it: only the fields summed here. */
interface GoldenUsage {
  type: string;
  dedupKey: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens?: number;
}

/** The deliberately simple reader: every usage line of the agent's golden files (and un-golden files' reads), each dedupKey once. */
async function goldenTotals(agent: string): Promise<Tokens> {
  const entry = AGENT_TREE[agent]!;
  const usage: GoldenUsage[] = [];
  for (const name of entry.goldens) {
    for (const line of (await readFile(join(EXPECTED, agent, `${name}.events.jsonl`), 'utf8')).split('\n')) {
      if (line === '') continue;
      const e = JSON.parse(line) as GoldenUsage;
      if (e.type === 'usage') usage.push(e);
    }
  }
  for (const rel of entry.unGolden ?? []) usage.push(...((await readEvents(getCodec(agent), join(tree.home, rel), { kinds: ['usage'] })) as unknown as GoldenUsage[]));
  const t: Tokens = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, thinkingTokens: 0, requestCount: 0 };
  const seen = new Set<string>();
  for (const u of usage) {
    if (seen.has(u.dedupKey)) continue;
    seen.add(u.dedupKey);
    t.inputTokens += u.inputTokens;
    t.outputTokens += u.outputTokens;
    t.cacheReadTokens += u.cacheReadTokens;
    t.cacheWriteTokens += u.cacheWriteTokens;
    t.thinkingTokens += u.reasoningTokens ?? 0;
    t.requestCount++;
  }
  return t;
}

describe('a tree with a sample of every agent', () => {
  it('has an entry for every registered codec (a new codec must join the tree)', () => {
    const missing = BUILTIN_CODECS.map((c) => c.descriptor.id).filter((id) => AGENT_TREE[id] === undefined && !NOT_AGENTS.includes(id));
    expect(missing, 'codecs without an entry in test/helpers/every-agent-tree.ts').toEqual([]);
    for (const id of Object.keys(AGENT_TREE)) expect(BUILTIN_CODECS.some((c) => c.descriptor.id === id), `${id} is registered`).toBe(true);
  });

  it('cost report --json --group-by agent: a row per agent that records tokens, equal to the golden totals; the cache changes nothing', async () => {
    const cold = await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache']);
    const built = await cli(['cost', 'report', '--json', '--group-by', 'agent']);
    const warm = await cli(['cost', 'report', '--json', '--group-by', 'agent']);
    expect(built.out).toBe(cold.out);
    expect(warm.out).toBe(cold.out);
    const report = JSON.parse(cold.out) as { breakdowns: Record<string, Tokens>; sources: { agent: string; status: string; files: number; usageRecorded?: false }[] };
    for (const [agent, entry] of Object.entries(AGENT_TREE)) {
      const row = report.breakdowns[agent];
      if (entry.usage !== 'tokens') {
        expect(row, `${agent}: no usage in the tree, no row`).toBeUndefined();
        if (entry.usage === 'unrecorded') {
          // it says instead that the usage is unknown: in sources, and in a note on stderr
          const mine = report.sources.filter((s) => s.agent === agent && s.files > 0);
          expect(mine.length).toBeGreaterThan(0);
          expect(mine.every((s) => s.usageRecorded === false)).toBe(true);
          expect(cold.err).toMatch(new RegExp(`^note: ${agent}: \\d+ session files?; the agent records no token usage, so their usage is unknown`, 'm'));
        }
        continue;
      }
      const want = await goldenTotals(agent);
      expect(want.requestCount, `${agent}'s samples hold usage`).toBeGreaterThan(0);
      expect(row, `${agent} has a row`).toBeDefined();
      const got: Tokens = { inputTokens: row!.inputTokens, outputTokens: row!.outputTokens, cacheReadTokens: row!.cacheReadTokens, cacheWriteTokens: row!.cacheWriteTokens, thinkingTokens: row!.thinkingTokens, requestCount: row!.requestCount };
      expect(got, `${agent}'s tokens`).toEqual(want);
      expect(report.sources.some((s) => s.agent === agent && s.status === 'found' && s.files > 0), `${agent}'s root is named in sources`).toBe(true);
    }
    expect(Object.keys(report.breakdowns).sort()).toEqual(Object.keys(AGENT_TREE).filter((a) => AGENT_TREE[a]!.usage === 'tokens').sort());
  }, 240_000);

  it('sessions list --json: every agent\'s sessions, with titles and cwd where the format records them; the cache changes nothing', async () => {
    const args = ['sessions', 'list', '--json', '--limit', '100000'];
    const first = await cli(args);
    const again = await cli(args);
    expect(again.out).toBe(first.out);
    const rows = JSON.parse(first.out) as { agent: string; title?: string; cwd?: string; cost?: number }[];
    const count = (agent: string) => rows.filter((r) => r.agent === agent).length;
    expect(Object.fromEntries(Object.keys(AGENT_TREE).map((a) => [a, count(a)]))).toEqual(Object.fromEntries(Object.entries(AGENT_TREE).map(([a, e]) => [a, e.sessions])));
    const has = (agent: string, field: 'title' | 'cwd') => rows.some((r) => r.agent === agent && (r[field] ?? '') !== '');
    expect(Object.fromEntries(Object.keys(AGENT_TREE).map((a) => [a, [has(a, 'title'), has(a, 'cwd')]]))).toEqual(Object.fromEntries(Object.entries(AGENT_TREE).map(([a, e]) => [a, [e.titles, e.cwd]])));
    for (const [agent, entry] of Object.entries(AGENT_TREE)) {
      const mine = rows.filter((r) => r.agent === agent);
      if (entry.usage === 'unrecorded') expect(mine.map((r) => r.cost), `${agent}'s cost is not recorded, not $0`).toEqual(mine.map(() => undefined));
    }
  }, 240_000);

  it('leaves every file of the tree as it was: bytes, mtimes, no -wal or -shm', async () => {
    await cli(['sessions', 'list', '--json']);
    const after = await snapshotTree(tree.home);
    expect([...after.keys()].filter((p) => /-(wal|shm|journal)$/.test(p))).toEqual([]);
    expect(after).toEqual(before);
  }, 120_000);
});
