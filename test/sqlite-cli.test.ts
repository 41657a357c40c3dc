/**
 * The database agents end to end through the built CLI (`npx tsc -p . && node scripts/bundle-cli.mjs`
 * first): `sessions list|show|search`, `cost report --json --group-by agent` (cold, then warm through the
 * event cache after OpenCode and Hermes wrote more rows), `read` of a database session, a whole database and
 * an export; and afterwards the agents' folders hold the same files, bytes and mtimes.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPath } from '../cursors/sqlite.js';
import { buildHermesDb, INSERT_MESSAGE as HERMES_MESSAGE, turn, UPSERT_USAGE, usage } from './helpers/hermes-db.js';
import { buildOpencodeDb, insertExchange, writeDb } from './helpers/opencode-db.js';
import { snapshotTree } from './sessions-helpers.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

let home: string;
let env: NodeJS.ProcessEnv;
let ocDb: string;
let hermesDb: string;

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 });
  return stdout;
}

/**
 * Plain SQL totals per agent: OpenCode's assistant message tokens (output + reasoning), Hermes's usage rows.
 * The writers here close their databases (all in the main file), so an immutable open reads everything and,
 * unlike a plain read-only open, creates no -wal or -shm.
 */
function sqlTotals(): Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> {
  const oc = new Database(`file:${ocDb}?mode=ro&immutable=1`, { readonly: true });
  const o = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const { data } of oc.prepare('SELECT data FROM message').all() as { data: string }[]) {
    const m = JSON.parse(data);
    if (m.role !== 'assistant' || !m.tokens) continue;
    o.input += m.tokens.input;
    o.output += m.tokens.output + m.tokens.reasoning;
    o.cacheRead += m.tokens.cache.read;
    o.cacheWrite += m.tokens.cache.write;
  }
  oc.close();
  const he = new Database(`file:${hermesDb}?mode=ro&immutable=1`, { readonly: true });
  const h = he.prepare('SELECT sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cache_read_tokens) AS cacheRead, sum(cache_write_tokens) AS cacheWrite FROM session_model_usage').get() as typeof o;
  he.close();
  return { opencode: o, hermes: h };
}

function reportTotals(json: string): Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> {
  const r = JSON.parse(json) as { breakdowns: Record<string, { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }> };
  const out: Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }> = {};
  for (const [k, b] of Object.entries(r.breakdowns)) out[k] = { input: b.inputTokens, output: b.outputTokens, cacheRead: b.cacheReadTokens, cacheWrite: b.cacheWriteTokens };
  return out;
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-dbcli-'));
  const data = join(home, 'data');
  mkdirSync(join(data, 'opencode'), { recursive: true });
  mkdirSync(join(home, '.hermes'));
  ocDb = join(data, 'opencode', 'opencode.db');
  hermesDb = join(home, '.hermes', 'state.db');
  buildOpencodeDb(ocDb, 3);
  buildHermesDb(hermesDb);
  env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: data, XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), TZ: 'UTC' };
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('database agents through the CLI', () => {
  it('lists, shows, searches and reports cost; a warm report after new rows; the agents\u2019 folders unchanged', async () => {
    const folders = [join(home, 'data', 'opencode'), join(home, '.hermes')];
    const snapshot = async () => new Map((await Promise.all(folders.map(snapshotTree))).flatMap((m) => [...m]));
    const before = await snapshot();

    const list = JSON.parse(await cli('sessions', 'list', '--json', '--subagents')) as { agent: string; sessionId: string; forkedFrom?: string; subagent?: boolean }[];
    expect(list.map((s) => `${s.agent}:${s.sessionId}`).sort()).toEqual(
      ['hermes:s_branch', 'hermes:s_cont', 'hermes:s_root', 'hermes:s_task', 'opencode:ses_child', 'opencode:ses_main'].sort(),
    );
    expect(list.find((s) => s.sessionId === 'ses_child')).toMatchObject({ forkedFrom: 'ses_main', subagent: true });
    expect(list.filter((s) => s.subagent === true).map((s) => s.sessionId).sort()).toEqual(['s_task', 'ses_child']);

    const shown = await cli('sessions', 'show', 'opencode', 'ses_main');
    expect(shown).toContain('answer 3');
    expect(await cli('sessions', 'show', 'hermes', 's_cont')).toContain('where is the tokenizer bug');

    const found = JSON.parse(await cli('sessions', 'search', 'tokenizer', '--json')) as { agent: string; sessionId: string }[];
    expect(found.map((s) => `${s.agent}:${s.sessionId}`)).toEqual(['hermes:s_cont']);

    const cold = reportTotals(await cli('cost', 'report', '--json', '--group-by', 'agent'));
    expect(cold).toEqual(sqlTotals());
    expect(before.size).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(before);

    // both agents write more: a warm report reads the changed sessions from their cursors
    writeDb(ocDb, (oc) => insertExchange(oc, 'ses_main', 4));
    const he = new Database(hermesDb);
    for (const r of turn('s_cont', 9)) he.prepare(HERMES_MESSAGE).run(...r);
    he.prepare(UPSERT_USAGE).run(...usage('s_cont', 'claude-sonnet-4-6', 9));
    he.close();
    const afterWrites = await snapshot();
    const warm = reportTotals(await cli('cost', 'report', '--json', '--group-by', 'agent'));
    expect(warm).toEqual(sqlTotals());
    expect(warm.opencode?.input).toBeGreaterThan(cold.opencode?.input as number);
    expect(await snapshot()).toEqual(afterWrites);
  });

  it('reads a database session, a whole database, and an export', async () => {
    const one = (await cli('read', recordPath(ocDb, 'ses_child'), '--agent', 'opencode')).trim().split('\n').map((l) => JSON.parse(l));
    expect(new Set(one.map((e) => e.sessionId))).toEqual(new Set(['ses_child']));
    const whole = (await cli('read', hermesDb, '--agent', 'hermes', '--kinds', 'session')).trim().split('\n').map((l) => JSON.parse(l));
    expect(whole.map((e) => e.sessionId)).toEqual(['s_root', 's_cont', 's_branch', 's_task']);
    const file = join(home, 'export.json');
    writeFileSync(file, JSON.stringify({ info: { id: 'ses_x', directory: '/x', title: 'Exported', time: { created: 1767000000000 } }, messages: [{ info: { id: 'msg_1', role: 'user', time: { created: 1767000000001 } }, parts: [{ id: 'prt_1', type: 'text', text: 'hello export' }] }] }));
    const exported = (await cli('read', file, '--agent', 'opencode')).trim().split('\n').map((l) => JSON.parse(l));
    expect(exported.map((e) => e.type)).toEqual(['session', 'message']);
    expect(exported[1]).toMatchObject({ role: 'user', text: 'hello export' });
  });
});
