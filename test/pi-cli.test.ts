/**
 * pi, omp and OpenClaw end to end through the built CLI (dist/, a subprocess) over a temp copy of the real
 * fixtures laid out as the agents' own trees, with the agents' environment variables pointed at it:
 * `sessions list`, `sessions show`, `read`, and `cost report --json --group-by agent` in auto and calculate
 * modes, whose tokens and dollars are checked against the library's events and genai-prices.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { calcPrice } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { omp } from '../codecs/omp/index.js';
import { openclaw } from '../codecs/openclaw/index.js';
import { pi } from '../codecs/pi/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { assistant, PI_V1, PI_V3, REAL_OPENCLAW, usages } from './pi-helpers.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

const V3_ID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';
const V1_ID = 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617';

let tmp: string;
let env: NodeJS.ProcessEnv;
const files: Record<string, [Codec, string][]> = { pi: [], omp: [], openclaw: [] };

async function place(codec: Codec, dir: string, name: string, from: string | Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  const p = join(dir, name);
  if (typeof from === 'string') await copyFile(from, p);
  else await writeFile(p, from);
  files[codec.id]!.push([codec, p]);
  return p;
}

/** Every file under the agents' folders with its size and mtime: the CLI must change none of them. */
async function agentTree(): Promise<string[]> {
  const out: string[] = [];
  for (const top of ['pi-agent', join('home', '.omp'), 'openclaw']) {
    for (const rel of await readdir(join(tmp, top), { recursive: true })) {
      const s = statSync(join(tmp, top, rel));
      out.push(`${top}/${rel} ${s.isFile() ? `${s.size} ${s.mtimeMs}` : 'dir'}`);
    }
  }
  return out.sort();
}

let before: string[];

/** Build dist/ when it is missing or older than the pi engine (npm test builds first anyway). */
beforeAll(async () => {
  const built = join(ROOT, 'dist', 'codecs', 'pi', 'parse.js');
  const src = join(ROOT, 'codecs', 'pi');
  const newest = Math.max(...(await readdir(src)).filter((f) => f.endsWith('.ts')).map((f) => statSync(join(src, f)).mtimeMs));
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < newest) {
    await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT }).catch(() => undefined);
    await run(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: ROOT }).catch(() => undefined);
  }
}, 180_000);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-pi-cli-'));
  const piSessions = join(tmp, 'pi-agent', 'sessions');
  const v3 = await place(pi, join(piSessions, '--tmp-as-agent-fixture-project--'), `2026-05-12T01-02-27-657Z_${V3_ID}.jsonl`, PI_V3);
  await place(pi, join(piSessions, '--Users-badlogic-workspaces-pi-mono--'), `2025-11-20T23-33-50-805Z_${V1_ID}.jsonl`, PI_V1);
  // A fork of the v3 session: its header names the parent file, its entries are copies, one response is new.
  const lines = (await readFile(PI_V3, 'utf8')).trimEnd().split('\n');
  const header = { type: 'session', version: 3, id: 'fork-1', timestamp: '2026-05-13T00:00:00.000Z', cwd: '/tmp/as-agent-fixture/project', parentSession: v3 };
  const extra = JSON.stringify(assistant('f0rk0001', '2c19d326', 'forked answer', 1200, 300, 0.0081));
  await place(pi, join(piSessions, '--tmp-as-agent-fixture-project--'), '2026-05-13T00-00-00-000Z_fork-1.jsonl', Buffer.from([JSON.stringify(header), ...lines.slice(1), extra].join('\n') + '\n'));
  await place(omp, join(tmp, 'home', '.omp', 'agent', 'sessions', '--tmp-as-agent-fixture-project--'), `2026-05-12T01-02-27-657Z_${V3_ID}.jsonl`, PI_V3);
  const oc = join(tmp, 'openclaw', 'agents', 'main', 'sessions');
  await place(openclaw, oc, 'openclaw-stage0-large.jsonl', `${REAL_OPENCLAW}agent-sessions-large.jsonl`);
  await place(openclaw, oc, 'openclaw-stage0-small.jsonl', `${REAL_OPENCLAW}agent-sessions-small.jsonl`);
  await place(openclaw, oc, 'openclaw-stage0-drift.jsonl.reset.2026-02-24T12-00-00.000Z', `${REAL_OPENCLAW}agent-sessions-schema_drift.jsonl`);
  await writeFile(join(oc, 'sessions.json'), JSON.stringify({ 'agent:main:main': { sessionId: 'openclaw-stage0-large', label: 'Status check', channel: 'webchat', updatedAt: 1 } }));
  env = {
    PATH: process.env.PATH,
    HOME: join(tmp, 'home'),
    PI_CODING_AGENT_DIR: join(tmp, 'pi-agent'),
    OPENCLAW_STATE_DIR: join(tmp, 'openclaw'),
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  before = await agentTree();
});

afterAll(async () => {
  expect(await agentTree(), 'no command changed the agents\' folders').toEqual(before);
  await rm(tmp, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  return (await run(process.execPath, [CLI, ...args], { cwd: ROOT, env, maxBuffer: 64 << 20 })).stdout;
}

/** Each dedup key once, over every file of an agent, as the folds count it. */
async function uniqueUsage(agent: string): Promise<UsageEvent[]> {
  const seen = new Map<string, UsageEvent>();
  for (const [codec, p] of files[agent]!) for (const u of usages(await readEvents(codec, p))) if (!seen.has(u.dedupKey)) seen.set(u.dedupKey, u);
  return [...seen.values()];
}

interface Breakdown {
  totalUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  requestCount: number;
  unpricedCount: number;
  sessionCount: number;
}

function tokensOf(us: readonly UsageEvent[]): Pick<Breakdown, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'requestCount'> {
  return {
    inputTokens: us.reduce((n, u) => n + u.inputTokens, 0),
    outputTokens: us.reduce((n, u) => n + u.outputTokens, 0),
    cacheReadTokens: us.reduce((n, u) => n + u.cacheReadTokens, 0),
    cacheWriteTokens: us.reduce((n, u) => n + u.cacheWriteTokens, 0),
    requestCount: us.length,
  };
}

/** genai-prices' own price of one usage event (its input_tokens is the whole prompt). */
function reference(u: UsageEvent): number | undefined {
  const r = calcPrice(
    { input_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens, cache_read_tokens: u.cacheReadTokens, cache_write_tokens: u.cacheWriteTokens, output_tokens: u.outputTokens },
    u.model,
    { timestamp: new Date(u.timestamp), ...(u.provider !== undefined && { providerId: u.provider }) },
  );
  return r ? Number(r.total_price) : undefined;
}

describe('pi, omp and OpenClaw through the CLI (subprocess)', () => {
  it('sessions list pi: every session with its cwd and title; the fork names its parent', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'pi', '--json'])) as { sessionId: string; cwd?: string; title: string; forkedFrom?: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual([V3_ID, V1_ID, 'fork-1'].sort());
    const byId = Object.fromEntries(list.map((s) => [s.sessionId, s]));
    expect(byId[V3_ID]).toMatchObject({ cwd: '/tmp/as-agent-fixture/project', title: 'Read hello.py and summarize what it prints without editing files.' });
    expect(byId[V1_ID]?.cwd).toBe('/Users/badlogic/workspaces/pi-mono');
    expect(byId['fork-1']?.forkedFrom).toBe(V3_ID);
  });

  it('sessions list pi --lazy: a large session from its head and tail windows (title, cwd, last model)', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'pi', '--lazy', '--json'])) as { sessionId: string; cwd?: string; title: string; model?: string; exact: boolean }[];
    expect(list.find((s) => s.sessionId === V1_ID)).toMatchObject({ exact: false, title: '/mode', cwd: '/Users/badlogic/workspaces/pi-mono', model: 'claude-sonnet-4-5' });
  });

  it('sessions list openclaw: the sessions.json title and the reset archive as a session of its own', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'openclaw', '--json'])) as { sessionId: string; title: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(['openclaw-stage0-drift', 'openclaw-stage0-large', 'openclaw-stage0-small']);
    expect(list.find((s) => s.sessionId === 'openclaw-stage0-large')?.title).toBe('Status check');
  });

  it('sessions show: the branch of a pi session, and an omp one', async () => {
    const s = JSON.parse(await cli(['sessions', 'show', `pi:${V3_ID}`, '--format', 'json'])) as { messages: { role: string }[]; cwd?: string };
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'system', 'user', 'assistant', 'system']);
    const o = JSON.parse(await cli(['sessions', 'show', 'omp', V3_ID, '--format', 'json'])) as { agent: string; messages: unknown[] };
    expect(o.agent).toBe('omp');
    expect(o.messages).toHaveLength(6);
  });

  it('read --agent pi streams the library events', async () => {
    const [codec, p] = files.pi![0]!;
    const out = (await cli(['read', p, '--agent', 'pi'])).trim().split('\n').map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(out).toEqual(await readEvents(codec, p));
  });

  it('cost report --json --group-by agent, auto mode: the tokens of each response once, the recorded USD where there is one', async () => {
    const r = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, Breakdown> };
    for (const agent of ['pi', 'omp']) {
      const us = await uniqueUsage(agent);
      expect(r.breakdowns[agent], agent).toMatchObject(tokensOf(us));
    }
    const piUsage = await uniqueUsage('pi');
    let copies = 0;
    for (const [codec, p] of files.pi!) copies += usages(await readEvents(codec, p)).length;
    expect(copies - piUsage.length, 'the fork repeats its parent\'s two responses').toBe(2);
    expect(piUsage.some((u) => u.dedupKey.startsWith('pi:f0rk0001:'))).toBe(true);
    const recorded = piUsage.reduce((n, u) => n + (u.costUsd ?? 0), 0);
    expect(recorded).toBeGreaterThan(30);
    expect(r.breakdowns.pi?.totalUsd).toBeCloseTo(recorded, 9);
    expect(r.breakdowns.pi?.unpricedCount).toBe(piUsage.filter((u) => u.costUsd === undefined).length);
    expect(r.breakdowns.openclaw?.requestCount ?? 0).toBe(0);
  });

  it('cost report --mode calculate: what genai-prices gives for the same tokens', async () => {
    const r = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache', '--mode', 'calculate', '--agent', 'pi'])) as { breakdowns: Record<string, Breakdown> };
    let usd = 0;
    let unpriced = 0;
    for (const u of await uniqueUsage('pi')) {
      const p = reference(u);
      if (p === undefined) unpriced++;
      else usd += p;
    }
    expect(usd).toBeGreaterThan(30);
    expect(r.breakdowns.pi?.totalUsd).toBeCloseTo(usd, 6);
    expect(r.breakdowns.pi?.unpricedCount).toBe(unpriced);
  });
});
