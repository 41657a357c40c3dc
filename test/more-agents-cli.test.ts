/**
 * The Kimi Code, Amp and Antigravity CLI codecs through the built CLI, as a subprocess, over a
 * temporary HOME holding every shared fixture laid out as the agent lays it out: `sessions list`, `sessions
 * show`, `cost report --json --group-by agent` (tokens equal to the golden files; Antigravity records none, which
 * its sessions and the report say) and `read`. The agents' trees are the same after every command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amp } from '../codecs/amp/index.js';
import { antigravity } from '../codecs/antigravity/index.js';
import { kimi } from '../codecs/kimi/index.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { ANTIGRAVITY_LAYOUT, layOutAntigravity, transcriptOf } from './helpers/antigravity-layout.js';
import { KIMI_LAYOUT, layOutKimi } from './helpers/kimi-layout.js';
import { agentCli } from './helpers/agent-cli.js';
import { treeListing } from './helpers/files.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));
const AMP_THREADS = ['llm-usage-metrics-e2e-thread.json', 'llm-usage-metrics-ledger-thread.json'];

let home: string;
let agentDirs: string[];
let before: string[];

const listTree = async (roots: readonly string[]): Promise<string[]> => (await Promise.all(roots.map((r) => treeListing(r)))).flat().sort();

beforeAll(async () => {
  const newest = Math.max(...['kimi', 'amp', 'antigravity'].flatMap((c) => [join(ROOT, 'codecs', c, 'index.ts'), join(ROOT, 'codecs', c, 'parse.ts')]).map((f) => statSync(f).mtimeMs));
  const built = join(ROOT, 'dist', 'codecs', 'kimi', 'index.js');
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < newest) await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
  home = await mkdtemp(join(tmpdir(), 'sf-more-agents-cli-'));
  agentDirs = [join(home, '.kimi-code'), join(home, '.local', 'share', 'amp'), join(home, '.gemini')];
  await layOutAntigravity(join(home, '.gemini', 'antigravity-cli'));
  await layOutKimi(join(home, '.kimi-code'));
  await mkdir(join(home, '.local', 'share', 'amp', 'threads'), { recursive: true });
  for (const name of AMP_THREADS) await copyFile(join(REAL, 'amp', name), join(home, '.local', 'share', 'amp', 'threads', name));
  before = await listTree(agentDirs);
}, 180_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, () => listTree(agentDirs), () => before);

async function goldenUsage(agent: string, names: readonly string[]): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  for (const name of names) {
    for (const l of (await readFile(join(EXPECTED, agent, `${name}.events.jsonl`), 'utf8')).split('\n').filter(Boolean)) {
      const e = JSON.parse(l) as SessionfoldEvent;
      if (e.type === 'usage') out.push(e);
    }
  }
  return out;
}

function expectTotals(row: Record<string, number> | undefined, usage: readonly UsageEvent[]): void {
  const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
  expect(usage.length).toBeGreaterThan(0);
  expect(row).toMatchObject({
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    cacheReadTokens: sum((u) => u.cacheReadTokens),
    cacheWriteTokens: sum((u) => u.cacheWriteTokens),
    requestCount: usage.length,
  });
}

let report: undefined | { breakdowns: Record<string, Record<string, number>>; sources: { agent: string; files: number; usageRecorded?: false }[] };

describe('sessionfold CLI over Kimi Code sessions', () => {
  it('sessions list kimi lists both sessions with their state.json titles, and the subagent with --subagents', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'kimi', '--json'])) as { sessionId: string; title?: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['1bcbe023-4f7e-4971-9dc9-43b8756045b0', '9eb1bf57-c1af-48a5-b658-0e8d9fe794f5']);
    expect(rows.every((r) => r.title === 'hi' && r.cwd === '/private/tmp/as-agent-lab/kimi/project')).toBe(true);
    const all = JSON.parse(await cli(['sessions', 'list', 'kimi', '--json', '--subagents'])) as { sessionId: string }[];
    expect(all.map((r) => r.sessionId)).toContain('1bcbe023-4f7e-4971-9dc9-43b8756045b0/agent-0');
  });

  it('sessions show prints the conversation with its tool calls', async () => {
    const out = await cli(['sessions', 'show', 'kimi', '1bcbe023-4f7e-4971-9dc9-43b8756045b0']);
    expect(out).toContain('run ls command');
    expect(out).toContain('Bash');
  });

  it('cost report --json --group-by agent: the golden tokens of every wire', async () => {
    report = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent']));
    expectTotals(report!.breakdowns.kimi, await goldenUsage('kimi', Object.keys(KIMI_LAYOUT)));
  });

  it('read --agent kimi streams the library events', async () => {
    const path = join(home, '.kimi-code', 'sessions', KIMI_LAYOUT['agent-sessions-wire-assistant-tools.jsonl']!.wire);
    const events = (await cli(['read', path, '--agent', 'kimi'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(kimi, path));
  });
});

describe('sessionfold CLI over Amp threads', () => {
  it('sessions list amp lists every thread', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'amp', '--json'])) as { sessionId: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(AMP_THREADS.map((n) => n.replace(/\.json$/, '')));
  });

  it('cost report --json --group-by agent: the golden tokens, the duplicate ledger id once', async () => {
    report ??= JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent']));
    expectTotals(report!.breakdowns.amp, await goldenUsage('amp', AMP_THREADS));
  });

  it('read --agent amp streams the library events', async () => {
    const path = join(home, '.local', 'share', 'amp', 'threads', AMP_THREADS[1]!);
    const events = (await cli(['read', path, '--agent', 'amp'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(amp, path));
  });
});

describe('sessionfold CLI over Antigravity CLI step logs', () => {
  it('sessions list antigravity lists every conversation, its cost unknown (the agent records tokens, in a database not there)', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'antigravity', '--json'])) as { sessionId: string; title?: string; cost?: number; usageRecorded?: false; usageUnknown?: true }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(Object.values(ANTIGRAVITY_LAYOUT).sort());
    for (const r of rows) expect(r, r.sessionId).toMatchObject({ usageUnknown: true });
    for (const r of rows) expect(r, r.sessionId).not.toHaveProperty('usageRecorded');
    expect(rows.map((r) => r.cost)).toEqual(rows.map(() => undefined)); // unknown, never a measured $0
    const table = await cli(['sessions', 'list', 'antigravity']);
    expect(table).toContain('unknown');
    expect(table, "Cursor's cell: an agent that records no tokens").not.toContain('not recorded');
  });

  it('sessions show prints the conversation with its tool calls', async () => {
    const out = await cli(['sessions', 'show', 'antigravity', ANTIGRAVITY_LAYOUT['agent-sessions-cli-small.jsonl']!]);
    expect(out).toContain('List the files.');
    expect(out).toContain('list_dir');
    // the agent records tokens (in the conversation database this layout lacks): not Cursor's note
    expect(out.split('\n')).toContain('- **Cost:** unknown (the agent has not recorded all of its tokens)');
  });

  it('cost report --json --group-by agent has no row for it: step logs without their databases hold no tokens', async () => {
    report ??= JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent']));
    expect(report!.breakdowns.antigravity).toBeUndefined();
    expect(Object.keys(report!.breakdowns)).toEqual(expect.arrayContaining(['kimi', 'amp']));
    const mine = report!.sources.filter((s) => s.agent === 'antigravity' && s.files > 0);
    expect(mine.map((s) => [s.files, s.usageRecorded])).toEqual([[Object.keys(ANTIGRAVITY_LAYOUT).length, undefined]]);
  });

  it('cost report of it alone notes that their usage is unknown, not a measured zero', async () => {
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'antigravity', '--no-cache'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' },
    });
    const n = Object.keys(ANTIGRAVITY_LAYOUT).length;
    expect(r.stderr).toContain(`note: antigravity: ${n} sessions have tokens the agent has not recorded`);
  });

  it('read --agent antigravity streams the library events', async () => {
    const path = transcriptOf(join(home, '.gemini', 'antigravity-cli', 'brain'), ANTIGRAVITY_LAYOUT['agent-sessions-cli-small.jsonl']!);
    const events = (await cli(['read', path, '--agent', 'antigravity'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(antigravity, path));
  });
});
