/**
 * Devin CLI (`$XDG_DATA_HOME/devin/cli/sessions.db`) over a database built from fixtures/devin/sessions.sql,
 * shaped as codecs/devin/README.md documents it: golden events, token totals checked by a deliberately simple
 * second reader, one usage per request whatever rows and sessions hold it, a fork's copies marked, the main
 * chain as the conversation, malformed rows skipped and counted, the database left byte-for-byte as it was
 * (with a live writer's WAL beside it too), the roots, and the built CLI under an isolated HOME.
 * Regenerate the golden file with `UPDATE_GOLDEN=1 npx vitest run test/devin.test.ts`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devin, getDevinRoots } from '../codecs/devin/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { buildIfStale } from './helpers/agent-cli.js';
import { codecUsageTotals, type UsageTotals } from './helpers/usage-totals.js';
import { buildDevinDb, DEVIN_SQL } from './helpers/devin-db.js';

const EXPECTED_DIR = new URL('../fixtures/expected/devin/', import.meta.url).pathname;
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const run = promisify(execFile);

/**
 * The simple second reader: every assistant row whose content is text, a list or absent and that has a metrics
 * object, once per request id (else message id); a count that is not a non-negative integer is 0; billed input
 * is input plus both cache counts (Devin's input leaves the cache out).
 */
function naiveTotals(sql: string = DEVIN_SQL): UsageTotals {
  const db = new Database(':memory:');
  db.exec(sql);
  const rows = db
    .prepare(
      `SELECT COALESCE(json_extract(chat_message, '$.metadata.request_id'), json_extract(chat_message, '$.message_id')) AS k,
              json_extract(chat_message, '$.metadata.metrics') AS m
       FROM message_nodes WHERE json_valid(chat_message) AND json_extract(chat_message, '$.role') = 'assistant'
         AND json_type(chat_message, '$.metadata.metrics') = 'object'
         AND COALESCE(json_type(chat_message, '$.content'), 'null') IN ('null', 'text', 'array') ORDER BY row_id`,
    )
    .all() as { k: string; m: string }[];
  db.close();
  const n = (v: unknown) => (Number.isInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  const sum: UsageTotals = { input: 0, cached: 0, output: 0, reasoning: 0, responses: 0 };
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.k)) continue;
    seen.add(r.k);
    const m = JSON.parse(r.m) as Record<string, unknown>;
    sum.input += n(m.input_tokens) + n(m.cache_read_tokens) + n(m.cache_creation_tokens);
    sum.cached += n(m.cache_read_tokens);
    sum.output += n(m.output_tokens);
    sum.responses++;
  }
  return sum;
}

let home: string;
let cliDir: string;
let dbPath: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-devin-'));
  cliDir = join(home, '.local', 'share', 'devin', 'cli');
  mkdirSync(cliDir, { recursive: true });
  dbPath = join(cliDir, 'sessions.db');
  buildDevinDb(dbPath);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

async function discovered(env: NodeJS.ProcessEnv = { HOME: home }) {
  const out = [];
  for await (const f of devin.discover(devin.defaultRoots(env))) out.push(f);
  return out;
}

const usageOf = (events: readonly SessionfoldEvent[]) => byKind(events).usage as UsageEvent[];

describe('devin golden events', () => {
  it('a read of the database equals the checked-in events, with totals of the simple reader', async () => {
    const before = await treeListing(cliDir);
    const events = await readEvents(devin, dbPath);
    await expectGolden(EXPECTED_DIR, 'sessions', events);
    expect(codecUsageTotals(events)).toEqual(naiveTotals());
    expect(await treeListing(cliDir), 'the database folder is as it was, no -wal or -shm beside it').toEqual(before);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', () => {
    expect(naiveTotals()).toEqual({ input: 158599, cached: 157756, output: 520, reasoning: 0, responses: 5 });
  });

  it('a usage-only read gives the session and usage events of a full read', async () => {
    const full = (await readEvents(devin, dbPath)).filter((e) => e.type === 'session' || e.type === 'usage');
    expect(await readEvents(devin, dbPath, { kinds: ['session', 'usage'] })).toEqual(full);
  });
});

describe('devin usage', () => {
  it('counts a reply stored twice once, input apart from the cache', async () => {
    const usage = usageOf(await readEvents(devin, dbPath));
    const shop = usage.filter((u) => u.sessionId === 'ses_01shop');
    expect(shop.map((u) => u.dedupKey)).toEqual(['devin:req_1', 'devin:req_2', 'devin:req_3']);
    expect(shop[0]).toMatchObject({ model: 'claude-sonnet-4-5', inputTokens: 67, cacheReadTokens: 32256, cacheWriteTokens: 0, outputTokens: 103, timestamp: '2026-01-05T08:00:20.000Z', singleRequest: true });
    expect(shop[1]).toMatchObject({ inputTokens: 120, cacheReadTokens: 32400, cacheWriteTokens: 512, outputTokens: 340 });
  });

  it("takes the session's model for a reply without one, and an impossible count as none", async () => {
    const req3 = usageOf(await readEvents(devin, dbPath)).find((u) => u.dedupKey === 'devin:req_3');
    expect(req3).toMatchObject({ model: 'adaptive', modelFallback: true, inputTokens: 0, outputTokens: 5, cacheReadTokens: 33000 });
  });

  it("marks a fork's copied requests and names the session they came from", async () => {
    const files = await discovered();
    const fork = await readEvents(devin, files.find((f) => f.sessionId === 'ses_02fork')!.path);
    expect(fork[0]).toMatchObject({ type: 'session', sessionId: 'ses_02fork', forkedFrom: 'ses_01shop', cwd: '/home/ana/shop', model: 'gpt-5' });
    expect(usageOf(fork).map((u) => [u.dedupKey, u.copied === true])).toEqual([
      ['devin:req_1', true],
      ['devin:req_4', false],
      ['devin:m_b2', false],
    ]);
  });

  it('says the usage of a session whose replies carry no metrics is unknown', async () => {
    const files = await discovered();
    const idle = await readEvents(devin, files.find((f) => f.sessionId === 'ses_03idle')!.path);
    expect(idle[0]).toMatchObject({ type: 'session', usageUnknown: true, startedAt: '2026-01-06T09:00:00.000Z' });
    expect(usageOf(idle)).toEqual([]);
  });
});

describe('devin sessions and conversation', () => {
  it('discovers every session as a record path, oldest first', async () => {
    expect((await discovered()).map((f) => f.sessionId)).toEqual(['ses_01shop', 'ses_02fork', 'ses_03idle']);
  });

  it('reads the conversation once per message, with tool calls, results and thinking', async () => {
    const k = byKind(await readEvents(devin, (await discovered())[0]!.path));
    expect(k.message.map((m) => (m as { role: string; text: string }).text)).toEqual([
      'Why does the checkout test fail?',
      'Let me run the test.',
      'The handler throws when the cart is empty; I added a guard.',
      'continue',
      'Done.',
    ]);
    expect(k.message[3]).toMatchObject({ role: 'user', subtype: 'injected' });
    expect(k.tool_call).toEqual([expect.objectContaining({ callId: 'call_1', name: 'exec', input: { command: 'npm test checkout' } })]);
    expect(k.tool_result).toEqual([expect.objectContaining({ callId: 'call_1', output: 'FAIL checkout.test.ts: expected 200, got 500', isError: false })]);
    const fork = byKind(await readEvents(devin, (await discovered())[1]!.path));
    expect(fork.message.find((m) => (m as { thinking?: string }).thinking !== undefined)).toMatchObject({ text: 'Moved the check into CartService.validate.', thinking: 'Validation belongs in the cart service.', model: 'gpt-5' });
  });

  it('skips and counts rows that are not chat messages it can read; strict refuses them', async () => {
    const info = newReadInfo();
    const path = (await discovered())[0]!.path;
    await readEvents(devin, path, { info });
    expect(info.skippedLines).toBe(2);
    await expect(readEvents(devin, path, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });

  it("follows the main chain when the session names it; a reverted branch's usage still counts", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-devin-chain-'));
    try {
      const path = join(dir, 'sessions.db');
      const reply = (id: string, req: string, text: string) => `{"role":"assistant","message_id":"${id}","content":"${text}","metadata":{"request_id":"${req}","generation_model":"swe-1-5","metrics":{"input_tokens":10,"output_tokens":2,"cache_read_tokens":100,"cache_creation_tokens":0}}}`;
      buildDevinDb(
        path,
        `CREATE TABLE sessions (id TEXT PRIMARY KEY, working_directory TEXT, model TEXT, agent_mode TEXT, created_at INTEGER, last_activity_at INTEGER, main_chain_id INTEGER, title TEXT, hidden INTEGER);
         CREATE TABLE message_nodes (row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, node_id INTEGER, parent_node_id INTEGER, chat_message TEXT, created_at INTEGER);
         INSERT INTO sessions VALUES ('s1', '/w', 'swe-1-5', 'normal', 1767600000, 1767600100, 4, 'Fix the parser', 0);
         INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES
           ('s1', 1, NULL, '{"role":"user","message_id":"u1","content":"fix it"}', 1767600001),
           ('s1', 2, 1, '${reply('a1', 'r1', 'first try')}', 1767600002),
           ('s1', 3, 1, '{"role":"user","message_id":"u2","content":"fix it, differently"}', 1767600003),
           ('s1', 4, 3, '${reply('a2', 'r2', 'second try')}', 1767600004);`,
      );
      const events = await readEvents(devin, path);
      expect(events[0]).toMatchObject({ type: 'session', title: 'Fix the parser' });
      expect(byKind(events).message.map((m) => (m as { text: string }).text)).toEqual(['fix it', 'fix it, differently', 'second try']);
      expect(usageOf(events).map((u) => u.dedupKey)).toEqual(['devin:r1', 'devin:r2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a database a live Devin is writing, leaving its -wal and -shm as they were', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-devin-live-'));
    const path = join(dir, 'sessions.db');
    buildDevinDb(path);
    const writer = new Database(path);
    try {
      writer.pragma('wal_autocheckpoint = 0');
      writer.prepare("INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES ('ses_03idle', 3, 2, ?, 1767690020)").run('{"role":"assistant","message_id":"m_c3","content":"Here is the summary.","metadata":{"request_id":"req_10","generation_model":"swe-1-5","metrics":{"input_tokens":400,"output_tokens":80,"cache_read_tokens":0,"cache_creation_tokens":0}}}');
      const before = await treeListing(dir);
      expect(before.some((l) => l.includes('sessions.db-wal'))).toBe(true);
      const usage = usageOf(await readEvents(devin, path));
      expect(usage.find((u) => u.dedupKey === 'devin:req_10')).toMatchObject({ inputTokens: 400, outputTokens: 80 });
      expect(await treeListing(dir)).toEqual(before);
    } finally {
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('devin roots', () => {
  it('is $XDG_DATA_HOME/devin/cli, else ~/.local/share/devin/cli, plus %APPDATA%\\devin\\cli', () => {
    expect(getDevinRoots({ HOME: '/h' })).toEqual(['/h/.local/share/devin/cli']);
    expect(getDevinRoots({ HOME: '/h', XDG_DATA_HOME: '/x' })).toEqual(['/x/devin/cli']);
    expect(getDevinRoots({ HOME: '/h', APPDATA: 'C:\\Users\\a\\AppData\\Roaming' })).toEqual(['/h/.local/share/devin/cli', join('C:\\Users\\a\\AppData\\Roaming', 'devin', 'cli')]);
    expect(getDevinRoots({ HOME: '/h', XDG_DATA_HOME: '  ' }), 'a blank variable is unset').toEqual(['/h/.local/share/devin/cli']);
    expect(getDevinRoots({ HOME: '/h', XDG_DATA_HOME: '/x', APPDATA: '/x/' }), 'one folder is one root').toEqual(['/x/devin/cli']);
  });

  it('SESSIONFOLD_DEVIN_DIR replaces them, and a root may be the data folder or the database', async () => {
    expect(getDevinRoots({ HOME: '/h', SESSIONFOLD_DEVIN_DIR: '/a,/b' })).toEqual(['/a', '/b']);
    expect((await discovered({ HOME: '/nowhere', SESSIONFOLD_DEVIN_DIR: join(home, '.local', 'share', 'devin') })).map((f) => f.sessionId)).toHaveLength(3);
    expect((await discovered({ HOME: '/nowhere', SESSIONFOLD_DEVIN_DIR: dbPath })).map((f) => f.sessionId)).toHaveLength(3);
  });

  it('reads an older install\'s cli_sessions.db only where sessions.db is absent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-devin-legacy-'));
    try {
      buildDevinDb(join(dir, 'cli_sessions.db'));
      expect((await discovered({ HOME: '/nowhere', SESSIONFOLD_DEVIN_DIR: dir })).map((f) => f.path.split('#')[0])).toEqual(Array(3).fill(join(dir, 'cli_sessions.db')));
      buildDevinDb(join(dir, 'sessions.db'));
      expect(new Set((await discovered({ HOME: '/nowhere', SESSIONFOLD_DEVIN_DIR: dir })).map((f) => f.path.split('#')[0]))).toEqual(new Set([join(dir, 'sessions.db')]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('devin through the built CLI', () => {
  const env = () => ({ PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' });
  const cli = async (args: string[]) => (await run(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20, env: env() })).stdout;

  beforeAll(async () => {
    await buildIfStale(['devin']);
  }, 300_000);

  it('cost report --agent devin --json equals the fixture totals and leaves the folder as it was', async () => {
    const before = await treeListing(cliDir);
    const report = JSON.parse(await cli(['cost', 'report', '--agent', 'devin', '--json'])) as Record<string, number> & { unpriced: { model: string }[] };
    const t = naiveTotals();
    expect(report).toMatchObject({ requestCount: t.responses, outputTokens: t.output, cacheReadTokens: t.cached });
    expect(report.inputTokens! + report.cacheReadTokens! + report.cacheWriteTokens!).toBe(t.input);
    // the priced models are priced; the router's name for a reply without a model is reported unpriced
    expect(report.totalUsd).toBeGreaterThan(0);
    expect(report.unpriced.map((u) => u.model)).toEqual(['adaptive']);
    expect(await treeListing(cliDir)).toEqual(before);
  });

  it('sessions list and sessions show give every session and its conversation', async () => {
    const before = await treeListing(cliDir);
    const rows = JSON.parse(await cli(['sessions', 'list', 'devin', '--json'])) as { sessionId: string; title: string; usageUnknown?: true }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['ses_01shop', 'ses_02fork', 'ses_03idle']);
    expect(rows.find((r) => r.sessionId === 'ses_01shop')!.title).toBe('Why does the checkout test fail?');
    expect(rows.find((r) => r.sessionId === 'ses_03idle')!.usageUnknown).toBe(true);
    const shown = await cli(['sessions', 'show', 'devin', 'ses_01shop', '--no-pager']);
    expect(shown).toContain('The handler throws when the cart is empty');
    expect(await treeListing(cliDir)).toEqual(before);
  });

  it('read --agent devin streams the library events', async () => {
    const events = (await cli(['read', dbPath, '--agent', 'devin'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(devin, dbPath));
    expect((events[0] as SessionEvent).type).toBe('session');
  });
});
