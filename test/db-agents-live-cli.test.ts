/**
 * Every command over the four database agents while they run, through the built CLI (`npx tsc -p . &&
 * node scripts/bundle-cli.mjs` first): OpenCode, Hermes, Goose and Cursor databases from the suite's builders,
 * each held open by a writer process with autocheckpoint off (test/helpers/live-dbs.ts), so every database has
 * its -wal and -shm and some rows live in the -wal only. Each command's output is checked against what the
 * builders wrote (plain SQL on a private copy for the numbers), and after each command every database, -wal
 * and -shm has the same bytes, size and mtime as before it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionManager } from '../src/sessions/manager.js';
import { CHAT_ID, COMPOSER_A, COMPOSER_B, COMPOSER_MISSING } from './cursor-helpers.js';
import { S_BAD, S_MAIN, S_SUB } from './goose-helpers.js';
import { buildLiveDbs, GOOSE_LIVE, GOOSE_LIVE_TEXT, snapshotDbFiles, sqlOnLiveCopy, type LiveDbs } from './helpers/live-dbs.js';
import { startServeProcess } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';

const exec = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

let live: LiveDbs;
let dbs: string[];

/** The tokens and recorded cost plain SQL finds per session (`<agent>:<id>`); output includes reasoning. */
interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd?: number;
  requests: number;
}
let usage: Map<string, Usage>;

function sqlUsage(): Map<string, Usage> {
  const out = new Map<string, Usage>();
  const add = (id: string, u: Usage) => {
    const t = out.get(id) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0, requests: 0 };
    out.set(id, { input: t.input + u.input, output: t.output + u.output, cacheRead: t.cacheRead + u.cacheRead, cacheWrite: t.cacheWrite + u.cacheWrite, usd: u.usd === undefined ? undefined : (t.usd ?? 0) + u.usd, requests: t.requests + u.requests });
  };
  for (const r of sqlOnLiveCopy<{ session_id: string; data: string }>(live.opencode, 'SELECT session_id, data FROM message')) {
    const m = JSON.parse(r.data) as { role: string; cost?: number; tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } } };
    if (m.role !== 'assistant' || m.tokens === undefined) continue;
    add(`opencode:${r.session_id}`, { input: m.tokens.input, output: m.tokens.output + m.tokens.reasoning, cacheRead: m.tokens.cache.read, cacheWrite: m.tokens.cache.write, usd: m.cost, requests: 1 });
  }
  const hermesRows = sqlOnLiveCopy<Usage & { sid: string }>(
    live.hermes,
    `SELECT session_id AS sid, input_tokens AS input, output_tokens AS output, cache_read_tokens AS cacheRead, cache_write_tokens AS cacheWrite,
       CASE WHEN actual_cost_usd > 0 THEN actual_cost_usd ELSE estimated_cost_usd END AS usd, 1 AS requests FROM session_model_usage`,
  );
  for (const { sid, ...u } of hermesRows) add(`hermes:${sid}`, u);
  // Goose keeps one running total per session; a negative count (S_BAD) counts 0
  const gooseRows = sqlOnLiveCopy<{ id: string; input: number | null; output: number | null; usd: number | null }>(
    live.goose,
    'SELECT id, max(0, coalesce(accumulated_input_tokens, input_tokens)) AS input, max(0, coalesce(accumulated_output_tokens, output_tokens)) AS output, accumulated_cost AS usd FROM sessions',
  );
  for (const r of gooseRows) if (r.input !== null) add(`goose:${r.id}`, { input: r.input, output: r.output ?? 0, cacheRead: 0, cacheWrite: 0, usd: r.usd ?? undefined, requests: 1 });
  return out;
}

/** Sum of `usage` over the sessions of `agent`. */
function agentUsage(agent: string): Usage {
  const t: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0, requests: 0 };
  for (const [id, u] of usage) {
    if (!id.startsWith(`${agent}:`)) continue;
    t.input += u.input;
    t.output += u.output;
    t.cacheRead += u.cacheRead;
    t.cacheWrite += u.cacheWrite;
    t.requests += u.requests;
    t.usd = u.usd === undefined || t.usd === undefined ? undefined : t.usd + u.usd;
  }
  return t;
}

/** Run the CLI; every database file must be as it was before. `extra` adds to the environment. */
async function cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const before = snapshotDbFiles(dbs);
  const r = await exec(process.execPath, [CLI, ...args], { env: { ...live.env, ...extra }, maxBuffer: 64 << 20 }).then(
    (x) => ({ code: 0, ...x }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  expect(snapshotDbFiles(dbs), `${args.join(' ')} changed a database file`).toEqual(before);
  return r;
}
const out = async (...args: string[]): Promise<string> => {
  const r = await cli(args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await out(...args)) as T;

interface Summary {
  agent: string;
  sessionId: string;
  title: string;
  forkedFrom?: string;
  subagent?: boolean;
  cost?: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; totalUsd: number };
}

beforeAll(async () => {
  live = await buildLiveDbs();
  dbs = [live.opencode, live.hermes, live.goose, live.chatStore, live.ideState];
  usage = sqlUsage();
}, 60_000);

afterAll(async () => {
  await live?.close();
});

const EVERY_SESSION = [
  'opencode:ses_main', 'opencode:ses_child',
  'hermes:s_root', 'hermes:s_cont', 'hermes:s_branch', 'hermes:s_task', 'hermes:s_reset',
  `goose:${S_MAIN}`, `goose:${S_SUB}`, `goose:${S_BAD}`, `goose:${GOOSE_LIVE}`,
  `cursor:${CHAT_ID}`, `cursor:${COMPOSER_A}`, `cursor:${COMPOSER_B}`, `cursor:${COMPOSER_MISSING}`,
].sort();

describe('sessions list, show, search', () => {
  it('lists every session, with the rows only the -wal holds, titles, relations and usage as plain SQL has them', async () => {
    const rows = await json<Summary[]>('sessions', 'list', '--json', '--subagents');
    expect(rows.map((r) => `${r.agent}:${r.sessionId}`).sort()).toEqual(EVERY_SESSION);
    const by = new Map(rows.map((r) => [`${r.agent}:${r.sessionId}`, r]));
    expect([...by].filter(([, r]) => r.subagent === true).map(([k]) => k).sort()).toEqual(['goose:' + S_SUB, 'hermes:s_task', 'opencode:ses_child'].sort());
    expect(by.get('hermes:s_cont')).toMatchObject({ title: 'Fix the parser (continued)', forkedFrom: 's_root' });
    // a reset of the continuation: the chain s_reset → s_cont → s_root, no subagent
    expect(by.get('hermes:s_reset')).toMatchObject({ title: 'Start over', forkedFrom: 's_cont' });
    expect(by.get('hermes:s_reset')?.subagent).toBeUndefined();
    expect(by.get('opencode:ses_child')).toMatchObject({ title: 'Task 2 (@general subagent)', forkedFrom: 'ses_main' });
    expect(by.get(`goose:${GOOSE_LIVE}`)?.title).toBe('Flaky tests');
    expect(by.get(`cursor:${CHAT_ID}`)?.title).toBe('Build failure');
    expect(by.get(`cursor:${COMPOSER_A}`)?.title).toBe('Rate limiter');
    expect(usage.size).toBe(11); // every session the builders gave tokens: 2 OpenCode, 5 Hermes, 4 Goose
    for (const [id, u] of usage) {
      const c = by.get(id)?.cost;
      expect(c, id).toMatchObject({ inputTokens: u.input, outputTokens: u.output, cacheReadTokens: u.cacheRead, cacheWriteTokens: u.cacheWrite });
      if (u.usd !== undefined) expect(c?.totalUsd, id).toBeCloseTo(u.usd, 9);
    }
    for (const id of EVERY_SESSION.filter((s) => s.startsWith('cursor:'))) expect(by.get(id)?.cost, id).toBeUndefined();
    // the table: subagents left out
    const table = await out('sessions', 'list');
    for (const t of ['Session 1', 'Fix the parser (continued)', 'Try another way', 'Start over', 'Flaky tests', 'Build failure', 'Rate limiter']) expect(table).toContain(t);
    expect(table).not.toContain('Task 2 (@general subagent)');
  }, 60_000);

  it('shows a session of each agent, with the turn only the -wal holds', async () => {
    const oc = await json<{ turnCount: number; messages: { content: string }[]; cost: { inputTokens: number } }>('sessions', 'show', 'opencode', 'ses_main', '--format', 'json');
    expect(oc.turnCount).toBe(4);
    expect(oc.messages.map((m) => m.content)).toContain('answer 4');
    expect(oc.cost.inputTokens).toBe(usage.get('opencode:ses_main')?.input);
    const he = await out('sessions', 'show', 'hermes:s_cont');
    expect(he).toContain('# Fix the parser (continued)');
    expect(he).toContain('- **Forked from:** `s_root`');
    expect(he).toContain('question 9');
    expect(he).toContain(`| **Total** | 1 | ${usage.get('hermes:s_cont')?.input.toLocaleString('en-US')} |`);
    expect(await out('sessions', 'show', 'goose', GOOSE_LIVE)).toContain(GOOSE_LIVE_TEXT);
    const cu = await json<{ title: string; messages: { content: string }[]; cost?: unknown }>('sessions', 'show', `cursor:${CHAT_ID}`, '--format', 'json');
    expect(cu.title).toBe('Build failure');
    expect(cu.messages.map((m) => m.content)).toContain('A semicolon is missing in main.c.');
    expect(cu.cost).toBeUndefined();
  }, 60_000);

  it('searches message text and titles across the agents, the -wal rows included', async () => {
    const ids = async (text: string) => (await json<Summary[]>('sessions', 'search', text, '--json')).map((s) => `${s.agent}:${s.sessionId}`).sort();
    // "answer N" (OpenCode), "Answer N." (Hermes), "Only the answer survived." (a Cursor composer); no subagent
    expect(await ids('answer')).toEqual([`cursor:${COMPOSER_MISSING}`, 'hermes:s_branch', 'hermes:s_cont', 'hermes:s_reset', 'hermes:s_root', 'opencode:ses_main']);
    expect(await ids('flaky')).toEqual([`goose:${GOOSE_LIVE}`]);
    expect(await ids('semicolon')).toEqual([`cursor:${CHAT_ID}`]);
    expect(await ids('tokenizer')).toEqual(['hermes:s_cont']);
    // titles too: Goose's "Fix the parser" says it in a message, Hermes's two sessions in their titles only
    expect(await ids('parser')).toEqual([`goose:${S_MAIN}`, 'hermes:s_cont', 'hermes:s_root']);
  }, 60_000);
});

describe('sessions export, diff, resume', () => {
  it('exports Markdown and JSON', async () => {
    const md = await out('sessions', 'export', 'goose', S_MAIN, '--format', 'markdown');
    expect(md.startsWith('# Fix the parser\n')).toBe(true);
    expect(md).toContain('Why does cargo test fail?');
    expect(md).toContain(`| **Total** | 1 | ${usage.get(`goose:${S_MAIN}`)?.input.toLocaleString('en-US')} |`);
    const cu = await out('sessions', 'export', `cursor:${COMPOSER_A}`, '--format', 'markdown');
    expect(cu.startsWith('# Rate limiter\n')).toBe(true);
    expect(cu).toContain('Add a token-bucket limiter to the router.');
    const he = await json<{ sessionId: string; forkedFrom: string; messages: { content: string }[] }>('sessions', 'export', 'hermes:s_cont', '--format', 'json');
    const heCount = sqlOnLiveCopy<{ n: number }>(live.hermes, "SELECT count(*) AS n FROM messages WHERE session_id = 's_cont'")[0]?.n;
    expect(he).toMatchObject({ sessionId: 's_cont', forkedFrom: 's_root' });
    expect(he.messages).toHaveLength(heCount as number);
    expect(he.messages.map((m) => m.content)).toContain('Answer 9.');
    const oc = await json<{ messages: { content: string }[]; cost: { totalUsd: number } }>('sessions', 'export', 'opencode:ses_main', '--format', 'json');
    expect(oc.messages.filter((m) => /^answer \d$/.test(m.content))).toHaveLength(4);
    expect(oc.cost.totalUsd).toBeCloseTo(usage.get('opencode:ses_main')?.usd as number, 9);
  }, 60_000);

  it('diffs two sessions of an agent: text and JSON', async () => {
    // ses_child has the same three exchanges as ses_main, which has a fourth in the -wal
    const text = await out('sessions', 'diff', 'opencode:ses_main', 'opencode:ses_child');
    expect(text).toContain('- [ 9  ] user      prompt 4');
    expect(text.trimEnd().split('\n').at(-1)).toBe('9 unchanged, 0 modified, 0 added, 3 removed');
    // s_cont's turns are s_root's, other numbers: every message changed, none added or removed
    const n = sqlOnLiveCopy<{ n: number }>(live.hermes, "SELECT count(*) AS n FROM messages WHERE session_id = 's_root' AND role != 'system'")[0]?.n;
    const d = await json<{ stats: Record<string, number> }>('sessions', 'diff', 'hermes:s_root', 'hermes:s_cont', '--json');
    expect(d.stats).toEqual({ removals: 0, additions: 0, modifications: n, unchanged: 0 });
  }, 60_000);

  it('prints each agent\u2019s own resume command, in the session\u2019s directory', async () => {
    expect(await out('sessions', 'resume', 'opencode', 'ses_main')).toBe('cd /work/proj && opencode --session ses_main\n');
    expect(await out('sessions', 'resume', 'hermes:s_cont')).toBe('cd /work/app && hermes --resume s_cont\n');
    expect(await out('sessions', 'resume', `goose:${S_MAIN}`)).toBe(`cd /home/dev/app && goose session --resume --session-id ${S_MAIN}\n`);
    expect(await out('sessions', 'resume', `cursor:${CHAT_ID}`)).toBe(`cursor-agent --resume ${CHAT_ID}\n`);
    const ide = await cli(['sessions', 'resume', `cursor:${COMPOSER_A}`]);
    expect(ide.code).toBe(1);
    expect(ide.stderr).toContain(`Cursor IDE composer "${COMPOSER_A}" can only be reopened in the Cursor app`);
  }, 60_000);

  it('resumes through the library\u2019s SessionManager too', async () => {
    const before = snapshotDbFiles(dbs);
    const sm = createSessionManager({ env: live.env, cache: false });
    expect(await sm.resumeCommand('opencode', 'ses_main')).toEqual({ agent: 'opencode', sessionId: 'ses_main', argv: ['opencode', '--session', 'ses_main'], cwd: '/work/proj', file: `${live.opencode}#ses_main` });
    expect(await sm.resumeCommand('hermes', 's_cont')).toEqual({ agent: 'hermes', sessionId: 's_cont', argv: ['hermes', '--resume', 's_cont'], cwd: '/work/app', file: `${live.hermes}#s_cont` });
    expect(await sm.resumeCommand('goose', GOOSE_LIVE)).toEqual({
      agent: 'goose',
      sessionId: GOOSE_LIVE,
      argv: ['goose', 'session', '--resume', '--session-id', GOOSE_LIVE],
      cwd: '/home/dev/app',
      file: `${live.goose}#${GOOSE_LIVE}`,
    });
    await expect(sm.resumeCommand('hermes', 's_nope')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(snapshotDbFiles(dbs)).toEqual(before);
  }, 60_000);
});

describe('cost report, events export, start, agents', () => {
  it('reports cost per agent as plain SQL sums it; Cursor records none', async () => {
    const r = await json<{ breakdowns: Record<string, { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; totalUsd: number; requestCount: number; sessionCount: number }> }>(
      'cost', 'report', '--json', '--group-by', 'agent',
    );
    expect(Object.keys(r.breakdowns).sort()).toEqual(['goose', 'hermes', 'opencode']);
    for (const agent of ['goose', 'hermes', 'opencode']) {
      const u = agentUsage(agent);
      expect(r.breakdowns[agent], agent).toMatchObject({ inputTokens: u.input, outputTokens: u.output, cacheReadTokens: u.cacheRead, cacheWriteTokens: u.cacheWrite, requestCount: u.requests });
      if (u.usd !== undefined) expect(r.breakdowns[agent]?.totalUsd, agent).toBeCloseTo(u.usd, 9);
    }
    const table = await cli(['cost', 'report', '--group-by', 'agent']);
    expect(table.stderr).toContain('note: cursor: 4 session files; the agent records no token usage');
  }, 60_000);

  it('exports every usage event once, with the -wal rows; none for Cursor', async () => {
    const rows = (await out('events', 'export', '--tz', 'UTC')).trim().split('\n').map((l) => JSON.parse(l) as { agent: string; sessionId: string; inputTokens: number; outputTokens: number });
    const count: Record<string, number> = {};
    const input: Record<string, number> = {};
    for (const e of rows) {
      count[e.agent] = (count[e.agent] ?? 0) + 1;
      input[e.agent] = (input[e.agent] ?? 0) + e.inputTokens;
    }
    const agents = ['goose', 'hermes', 'opencode'];
    expect(count).toEqual(Object.fromEntries(agents.map((a) => [a, agentUsage(a).requests])));
    expect(input).toEqual(Object.fromEntries(agents.map((a) => [a, agentUsage(a).input])));
    expect(rows.some((e) => e.sessionId === GOOSE_LIVE)).toBe(true);
  }, 60_000);

  it('start: the recent sessions and the cost by day over the live databases', async () => {
    const r = await cli(['start']);
    expect(r.code, r.stderr).toBe(0);
    for (const t of ['Recent sessions', 'Flaky tests', 'Fix the parser (continued)', 'Start over']) expect(r.stdout).toContain(t);
    const all = ['goose', 'hermes', 'opencode'].map(agentUsage).reduce((a, b) => a + b.input, 0);
    expect(r.stdout).toMatch(new RegExp(`^Total +\\d+ +\\d+ +${all.toLocaleString('en-US')} `, 'm'));
    expect(r.stderr).toContain('opencode ~/data/opencode (2 files), hermes ~/.hermes (5 files)');
  }, 60_000);

  it('agents: the four database agents and the roots this home gives them', async () => {
    const rows = await json<{ id: string; persistence: string; roots: string[] }[]>('agents', '--json');
    const by = new Map(rows.map((r) => [r.id, r]));
    const h = live.home;
    expect(by.get('opencode')).toMatchObject({ persistence: 'sqlite', roots: [join(h, 'data', 'opencode')] });
    expect(by.get('hermes')).toMatchObject({ persistence: 'sqlite', roots: [join(h, '.hermes')] });
    expect(by.get('goose')).toMatchObject({ persistence: 'sqlite', roots: [join(h, 'data', 'goose', 'sessions')] });
    expect(by.get('cursor')?.roots).toEqual(expect.arrayContaining([join(h, '.cursor'), join(h, 'config', 'Cursor', 'User')]));
    expect(await out('agents')).toMatch(/^hermes +sqlite +resumable +\S*\.hermes$/m);
  }, 60_000);
});

describe('served', () => {
  it('a running server answers sessions list with the local run\u2019s output', async () => {
    const socket = join(live.home, 'run', 'sf.sock');
    const before = snapshotDbFiles(dbs);
    const server = await startServeProcess(CLI, socket, { ...live.env, SESSIONFOLD_SOCKET: socket });
    try {
      const args = ['sessions', 'list', '--json', '--subagents'];
      const served = await cli(args, { SESSIONFOLD_SOCKET: socket, SESSIONFOLD_CACHE: join(live.home, 'served.db') });
      await expect.poll(() => (server.log().match(/^served /gm) ?? []).length, COUNTED).toBe(1);
      const local = await cli(args, { SESSIONFOLD_CACHE: join(live.home, 'local.db') });
      expect(served).toEqual(local);
      expect((JSON.parse(served.stdout) as Summary[]).map((r) => `${r.agent}:${r.sessionId}`).sort()).toEqual(EVERY_SESSION);
    } finally {
      await server.stop();
    }
    expect(snapshotDbFiles(dbs)).toEqual(before);
  }, 60_000);
});
