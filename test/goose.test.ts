/**
 * The goose codec over real `sessions.db` files built with Goose's own DDL (test/goose-helpers.ts), at
 * schema versions 17 (migrated, and new), 13 and 5: golden events, usage totals and conversation counts
 * checked by a separate reader in plain SQL, the `usage_ledger` read per call beside the sessions read by
 * their totals, the cache reads and writes taken out of Goose's input, record paths per session, bad rows
 * skipped and counted, and proof that no read writes a byte beside the database while another process
 * writes it. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/goose.test.ts`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { goose, sqlTime } from '../codecs/goose/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { expectGolden } from './helpers/golden.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { startWriter } from './helpers/sqlite-db.js';
import { snapshotTree } from './sessions-helpers.js';
import { LEDGER_ROWS, MAIN_MESSAGES, S_BAD, S_EMPTY, S_LEDGER, S_MAIN, S_SUB, writeGooseDb } from './goose-helpers.js';

const EXPECTED = fileURLToPath(new URL('../fixtures/expected/goose/', import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), 'sf-goose-'));
const V13 = join(TMP, 'v13', 'goose', 'sessions', 'sessions.db');
const V5 = join(TMP, 'v5', 'goose', 'sessions', 'sessions.db');
const V17 = join(TMP, 'v17', 'goose', 'sessions', 'sessions.db');
const V17_NEW = join(TMP, 'v17-new', 'goose', 'sessions', 'sessions.db');
writeGooseDb(V13);
writeGooseDb(V5, { version: 5 });
writeGooseDb(V17, { version: 17 });
writeGooseDb(V17_NEW, { fresh: true });

afterAll(() => rmSync(TMP, { recursive: true, force: true }));

interface Totals {
  /** All input, the cache reads and writes included (Goose's own sense of input). */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  costUsd: number;
  events: number;
}

/** A sum of costs to the nano-dollar, so that two orders of adding agree. */
const usd = (v: number): number => Math.round(v * 1e9) / 1e9;

/**
 * The separate reader: plain SQL over `sessions` and `usage_ledger`, a count taken only when it is an integer
 * from 0 to 10^10 (a ledger row with any other is left out whole). A session with ledger rows: per field the
 * larger of its totals and its rows' sums (Goose's `get_session_usage_totals`), the provider-reported costs;
 * without: its totals and `accumulated_cost`.
 */
function sqlTotals(file: string): Totals {
  const db = new Database(file, { readonly: true });
  try {
    const has = (table: string, c: string) => (db.prepare('SELECT count(*) AS n FROM pragma_table_info(?) WHERE name = ?').get(table, c) as { n: number }).n > 0;
    const col = (c: string) => (has('sessions', c) ? c : 'NULL');
    const sane = (c: string) => `CASE WHEN typeof(${c}) = 'integer' AND ${c} BETWEEN 0 AND 10000000000 THEN ${c} END`;
    const ok = (c: string) => `(${c} IS NULL OR (typeof(${c}) = 'integer' AND ${c} BETWEEN 0 AND 10000000000))`;
    const ledger = has('usage_ledger', 'id');
    const sums = ledger
      ? `(SELECT count(*) FROM usage_ledger u WHERE u.session_id = s.id) AS rows_all,
         (SELECT json_array(count(*), sum(coalesce(input_tokens, 0)), sum(coalesce(output_tokens, 0)), sum(coalesce(cache_read_tokens, 0)),
                            sum(coalesce(cache_write_tokens, 0)), sum(CASE WHEN cost_source = 'provider_reported' THEN cost END))
          FROM usage_ledger u WHERE u.session_id = s.id AND ${['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'].map(ok).join(' AND ')}
            AND (cost_source IS NOT 'provider_reported' OR cost IS NULL OR cost BETWEEN 0 AND 1000000)
            AND (coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_write_tokens, 0) > 0
                 OR (cost_source = 'provider_reported' AND cost IS NOT NULL))) AS rows_ok`
      : '0 AS rows_all, NULL AS rows_ok';
    const acc = `accumulated_input_tokens IS NOT NULL`;
    const rows = db
      .prepare(
        `SELECT ${sane('coalesce(accumulated_input_tokens, input_tokens)')} AS i, ${sane('coalesce(accumulated_output_tokens, output_tokens)')} AS o,
                ${sane(`CASE WHEN ${acc} THEN ${col('accumulated_cache_read_tokens')} ELSE ${col('cache_read_tokens')} END`)} AS r,
                ${sane(`CASE WHEN ${acc} THEN ${col('accumulated_cache_write_tokens')} ELSE ${col('cache_write_tokens')} END`)} AS w,
                ${col('accumulated_cost')} AS cost, ${sums}
         FROM sessions s`,
      )
      .all() as { i: number | null; o: number | null; r: number | null; w: number | null; cost: number | null; rows_all: number; rows_ok: string | null }[];
    const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0, events: 0 };
    for (const row of rows) {
      const totals = row.i === null && row.o === null ? undefined : [row.i ?? 0, row.o ?? 0, row.r ?? 0, row.w ?? 0];
      if (row.rows_all === 0) {
        if (totals === undefined) continue;
        [t.input, t.output, t.cacheRead, t.cacheWrite] = [t.input + totals[0]!, t.output + totals[1]!, t.cacheRead + totals[2]!, t.cacheWrite + totals[3]!];
        t.costUsd += row.cost ?? 0;
        t.events++;
        continue;
      }
      const [n, ...sum] = JSON.parse(row.rows_ok ?? '[0,0,0,0,0,null]') as [number, number, number, number, number, number | null];
      const cost = sum.pop() ?? 0;
      const got = sum.map((v, k) => Math.max(v ?? 0, totals?.[k] ?? 0));
      [t.input, t.output, t.cacheRead, t.cacheWrite] = [t.input + got[0]!, t.output + got[1]!, t.cacheRead + got[2]!, t.cacheWrite + got[3]!];
      t.costUsd += cost;
      t.events += n + (got.some((v, k) => v > (sum[k] ?? 0)) ? 1 : 0);
    }
    return { ...t, costUsd: usd(t.costUsd) };
  } finally {
    db.close();
  }
}

function usageTotals(events: readonly SessionfoldEvent[]): Totals {
  const u = byKind(events).usage as UsageEvent[];
  const sum = (f: (e: UsageEvent) => number) => u.reduce((a, e) => a + f(e), 0);
  return {
    input: sum((e) => e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens),
    output: sum((e) => e.outputTokens),
    cacheRead: sum((e) => e.cacheReadTokens),
    cacheWrite: sum((e) => e.cacheWriteTokens),
    costUsd: usd(sum((e) => e.costUsd ?? 0)),
    events: u.length,
  };
}

/** Plain SQL over the content blocks: messages with text or thinking, tool requests, tool responses. */
function sqlConversation(file: string): { messages: number; calls: number; results: number } {
  const db = new Database(file, { readonly: true });
  try {
    const blocks = `FROM messages m, json_each(m.content_json) b WHERE json_valid(m.content_json)`;
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      messages: n(`SELECT count(DISTINCT m.id) AS n ${blocks} AND json_extract(b.value, '$.type') IN ('text', 'thinking')`),
      calls: n(`SELECT count(*) AS n ${blocks} AND json_extract(b.value, '$.type') = 'toolRequest'`),
      results: n(`SELECT count(*) AS n ${blocks} AND json_extract(b.value, '$.type') = 'toolResponse'`),
    };
  } finally {
    db.close();
  }
}

describe('goose sessions.db', () => {
  it.each([
    ['v17', V17],
    ['v13', V13],
    ['v5', V5],
  ])('schema %s: a fresh read equals the checked-in events', async (name, file) => {
    await expectGolden(EXPECTED, `generated-${name}`, await readEvents(goose, file));
  });

  it('schema 17: a new database (create_schema) reads as one migrated from 5', async () => {
    expect(await readEvents(goose, V17_NEW)).toEqual(await readEvents(goose, V17));
  });

  it.each([
    ['v17', V17],
    ['v13', V13],
    ['v5', V5],
  ])('schema %s: usage totals and conversation counts agree with plain SQL', async (_n, file) => {
    const events = await readEvents(goose, file);
    const totals = sqlTotals(file);
    expect(usageTotals(events)).toEqual(totals);
    expect(totals.input).toBeGreaterThan(10_000);
    const k = byKind(events);
    expect({ messages: k.message.length, calls: k.tool_call.length, results: k.tool_result.length }).toEqual(sqlConversation(file));
  });

  it('one usage event per session with tokens: accumulated counts, the model and provider, the recorded cost', async () => {
    const u = byKind(await readEvents(goose, V13)).usage as UsageEvent[];
    expect(u.map((e) => [e.sessionId, e.model, e.provider, e.inputTokens, e.outputTokens, e.costUsd, e.singleRequest, e.dedupKey])).toEqual([
      [S_MAIN, 'claude-sonnet-4-5', 'anthropic', 12000, 800, 0.048, false, `goose:${S_MAIN}`],
      [S_SUB, 'gpt-5-mini', 'openai', 1400, 100, undefined, false, `goose:${S_SUB}`],
      [S_BAD, 'unknown', undefined, 0, 40, undefined, false, `goose:${S_BAD}`],
    ]);
    expect(u[0]!.timestamp).toBe('2026-05-25T09:05:30.000Z');
    const old = byKind(await readEvents(goose, V5)).usage as UsageEvent[];
    expect(old.every((e) => e.model === 'unknown' && e.modelFallback === true)).toBe(true);
  });

  it('schema 17: one usage event per ledger row, with its own model, time and provider-reported cost; a compaction call kept', async () => {
    const u = byKind(await readEvents(goose, recordPath(V17, S_LEDGER))).usage as UsageEvent[];
    const row = (e: UsageEvent) => [e.model, e.modelFallback, e.timestamp, e.inputTokens, e.cacheReadTokens, e.cacheWriteTokens, e.outputTokens, e.costUsd, e.singleRequest];
    expect(u.map(row)).toEqual([
      // carried forward: the session's spend before its ledger began, many calls, under the session's model
      ['claude-sonnet-4-5', true, '2026-05-27T09:00:00.000Z', 1500, 3000, 500, 400, undefined, false],
      ['claude-sonnet-4-5-20250929', undefined, '2026-05-27T09:01:00.000Z', 3000, 15000, 2000, 800, 0.0375, true],
      // a compaction call is spend too; its cost was Goose's estimate, so it is priced here
      ['claude-sonnet-4-5-20250929', undefined, '2026-05-27T09:02:00.000Z', 30000, 0, 0, 1200, undefined, true],
      // what the totals hold beyond the rows: 2000 input (1000 of them cache reads) and 100 output
      ['claude-sonnet-4-5', undefined, '2026-05-27T09:10:00.000Z', 1000, 1000, 0, 100, undefined, false],
    ]);
    expect(u.map((e) => e.dedupKey)).toEqual([`goose:${S_LEDGER}:3`, `goose:${S_LEDGER}:4`, `goose:${S_LEDGER}:5`, `goose:${S_LEDGER}`]);
    expect(u.every((e) => e.provider === 'anthropic')).toBe(true);
  });

  it('schema 17: a ledger row with an absurd count is refused whole and counted; no total holds it', async () => {
    const info = newReadInfo();
    const u = byKind(await readEvents(goose, recordPath(V17, S_LEDGER), { kinds: ['usage'], info })).usage as UsageEvent[];
    expect(info.skippedLines).toBe(1);
    const absurd = LEDGER_ROWS.find((r) => r[0] === S_LEDGER && (r[3] ?? 0) > 1e10)!;
    expect(u.some((e) => e.outputTokens === absurd[4])).toBe(false);
    expect(Math.max(...u.map((e) => e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens))).toBeLessThan(1e6);
  });

  it('schema 17: Goose’s input holds the cache reads and writes, which the events book apart', async () => {
    const events = await readEvents(goose, V17);
    const u = byKind(events).usage as UsageEvent[];
    // the main session has no ledger rows: its totals, 12000 input of which 8000 cache reads and 1000 writes
    expect(u.filter((e) => e.sessionId === S_MAIN).map((e) => [e.inputTokens, e.cacheReadTokens, e.cacheWriteTokens, e.costUsd, e.dedupKey])).toEqual([[3000, 8000, 1000, 0.048, `goose:${S_MAIN}`]]);
    // the subagent's ledger rows add up to its totals: the rows alone, no event of the totals
    expect(u.filter((e) => e.sessionId === S_SUB).map((e) => [e.inputTokens, e.cacheReadTokens, e.outputTokens, e.costUsd, e.singleRequest])).toEqual([
      [500, 400, 60, undefined, true],
      [200, 300, 40, 0.00021, true],
    ]);
    // the same database without its ledger and cache columns reads as schema 13 did: all input uncached
    const v13 = byKind(await readEvents(goose, V13)).usage as UsageEvent[];
    expect(v13.find((e) => e.sessionId === S_MAIN)).toMatchObject({ inputTokens: 12000, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('schema 17: a session never has both ledger events and an event of its totals', async () => {
    const u = byKind(await readEvents(goose, V17)).usage as UsageEvent[];
    for (const id of [S_MAIN, S_SUB, S_BAD, S_LEDGER]) {
      const mine = u.filter((e) => e.sessionId === id);
      const totals = mine.filter((e) => e.dedupKey === `goose:${id}`);
      expect(totals.length).toBeLessThanOrEqual(1);
      // with ledger rows, an event of the totals is only their rest, beyond the rows' sums
      if (mine.length > totals.length && totals.length === 1) expect(totals[0]!.inputTokens + totals[0]!.cacheReadTokens).toBe(2000);
    }
    expect(new Set(u.map((e) => e.dedupKey)).size).toBe(u.length);
  });

  it('schema 17: a subagent names its parent (parent_session_id) as forkedFrom', async () => {
    expect(byKind(await readEvents(goose, recordPath(V17, S_SUB))).session[0]).toMatchObject({ subagent: true, forkedFrom: S_MAIN });
    expect(byKind(await readEvents(goose, recordPath(V13, S_SUB))).session[0]).not.toHaveProperty('forkedFrom');
  });

  it('tool calls and results pair by id, with errors and names; a hidden summary is marked', async () => {
    const k = byKind(await readEvents(goose, recordPath(V13, S_MAIN)));
    expect(k.tool_call.map((e) => (e.type === 'tool_call' ? [e.callId, e.name, e.input] : []))).toEqual([
      ['toolu_01', 'developer__shell', { command: 'cargo test' }],
      ['toolu_02', '', { error: 'invalid JSON arguments' }],
    ]);
    expect(k.tool_result.map((e) => (e.type === 'tool_result' ? [e.callId, e.toolName, e.output, e.isError] : []))).toEqual([
      ['toolu_01', 'developer__shell', 'test parse ... FAILED', false],
      ['toolu_02', '', 'Tool call could not be parsed', true],
    ]);
    const summary = k.message.find((e) => e.type === 'message' && e.text.startsWith('Summary'));
    expect(summary).toMatchObject({ role: 'user', subtype: 'agent-only', timestamp: new Date(MAIN_MESSAGES[5]![2] * 1000).toISOString() });
  });

  it('skips and counts a malformed content_json and an insane token count, keeping the rest', async () => {
    const info = newReadInfo();
    const events = await readEvents(goose, recordPath(V13, S_BAD), { info });
    expect(info.skippedLines).toBe(2);
    expect(byKind(events).message.map((e) => (e.type === 'message' ? e.text : ''))).toEqual(['still readable']);
  });

  it.each([
    ['v17', V17],
    ['v13', V13],
  ])('schema %s: a usage-only read gives the same usage without reading messages', async (_n, file) => {
    expect(await readEvents(goose, file, { kinds: ['usage'] })).toEqual(byKind(await readEvents(goose, file)).usage);
  });
});

describe('goose record paths and discovery', () => {
  it('discovers each session with messages or tokens as a record path; a subagent is marked', async () => {
    const files = [];
    for await (const f of goose.discover([join(TMP, 'v13', 'goose', 'sessions')])) files.push(f);
    expect(files.map((f) => [f.path, f.sessionId, f.subagent === true])).toEqual([
      [recordPath(V13, S_MAIN), S_MAIN, false],
      [recordPath(V13, S_SUB), S_SUB, true],
      [recordPath(V13, S_BAD), S_BAD, false],
    ]);
    expect(files.map((f) => f.sessionId)).not.toContain(S_EMPTY);
    expect(goose.getParseDependencies(files[0]!.path)).toEqual([V13, `${V13}-wal`]);
    expect(goose.getParseDependencies(V13)).toEqual([`${V13}-wal`]);
    expect(await goose.locate!([join(TMP, 'v13', 'goose')], S_SUB)).toMatchObject({ path: recordPath(V13, S_SUB) });
    const v17: string[] = [];
    for await (const f of goose.discover([join(TMP, 'v17', 'goose', 'sessions')])) v17.push(f.sessionId ?? '');
    expect(v17).toEqual([S_MAIN, S_SUB, S_BAD, S_LEDGER]);
  });

  it('a record path reads one session; the database path reads every one of them', async () => {
    const all = await readEvents(goose, V13);
    for (const id of [S_MAIN, S_SUB, S_BAD]) {
      const one = await readEvents(goose, recordPath(V13, id));
      expect(new Set(one.map((e) => e.sessionId))).toEqual(new Set([id]));
      expect(one.map(({ offset: _o, ...e }) => e)).toEqual(all.filter((e) => e.sessionId === id).map(({ offset: _o, ...e }) => e));
    }
    expect(byKind(await readEvents(goose, recordPath(V13, S_SUB))).session[0]).toMatchObject({ subagent: true, cwd: '/home/dev/app', model: 'gpt-5-mini' });
  });

  it('default roots honour GOOSE_PATH_ROOT (absolute only), XDG_DATA_HOME and APPDATA', () => {
    expect(goose.defaultRoots({ HOME: '/h' })).toEqual(['/h/.local/share/goose/sessions']);
    expect(goose.defaultRoots({ HOME: '/h', GOOSE_PATH_ROOT: '/g' })).toEqual(['/g/data/sessions']);
    expect(goose.defaultRoots({ HOME: '/h', GOOSE_PATH_ROOT: 'rel', XDG_DATA_HOME: '/x' })).toEqual(['/x/goose/sessions']);
    expect(goose.defaultRoots({ HOME: '/h', APPDATA: '/w' })).toEqual(['/h/.local/share/goose/sessions', '/w/Block/goose/data/sessions']);
  });

  it('reads the SQL time forms Goose writes', () => {
    expect(sqlTime('2026-05-25 09:00:00')).toBe('2026-05-25T09:00:00.000Z');
    expect(sqlTime('2026-05-25 09:00:00.250+02:00')).toBe('2026-05-25T07:00:00.250Z');
    expect(sqlTime(1779699600)).toBe('2026-05-25T09:00:00.000Z');
    expect(sqlTime('1779699600')).toBe('2026-05-25T09:00:00.000Z');
    expect(sqlTime('yesterday')).toBeUndefined();
    expect(sqlTime(-1)).toBeUndefined();
  });

  it('a database that is not Goose’s is a PARSE_ERROR; a missing one SESSION_NOT_FOUND', async () => {
    const other = join(TMP, 'other.db');
    new Database(other).close();
    await expect(readEvents(goose, other)).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    await expect(readEvents(goose, join(TMP, 'nope.db'))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});

describe('goose reads write nothing beside the database', () => {
  it('while another process writes it: bytes, mtimes and listing unchanged; committed -wal rows are read', async () => {
    const dir = join(TMP, 'live', 'goose', 'sessions');
    const file = join(dir, 'sessions.db');
    writeGooseDb(file);
    const agent = await startWriter(file);
    try {
      await agent.run('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)', [
        [S_SUB, 'user', JSON.stringify([{ type: 'text', text: 'written while read' }]), 1779699700, '{}'],
      ]);
      expect(readdirSync(dir).sort()).toEqual(['sessions.db', 'sessions.db-shm', 'sessions.db-wal']);
      const before = await snapshotTree(dir);
      const texts: string[] = [];
      for await (const f of goose.discover(goose.defaultRoots({ HOME: '/nonexistent', XDG_DATA_HOME: join(TMP, 'live') }))) {
        for (const e of await readEvents(goose, f.path)) if (e.type === 'message') texts.push(e.text);
        await readEvents(goose, f.path, { kinds: ['usage'] });
      }
      await readEvents(goose, file);
      expect(texts).toContain('written while read');
      expect(await snapshotTree(dir)).toEqual(before);
    } finally {
      await agent.close();
    }
    const closed = await snapshotTree(dir);
    expect([...closed.keys()].map((p) => p.slice(dir.length + 1))).toEqual(['sessions.db']);
    for await (const f of goose.discover([dir])) await readEvents(goose, f.path);
    expect(await snapshotTree(dir)).toEqual(closed);
  });
});
