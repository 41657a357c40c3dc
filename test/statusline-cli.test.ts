/**
 * `sessionfold statusline` end to end: the built CLI fed Claude Code's status-line JSON (every documented
 * field, as Claude Code sends it) over a real Claude session copied into an isolated HOME, with a second,
 * generated session the same day and an older one; the clock is fixed with `--now`. The line's parts are
 * checked against a plain reading of the files (tokens, recorded costs) and against `cost report` and the
 * blocks fold at the same instant; bad input gives the fallback line and a coded error; `--agent`/`--session`
 * and `--file` work without stdin; a running `serve` answers it with the same output.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageBlocks } from '../src/cost/total.js';
import { statusLine, type StatusLineData } from '../src/cost/statusline.js';
import { renderStatusLine } from '../src/cli/render/statusline.js';
import type { CostSummary } from '../src/cost/types.js';
import { sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { isServed } from '../src/serve/protocol.js';
import { serveDuringBlock } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';
import { HAS_CLAUDE, HAS_CODEX, makeHome, REAL, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const exec = promisify(execFile);

const NOW = '2025-08-28T13:30:00.000Z';
const SID = 'e9f146fa-3b20-48d0-9be4-d99ca901cae4';
const FIXTURE = join(REAL, 'claude', 'vibecodingtracker-real-session-v1.0.95-zh.jsonl');
// Another session that day, before the fixture's (so the window starts at 12:00), with recorded costs.
const OTHER: Req[] = [
  { id: 'o1', ms: Date.parse('2025-08-28T12:10:00Z'), inp: 100, out: 50, cr: 0, cw: 0, usd: 0.5 },
  { id: 'o2', ms: Date.parse('2025-08-28T12:40:00Z'), inp: 100, out: 50, cr: 0, cw: 0, usd: 0.25 },
];
// The day before: in neither today's cost nor the window.
const OLD: Req[] = [{ id: 'y1', ms: Date.parse('2025-08-27T09:00:00Z'), inp: 1, out: 1, cr: 0, cw: 0, usd: 7 }];

let home: Home;
let transcript: string;
/** Claude Code's status-line JSON for the fixture session (https://code.claude.com/docs/en/statusline). */
let input: string;

beforeAll(async () => {
  home = await makeHome();
  const dir = join(home.claude, 'projects', '-w');
  await mkdir(dir, { recursive: true });
  transcript = join(dir, `${SID}.jsonl`);
  await cp(FIXTURE, transcript);
  await writeClaudeSession(home.claude, '22222222-2222-4222-8222-222222222222', OTHER);
  await writeClaudeSession(home.claude, '33333333-3333-4333-8333-333333333333', OLD);
  input = JSON.stringify({
    hook_event_name: 'Status',
    session_id: SID,
    transcript_path: transcript,
    cwd: '/w',
    model: { id: 'claude-sonnet-4-20250514', display_name: 'Sonnet 4' },
    workspace: { current_dir: '/w', project_dir: '/w' },
    version: '1.0.95',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.42, total_duration_ms: 60000, total_api_duration_ms: 20000, total_lines_added: 3, total_lines_removed: 1 },
    context_window: { total_input_tokens: 1000, total_output_tokens: 200, context_window_size: 200000, used_percentage: 38, remaining_percentage: 62 },
    exceeds_200k_tokens: false,
  });
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

function cli(args: string[], stdin?: string, env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { env: { ...home.env, SESSIONFOLD_SOCKET: 'off', ...env } }, (e, stdout, stderr) =>
      resolve({ stdout, stderr, code: e === null ? 0 : Number((e as { code?: number }).code) }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

/**
 * The fixture's responses as a plain reader sees them: one per message id and request id, the last line's copy;
 * `copied` when the line names another session (the fixture is a resumed session: its first responses are
 * copies of session b162b1ae…, which counts them).
 */
async function fixtureResponses(): Promise<{ prompt: number; ms: number; copied: boolean }[]> {
  const byKey = new Map<string, { prompt: number; ms: number; copied: boolean }>();
  for (const line of (await readFile(FIXTURE, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    const j = JSON.parse(line) as { type?: string; sessionId?: string; timestamp?: string; requestId?: string; message?: { id?: string; usage?: Record<string, number> } };
    const u = j.message?.usage;
    if (j.type !== 'assistant' || u === undefined) continue;
    const prompt = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    byKey.set(`${j.message?.id}:${j.requestId}`, { prompt, ms: Date.parse(j.timestamp as string), copied: j.sessionId !== SID });
  }
  return [...byKey.values()];
}

describe.skipIf(!HAS_CLAUDE)('statusline (built CLI)', () => {
  it('reads Claude Code\'s JSON and prints model, session, today, window and context on one line', async () => {
    const json = await cli(['statusline', '--now', NOW, '--tz', 'UTC', '--json'], input);
    expect(json.stderr).toBe('');
    const d = JSON.parse(json.stdout) as StatusLineData;
    expect(d).toMatchObject({ agent: 'claude', sessionId: SID, model: { id: 'claude-sonnet-4-20250514', displayName: 'Sonnet 4' }, now: NOW });

    // today = the day's row of `cost report` (the fixture's usage and OTHER's; not OLD's)
    const day = JSON.parse((await cli(['cost', 'report', '--json', '--agent', 'claude', '--since', '2025-08-28', '--until', '2025-08-28', '--tz', 'UTC'])).stdout) as CostSummary;
    expect(d.today).toEqual({ date: '2025-08-28', costUsd: day.totalUsd, requests: day.requestCount, unpricedCount: day.unpricedCount });
    expect(d.today.costUsd).toBeGreaterThan(sumOf(OTHER, (r) => r.usd));
    // the session: the fixture file's own responses (OTHER's recorded $0.75 is today's, not the session's;
    // the copies of the session it resumed are that session's spend, though `cost report` credits them here,
    // their origin's file being absent), as `sessions show` counts them
    const responses = await fixtureResponses();
    expect(responses.filter((r) => r.copied).length).toBe(14);
    expect(d.session?.requests).toBe(responses.filter((r) => !r.copied).length);
    const shown = JSON.parse((await cli(['sessions', 'show', 'claude', SID, '--format', 'json'])).stdout) as { cost: CostSummary; copiedCost: CostSummary };
    expect(d.session?.costUsd).toBeCloseTo(shown.cost.totalUsd, 9);
    expect(d.session?.costUsd).toBeCloseTo(d.today.costUsd - sumOf(OTHER, (r) => r.usd) - shown.copiedCost.totalUsd, 9);

    // context: the last response with a prompt, against the window Claude Code states
    const withPrompt = responses.filter((r) => r.prompt > 0).sort((a, b) => a.ms - b.ms);
    const used = (withPrompt[withPrompt.length - 1] as { prompt: number }).prompt;
    expect(used).toBe(2 + 74970 + 415);
    expect(d.context).toEqual({ usedTokens: used, windowTokens: 200000, windowSource: 'agent', percent: (used / 200000) * 100 });

    // the window: 12:00–17:00 holds OTHER and the fixture; it equals the blocks fold's active window at NOW
    const blocks = await usageBlocks({ agents: ['claude'], env: home.env, cache: false, now: new Date(NOW) });
    const active = blocks.blocks.find((b) => b.isActive);
    expect(d.block).toEqual({
      startTime: '2025-08-28T12:00:00.000Z',
      endTime: '2025-08-28T17:00:00.000Z',
      costUsd: active?.costUSD,
      requests: active?.entries,
      unpricedCount: 0,
      totalTokens: active?.totalTokens,
      remainingMinutes: 210,
      burnRate: { costPerHour: active?.burnRate?.costPerHour, tokensPerMinute: active?.burnRate?.tokensPerMinute },
      projectedCostUsd: active?.projection?.totalCost,
    });
    expect(d.block?.costUsd).toBeCloseTo(d.today.costUsd, 9);
    const firstMs = (OTHER[0] as Req).ms;
    const lastMs = Math.max(...responses.map((r) => r.ms));
    expect(d.block?.burnRate?.costPerHour).toBeCloseTo((d.today.costUsd / ((lastMs - firstMs) / 60_000)) * 60, 9);

    const line = await cli(['statusline', '--now', NOW, '--tz', 'UTC'], input);
    expect(line.stderr).toBe('');
    const usd = (n: number) => `$${n.toFixed(2)}`;
    expect(line.stdout).toBe(
      `Sonnet 4 · session ${usd(d.session?.costUsd as number)} · today ${usd(d.today.costUsd)} · block ${usd(d.block?.costUsd as number)}, 3h 30m left, ${usd(d.block?.burnRate?.costPerHour as number)}/h · ctx ${used.toLocaleString('en-US')}/200,000 (${Math.round((used / 200000) * 100)}%)\n`,
    );
  }, 60_000);

  it('past the window and on another day: no block, today empty, the session still costed', async () => {
    const d = JSON.parse((await cli(['statusline', '--now', '2025-08-29T20:00:00Z', '--tz', 'UTC', '--json'], input)).stdout) as StatusLineData;
    expect(d.block).toBeNull();
    expect(d.today).toEqual({ date: '2025-08-29', costUsd: 0, requests: 0, unpricedCount: 0 });
    expect(d.session?.requests).toBe((await fixtureResponses()).filter((r) => !r.copied).length);
  }, 30_000);

  it('bad input: the fallback line on stdout, a coded error on stderr, never a stack', async () => {
    for (const bad of ['{"session_id": ', '[1,2]', '{"model":{"id":"x"}}', '']) {
      const r = await cli(['statusline'], bad);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('sessionfold: no status (PARSE_ERROR)\n');
      expect(r.stderr).toMatch(/^error PARSE_ERROR: statusline: .+\n$/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const opt = await cli(['statusline', '--now', 'yesterday-ish'], input);
    expect(opt.stdout).toBe('sessionfold: no status (INVALID_OPTION)\n');
    expect(opt.stderr).toMatch(/^error INVALID_OPTION: Invalid option --now/);
  }, 30_000);

  it('--file and --agent/--session need no stdin; the window size then comes from genai-prices', async () => {
    const viaFile = JSON.parse((await cli(['statusline', '--file', transcript, '--now', NOW, '--tz', 'UTC', '--json'])).stdout) as StatusLineData;
    const viaJson = JSON.parse((await cli(['statusline', '--now', NOW, '--tz', 'UTC', '--json'], input)).stdout) as StatusLineData;
    expect(viaFile.session).toEqual(viaJson.session);
    expect(viaFile.today).toEqual(viaJson.today);
    expect(viaFile.block).toEqual(viaJson.block);
    expect(viaFile.context).toMatchObject({ usedTokens: viaJson.context?.usedTokens, windowTokens: 200000, windowSource: 'genai-prices' });
    expect(viaFile.model.id).toBe('claude-sonnet-4-20250514');
    const other = JSON.parse((await cli(['statusline', '--agent', 'claude', '--session', '22222222-2222-4222-8222-222222222222', '--now', NOW, '--tz', 'UTC', '--json'])).stdout) as StatusLineData;
    expect(other.session).toEqual({ costUsd: sumOf(OTHER, (r) => r.usd), requests: 2, unpricedCount: 0 });
    // a person's --session may be the first characters of the id, as `sessions` takes it
    const byPrefix = await cli(['statusline', '--agent', 'claude', '--session', SID.slice(0, 8), '--now', NOW, '--tz', 'UTC', '--json']);
    expect(JSON.parse(byPrefix.stdout)).toMatchObject({ sessionId: SID, sessionFound: true, session: viaFile.session });
    expect(byPrefix.stderr).not.toMatch(/no claude session/);
    const noAgent = await cli(['statusline', '--session', SID]);
    expect(noAgent.stderr).toMatch(/^error USAGE_ERROR: statusline --session needs --agent/);
  }, 60_000);

  it.skipIf(!HAS_CODEX)('works for a Codex session by id', async () => {
    const day = join(home.codex, 'sessions', '2026', '08', '03');
    await mkdir(day, { recursive: true });
    const id = '019fc8be-3658-7ca3-9e29-000000000000';
    await cp(join(REAL, 'codex', 'agent-sessions-v0.146-sanitized.jsonl'), join(day, `rollout-2026-08-03T10-48-56-${id}.jsonl`));
    const d = JSON.parse((await cli(['statusline', '--agent', 'codex', '--session', id, '--now', '2026-08-03T12:00:00Z', '--tz', 'UTC', '--json'])).stdout) as StatusLineData;
    const report = JSON.parse((await cli(['cost', 'report', '--json', '--agent', 'codex'])).stdout) as CostSummary;
    expect(d.session).toEqual({ costUsd: report.totalUsd, requests: report.requestCount, unpricedCount: report.unpricedCount });
    expect(d.session?.requests).toBeGreaterThan(0);
    expect(d.today.costUsd).toBe(report.totalUsd);
    expect(d.block?.costUsd).toBeCloseTo(report.totalUsd, 9);
  }, 60_000);

  it('a window of one request counts its time left from now; an unpriced window is n/a*; a past --now leaves later usage out; [1m] is a 1M window', async () => {
    const h = await makeHome();
    try {
      const sid = '55555555-5555-4555-8555-555555555555';
      const model = 'mystery-model-x';
      await writeClaudeSession(h.claude, sid, [
        { id: 'm1', ms: Date.parse('2026-11-21T10:10:00Z'), inp: 1000, out: 100, cr: 0, cw: 0, usd: 0, model },
        { id: 'm2', ms: Date.parse('2026-11-21T20:00:00Z'), inp: 5, out: 5, cr: 0, cw: 0, usd: 0, model },
      ]);
      const at = (now: string, extra: Partial<Parameters<typeof statusLine>[0]> = {}) =>
        statusLine({ agent: 'claude', sessionId: sid, env: h.env, cache: false, now: new Date(now), timeZone: 'UTC', mode: 'calculate', ...extra });
      const late = await at('2026-11-21T14:59:00Z');
      // the window 10:00–15:00, one minute from its end, not 4h 50m (its last request to its end)
      expect(late.block).toMatchObject({ startTime: '2026-11-21T10:00:00.000Z', remainingMinutes: 1, requests: 1, unpricedCount: 1, costUsd: 0 });
      expect(renderStatusLine(late)).toContain('block n/a*, 0h 01m left');
      // the 20:00 response is written after that instant: in neither the session nor the day
      expect(late.session).toEqual({ costUsd: 0, requests: 1, unpricedCount: 1 });
      expect(late.today.requests).toBe(1);
      expect((await at('2026-11-21T20:30:00Z')).session?.requests).toBe(2);
      const wide = await at('2026-11-21T10:30:00Z', { model: 'claude-sonnet-4-5-20250929[1m]' });
      expect(wide.context).toMatchObject({ usedTokens: 1000, windowTokens: 1_000_000, windowSource: 'model-id' });
    } finally {
      await rm(h.dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('finds the window a chain of windows with no 5-hour silence leads to, past the first look-back', async () => {
    const h = await makeHome();
    try {
      // A request every hour for 3 days: each window starts at the first request after the last one's end, so
      // where the active one starts depends on the very first request.
      const end = Date.parse(NOW);
      const reqs: Req[] = [];
      for (let i = 0; i < 72; i++) reqs.push({ id: `c${i}`, ms: end - 72 * 3_600_000 + i * 3_600_000 + 7 * 60_000, inp: 10, out: 10, cr: 0, cw: 0, usd: 0.01 * (i + 1) });
      await writeClaudeSession(h.claude, '44444444-4444-4444-8444-444444444444', reqs);
      const want = (await usageBlocks({ agents: ['claude'], env: h.env, cache: false, now: new Date(NOW) })).blocks.find((b) => b.isActive);
      const got = await statusLine({ agent: 'claude', sessionId: '44444444-4444-4444-8444-444444444444', env: h.env, cache: false, now: new Date(NOW), timeZone: 'UTC' });
      expect(want).toBeDefined();
      expect(got.block?.startTime).toBe(want?.startTime);
      expect(got.block?.costUsd).toBe(want?.costUSD);
      // a look-back of 24 h alone would start the window at another hour
      const bounded = (await usageBlocks({ agents: ['claude'], env: h.env, cache: false, now: new Date(NOW), since: new Date(end - 24 * 3_600_000) })).blocks.find((b) => b.isActive);
      expect(bounded?.startTime).not.toBe(want?.startTime);
    } finally {
      await rm(h.dir, { recursive: true, force: true });
    }
  }, 30_000);

  describe('served', () => {
    const server = serveDuringBlock(CLI, () => home.dir, () => home.env);

    it('a running serve answers it, with the local run\'s output', async () => {
      expect(isServed(['statusline', '--agent', 'claude', '--session', SID])).toBe(true);
      expect(isServed(['statusline', '--help'])).toBe(false);
      const args = ['statusline', '--now', NOW, '--tz', 'UTC'];
      const local = await cli(args, input);
      const served = await cli(args, input, { SESSIONFOLD_SOCKET: server.socket() });
      expect(served).toEqual(local);
      // The front from its ESM bundle (SESSIONFOLD_CJS=0, as where the CommonJS one is missing): the same answer
      expect(await cli(args, input, { SESSIONFOLD_SOCKET: server.socket(), SESSIONFOLD_CJS: '0' })).toEqual(local);
      await expect.poll(server.served, COUNTED).toBe(2);
      const status = await exec(process.execPath, [CLI, 'serve', '--status', '--socket', server.socket()], { env: home.env });
      const s = JSON.parse(status.stdout) as { served: number; recent: string[] };
      expect(s.served).toBe(2);
      expect(s.recent[0]).toMatch(/^statusline --agent claude --session e9f146fa/);
    }, 60_000);
  });
});
