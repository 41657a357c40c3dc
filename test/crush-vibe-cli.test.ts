/**
 * The crush and vibe codecs through the built CLI (dist/), as a subprocess, over a temporary HOME holding
 * each agent's sample where the agent keeps it (Crush: `~/work/shop/.crush/crush.db` registered in
 * `~/.local/share/crush/projects.json`; Vibe: fixtures/vibe at `~/.vibe/logs/session/`): `sessions list <agent>`, `cost report --agent <agent>` (the recorded
 * cost, and the note that the tokens are not recorded) and `read`. The agents' trees are the same after every
 * command.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crush } from '../codecs/crush/index.js';
import { vibe } from '../codecs/vibe/index.js';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { layOutCrush } from './helpers/crush-db.js';
import { treeListing } from './helpers/files.js';
import { agentCli, agentCliOutput, buildIfStale } from './helpers/agent-cli.js';

const AGENTS = ['crush', 'vibe'] as const;
type Agent = (typeof AGENTS)[number];
const CODECS: Record<Agent, Codec> = { crush, vibe };
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

let home: string;
let before: string[];
const files = {} as Record<Agent, SessionFile[]>;

beforeAll(async () => {
  await buildIfStale(AGENTS);
  home = await mkdtemp(join(tmpdir(), 'sf-crush-vibe-cli-'));
  layOutCrush(home);
  files.crush = await discoverAll(crush, crush.defaultRoots({ HOME: home }));
  await cp(join(FIXTURES, 'vibe', 'logs'), join(home, '.vibe', 'logs'), { recursive: true });
  files.vibe = await discoverAll(vibe, vibe.defaultRoots({ HOME: home }));
  before = await trees();
}, 300_000);

async function trees(): Promise<string[]> {
  return [...(await treeListing(join(home, 'work'))), ...(await treeListing(join(home, '.local', 'share', 'crush'))), ...(await treeListing(join(home, '.vibe')))];
}

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, trees, () => before);

const cliBoth = agentCliOutput(() => home, trees, () => before);

describe('sessionfold CLI over Crush and Mistral Vibe trees', () => {
  it.each(AGENTS)('sessions list %s lists every top-level session', async (agent) => {
    const rows = JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { sessionId: string; agent: string }[];
    const ids = await Promise.all(files[agent].filter((f) => f.subagent !== true).map(async (f) => (await readEvents(CODECS[agent], f.path, { kinds: ['session'] }))[0]!.sessionId));
    expect(rows.map((r) => r.sessionId).sort()).toEqual(ids.sort());
    expect(rows.length).toBe(agent === 'crush' ? 4 : 3);
    expect(rows.every((r) => r.agent === agent)).toBe(true);
    const text = await cli(['sessions', 'list', agent]);
    expect(text).toContain(agent === 'crush' ? 'Fix the checkout total' : 'Add pagination to /users');
  });

  it('cost report --agent crush reports the cost Crush recorded, and that its tokens are not recorded', async () => {
    const { out, err } = await cliBoth(['cost', 'report', '--agent', 'crush', '--json']);
    const report = JSON.parse(out) as { totalUsd: number; requestCount: number; inputTokens: number; outputTokens: number; unpricedCount: number };
    expect(report).toMatchObject({ requestCount: 2, inputTokens: 0, outputTokens: 0, unpricedCount: 0 });
    expect(report.totalUsd).toBeCloseTo(0.4213 + 0.1875, 10);
    // the top-level sessions; the sub-agent's task session is folded into its parent
    expect(err).toContain('note: crush: 4 sessions have tokens the agent has not recorded');
    const table = await cli(['cost', 'report', '--agent', 'crush']);
    expect(table).toContain('$0.61');
  });

  it('cost report --agent crush: display reports the recorded cost too; calculate has no tokens to price', async () => {
    const display = JSON.parse((await cliBoth(['cost', 'report', '--agent', 'crush', '--json', '--mode', 'display'])).out) as { totalUsd: number; unpricedCount: number };
    expect(display.totalUsd).toBeCloseTo(0.4213 + 0.1875, 10);
    expect(display.unpricedCount).toBe(0);
    const { out, err } = await cliBoth(['cost', 'report', '--agent', 'crush', '--json', '--mode', 'calculate']);
    expect(JSON.parse(out)).toMatchObject({ totalUsd: 0, requestCount: 2, unpricedCount: 0 });
    expect(err, 'the $0 comes with the note').toContain('note: crush: 4 sessions have tokens the agent has not recorded');
  });

  it('cost report --agent vibe reports the session stats, cached prompt tokens apart, at the cost Vibe estimated', async () => {
    const { out, err } = await cliBoth(['cost', 'report', '--agent', 'vibe', '--json']);
    const report = JSON.parse(out) as { totalUsd: number; requestCount: number; inputTokens: number; cacheReadTokens: number; outputTokens: number };
    expect(report).toMatchObject({ requestCount: 2, inputTokens: 34500, cacheReadTokens: 30000, outputTokens: 2220 });
    expect(report.totalUsd).toBeCloseTo(0.01244 + 0.00157, 10);
    expect(err).not.toContain('not recorded');
    const calculated = JSON.parse((await cliBoth(['cost', 'report', '--agent', 'vibe', '--json', '--mode', 'calculate'])).out) as { totalUsd: number; inputTokens: number; unpricedCount: number };
    expect(calculated.inputTokens).toBe(34500);
    // Priced from the tokens, not Vibe's estimate: one session's model has no price, the other's is no estimate.
    expect(calculated.unpricedCount).toBe(1);
    expect(calculated.totalUsd).toBeGreaterThan(0);
    expect(Math.abs(calculated.totalUsd - report.totalUsd)).toBeGreaterThan(1e-4);
    const table = await cli(['cost', 'report', '--agent', 'vibe']);
    expect(table).toContain('2026-01-06');
  });

  it.each(AGENTS)('read --agent %s streams the library events', async (agent) => {
    const path = files[agent][0]!.path;
    const events = (await cli(['read', path, '--agent', agent])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(CODECS[agent], path));
    expect(events.some((e) => e.type === 'message')).toBe(true);
  });
});

describe('a Vibe session saved again, through the event cache', () => {
  it('its running stats replace the ones counted before: the session counts once, at its latest totals', async () => {
    const h = await mkdtemp(join(tmpdir(), 'sf-vibe-resave-'));
    try {
      await cp(join(FIXTURES, 'vibe', 'logs'), join(h, '.vibe', 'logs'), { recursive: true });
      const run = agentCliOutput(() => h, async () => [], () => []);
      const report = async () => JSON.parse((await run(['cost', 'report', '--agent', 'vibe', '--json'])).out) as { requestCount: number; inputTokens: number; outputTokens: number; totalUsd: number };
      const first = await report();
      expect(first).toMatchObject({ requestCount: 2, inputTokens: 34500, outputTokens: 2220 });
      expect(existsSync(join(h, '.cache', 'sessionfold', 'events.db')), 'the second report is a warm one').toBe(true);
      // Vibe's next save: more tokens in the same session's meta.json, rewritten whole
      const meta = join(h, '.vibe', 'logs', 'session', 'session_20260105_090000_019e1e27', 'meta.json');
      const doc = JSON.parse(await readFile(meta, 'utf8')) as { stats: Record<string, number> };
      doc.stats.session_prompt_tokens = (doc.stats.session_prompt_tokens ?? 0) + 1000;
      doc.stats.session_completion_tokens = (doc.stats.session_completion_tokens ?? 0) + 80;
      doc.stats.session_cost = 0.02;
      await writeFile(meta, JSON.stringify(doc));
      const later = new Date(Date.now() + 5000);
      await utimes(meta, later, later);
      const second = await report();
      expect(second).toMatchObject({ requestCount: 2, inputTokens: 34500 + 1000, outputTokens: 2220 + 80 });
      expect(second.totalUsd).toBeCloseTo(0.02 + 0.00157, 10);
    } finally {
      await rm(h, { recursive: true, force: true });
    }
  });
});
