/**
 * The copilot codec through the registry and the CLI (`runCli` in process), on a temp copy of every real
 * fixture laid out as the real tree: `$COPILOT_HOME/session-state/<id>/events.jsonl` for the folder fixture,
 * `$COPILOT_HOME/session-state/<id>.jsonl` (the older flat layout) for the others, each flat file named by the
 * id its `session.start` records, beside the cost tests' own history; the folder session gets a
 * workspace.yaml naming it, as the CLI writes one. Totals are checked against the golden events
 * (test/copilot.test.ts checks those against a simple second reader). Then lazy summaries of large generated
 * logs, and the event cache resuming a grown log.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import type { CostSummary } from '../src/cost/types.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { makeHistory, sink } from './cost-history.js';
import { copilot } from '../codecs/copilot/index.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { codecSplitTotals } from './helpers/usage-totals.js';
import { writeCopilotSession } from '../fixtures/generate/copilot.js';
import { appendFileSync } from 'node:fs';
import { newScanStats, scanUsage, type UsageRecord } from '../src/scan/index.js';

const REAL_DIR = new URL('../../shared/fixtures/real/copilot/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/copilot/', import.meta.url).pathname;
const DIR_ID = 'aaaabbbb-1111-2222-3333-ccccddddeeee';

let home: string;
let env: NodeJS.ProcessEnv;

/** The session id a flat fixture's `session.start` records. */
function startId(file: string): string {
  const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as { data: { sessionId: string } };
  return first.data.sessionId;
}

beforeAll(() => {
  // The cost tests' history (sessionfold-jsonl exports, other agents' homes empty), plus a Copilot home.
  const history = makeHistory();
  home = history.home;
  const state = join(home, '.copilot', 'session-state');
  mkdirSync(state, { recursive: true });
  cpSync(join(REAL_DIR, 'agent-sessions-session-state-dir', DIR_ID), join(state, DIR_ID), { recursive: true });
  writeFileSync(join(state, DIR_ID, 'workspace.yaml'), `id: ${DIR_ID}\ncwd: /tmp/project\nname: Look around the project\nuser_named: true\n`);
  for (const f of readdirSync(REAL_DIR).filter((n) => n.endsWith('.jsonl'))) cpSync(join(REAL_DIR, f), join(state, `${startId(join(REAL_DIR, f))}.jsonl`));
  env = { ...history.env, COPILOT_HOME: join(home, '.copilot') };
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Token totals of every golden file, as a cost record counts them. */
function goldenTotals(): { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; requestCount: number } {
  const events = readdirSync(EXPECTED_DIR).flatMap((f) =>
    readFileSync(join(EXPECTED_DIR, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SessionfoldEvent),
  );
  const t = codecSplitTotals(events);
  return { inputTokens: t.input, outputTokens: t.output, cacheReadTokens: t.cacheRead, cacheWriteTokens: t.cacheWrite, requestCount: t.calls };
}

interface Row {
  sessionId: string;
  title: string;
  cwd?: string;
  usageUnknown?: boolean;
  cost?: { inputTokens: number; outputTokens: number; cacheReadTokens: number; totalUsd: number; requestCount: number };
  file: string;
}

describe('sessionfold with Copilot CLI sessions', () => {
  it('sessions list copilot: every session of both layouts, with its cwd and whether its usage is known', async () => {
    const r = await cli(['sessions', 'list', 'copilot', '--json']);
    expect(r.stderr).toBe('');
    const rows = (JSON.parse(r.stdout) as Row[]).sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1));
    expect(rows.map((s) => [s.sessionId, s.cwd, s.usageUnknown === true])).toEqual([
      [DIR_ID, '/tmp/project', true],
      ['copilot_stage0_drift', undefined, false],
      ['copilot_stage0_large', undefined, true],
      ['copilot_stage0_small', '/tmp/repo', true],
    ]);
    expect(rows[0]?.file.endsWith(`/session-state/${DIR_ID}/events.jsonl`)).toBe(true);
    expect(rows.map((s) => s.title)).toEqual(['Look around the project', '', 'Step 1', 'List the files']);
    expect(rows[1]?.cost).toMatchObject({ inputTokens: 200, outputTokens: 50, cacheReadTokens: 800, requestCount: 1 });
    expect(rows[1]?.cost?.totalUsd).toBeGreaterThan(0);
  });

  it('sessions list: the cost of a session without recorded usage reads unknown, never $0.00', async () => {
    const r = await cli(['sessions', 'list', 'copilot']);
    const line = (id: string) => r.stdout.split('\n').find((l) => l.includes(id)) ?? '';
    expect(line(DIR_ID)).toMatch(/ unknown /);
    expect(line('copilot_stage0_large')).toMatch(/ unknown /);
    expect(line('copilot_stage0_small')).toMatch(/ (<\$0\.01|\$\d+\.\d+)\+ /);
    expect(line('copilot_stage0_drift')).toMatch(/ (<\$0\.01|\$\d+\.\d+) /);
    expect(r.stdout).not.toMatch(/\$0\.00(?!\d)/);
  });

  it('sessions show: the conversation, tool results, and the usage said to be unknown', async () => {
    const r = await cli(['sessions', 'show', 'copilot', DIR_ID]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('List the files');
    expect(r.stdout).toContain('The directory contains file1 and file2.');
    expect(r.stdout).toContain('file1');
    expect(r.stdout).toMatch(/\*\*Cost:\*\* unknown/);
    const json = JSON.parse((await cli(['sessions', 'show', `copilot:${DIR_ID}`, '--format', 'json'])).stdout) as { messages: unknown[] };
    expect(json.messages.length).toBeGreaterThanOrEqual(3);
    const drift = await cli(['sessions', 'show', 'copilot', 'copilot_stage0_drift']);
    expect(drift.stdout).toContain('gpt-4.1');
    expect(drift.stdout).not.toContain('unknown');
  });

  it('read --agent copilot streams the library read; events export and resume work for copilot', async () => {
    const file = join(home, '.copilot', 'session-state', DIR_ID, 'events.jsonl');
    const ndjson = (t: string) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    const all = await cli(['read', file, '--agent', 'copilot']);
    expect(all.code).toBe(0);
    const events = await readEvents(copilot, file);
    expect(ndjson(all.stdout)).toEqual(events);
    expect(events.some((e) => e.type === 'tool_result')).toBe(true);
    const usage = await cli(['read', join(home, '.copilot', 'session-state', 'copilot_stage0_drift.jsonl'), '--agent', 'github-copilot', '--kinds', 'usage']);
    expect(ndjson(usage.stdout)).toEqual(byKind(await readEvents(copilot, join(REAL_DIR, 'agent-sessions-schema-drift.jsonl'))).usage);
    const exported = ndjson((await cli(['events', 'export', '--agent', 'copilot', '--tz', 'UTC'])).stdout) as unknown as { agent: string; dedupKey: string }[];
    expect(exported.map((e) => e.dedupKey).sort()).toEqual(['copilot:copilot_stage0_drift:e8:gpt-4.1', 'copilot:copilot_stage0_small:e16:gpt-5-mini']);
    const resume = await cli(['sessions', 'resume', 'copilot', DIR_ID]);
    expect(resume.stdout).toBe(`cd /tmp/project && copilot --resume ${DIR_ID}\n`);
  });

  it('sessions list --lazy on large logs: folded whole (usage known only at the end), not judged from a head window', async () => {
    const h = makeHistory();
    try {
      const state = join(h.home, '.copilot', 'session-state');
      const done = writeCopilotSession(join(state, 'done', 'events.jsonl'), 400_000, 'done');
      const open = writeCopilotSession(join(state, 'open', 'events.jsonl'), 400_000, 'open');
      // Replies before any user message: the head window folds model activity and ends before the shutdown.
      const ev = (type: string, data: object, id: string) => JSON.stringify({ type, data, id, timestamp: '2026-03-01T10:00:00.000Z', parentId: null });
      const replies = Array.from({ length: 80 }, (_, i) => ev('assistant.message', { messageId: `m${i}`, content: 'x'.repeat(3000), toolRequests: [] }, `r${i}`));
      const metrics = { 'gpt-5': { requests: { count: 80, cost: 80 }, usage: { inputTokens: 9, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 } } };
      mkdirSync(join(state, 'quiet'));
      writeFileSync(join(state, 'quiet', 'events.jsonl'), [ev('session.start', { sessionId: 'quiet' }, 's'), ...replies, ev('session.shutdown', { modelMetrics: metrics }, 'z')].join('\n') + '\n');
      appendFileSync(open.path, `${JSON.stringify({ type: 'assistant.turn_start', data: { turnId: 'x' }, id: 'late', timestamp: '2026-03-09T00:00:00.000Z', parentId: null })}\n`);
      const stdout = sink();
      await runCli(['sessions', 'list', 'copilot', '--lazy', '--json'], { stdout, stderr: sink(), env: { ...h.env, COPILOT_HOME: join(h.home, '.copilot') } });
      const rows = JSON.parse(stdout.text()) as (Row & { exact: boolean })[];
      expect(rows.map((r) => [r.sessionId, r.exact, r.usageUnknown === true]).sort()).toEqual([
        ['done', true, false],
        ['open', true, true],
        ['quiet', true, false],
      ]);
      expect(done.totals.usageEvents).toBeGreaterThan(1);
    } finally {
      rmSync(h.home, { recursive: true, force: true });
    }
  });

  it('the event cache: a warm scan reads only the bytes a Copilot log grew by, and sees the new run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-copilot-cache-'));
    try {
      const state = join(dir, '.copilot', 'session-state');
      cpSync(join(REAL_DIR, 'agent-sessions-session-state-dir', DIR_ID), join(state, DIR_ID), { recursive: true });
      cpSync(join(REAL_DIR, 'agent-sessions-schema-drift.jsonl'), join(state, 'copilot_stage0_drift.jsonl'));
      const scan = async () => {
        const stats = newScanStats();
        const out: UsageRecord[] = [];
        for await (const r of scanUsage({ agents: ['copilot'], roots: { copilot: [join(dir, '.copilot')] }, env: { HOME: dir }, cachePath: join(dir, 'c.db'), workers: 0, stats })) out.push(r);
        return { stats, out };
      };
      const cold = await scan();
      expect(cold.out.map((r) => r.dedupKey)).toEqual(['copilot:copilot_stage0_drift:e8:gpt-4.1']);
      const events = join(state, DIR_ID, 'events.jsonl');
      const run = `${JSON.stringify({ type: 'session.shutdown', data: { modelMetrics: { 'gpt-5': { requests: { count: 1, cost: 1 }, usage: { inputTokens: 70, outputTokens: 7, cacheReadTokens: 50, cacheWriteTokens: 0 } } } }, id: 'sd1', timestamp: '2026-03-26T18:00:00.000Z', parentId: 'e8' })}\n`;
      appendFileSync(events, run);
      const warm = await scan();
      expect(warm.stats).toMatchObject({ resumed: 1, unchanged: 1, fullReads: 0, bytesRead: Buffer.byteLength(run) });
      expect(warm.out.map((r) => [r.dedupKey, r.inputTokens, r.cacheReadTokens, r.cwd]).sort()).toEqual([
        ['copilot:aaaabbbb-1111-2222-3333-ccccddddeeee:sd1:gpt-5', 20, 50, '/tmp/project'],
        ['copilot:copilot_stage0_drift:e8:gpt-4.1', 200, 800, undefined],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sessions export keeps usage unknown, and the re-imported export says so too', async () => {
    const r = await cli(['sessions', 'export', 'copilot', DIR_ID]);
    expect(r.code).toBe(0);
    const header = JSON.parse(r.stdout.split('\n')[0] as string) as { type: string; usageUnknown?: boolean };
    expect(header).toMatchObject({ type: 'sessionfold.session', usageUnknown: true });
    writeFileSync(join(env.SESSIONFOLD_EXPORT_DIR as string, 'copilot-export.jsonl'), r.stdout);
    const rows = JSON.parse((await cli(['sessions', 'list', 'sessionfold-jsonl', '--json'])).stdout) as (Row & { file: string })[];
    const back = rows.find((x) => x.file.endsWith('copilot-export.jsonl'));
    expect(back?.usageUnknown).toBe(true);
    expect(rows.filter((x) => x.usageUnknown === true)).toHaveLength(1);
    rmSync(join(env.SESSIONFOLD_EXPORT_DIR as string, 'copilot-export.jsonl'));
  });

  it('cost report --json --group-by agent: the copilot row holds the golden totals, in USD priced from tokens', async () => {
    const r = await cli(['cost', 'report', '--json', '--group-by', 'agent', '--tz', 'UTC']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as CostSummary;
    const row = s.breakdowns?.copilot;
    const want = goldenTotals();
    expect(want.requestCount).toBe(2);
    expect(row).toMatchObject(want);
    expect(Object.keys(s.breakdowns ?? {}).sort()).toEqual(['copilot', 'sessionfold-jsonl']);
    // The three sessions without a shutdown after their last reply are counted apart, not as zero.
    expect(r.stderr).toBe('note: copilot: 3 sessions have tokens the agent has not recorded yet, counted as none here (`sessions list copilot` marks them)\n');
    expect((await cli(['cost', 'report', '--json', '--agent', 'github-copilot'])).stderr).toMatch(/^note: copilot: 3 sessions /);
    expect((await cli(['cost', 'report', '--json', '--agent', 'sessionfold-jsonl'])).stderr).toBe('');
  });
});
