/**
 * The goose codec over real `sessions.db` files built with Goose's own DDL (test/goose-helpers.ts), at
 * schema versions 13 and 5: golden events, usage totals and conversation counts checked by a separate
 * reader in plain SQL, record paths per session, bad rows skipped and counted, and proof that no read
 * writes a byte beside the database while another process writes it. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/goose.test.ts`.
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
import { MAIN_MESSAGES, S_BAD, S_EMPTY, S_MAIN, S_SUB, writeGooseDb } from './goose-helpers.js';

const EXPECTED = fileURLToPath(new URL('../fixtures/expected/goose/', import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), 'sf-goose-'));
const V13 = join(TMP, 'v13', 'goose', 'sessions', 'sessions.db');
const V5 = join(TMP, 'v5', 'goose', 'sessions', 'sessions.db');
writeGooseDb(V13);
writeGooseDb(V5, { version: 5 });

afterAll(() => rmSync(TMP, { recursive: true, force: true }));

interface Totals {
  input: number;
  output: number;
  costUsd: number;
  sessions: number;
}

/** The separate reader: plain SQL over `sessions`, a count taken only when it is a non-negative integer. */
function sqlTotals(file: string): Totals {
  const db = new Database(file, { readonly: true });
  try {
    const sane = (c: string) => `CASE WHEN typeof(${c}) = 'integer' AND ${c} >= 0 THEN ${c} END`;
    const row = db
      .prepare(
        `SELECT coalesce(sum(${sane('coalesce(accumulated_input_tokens, input_tokens)')}), 0) AS input,
                coalesce(sum(${sane('coalesce(accumulated_output_tokens, output_tokens)')}), 0) AS output,
                count(*) AS sessions
         FROM sessions WHERE coalesce(accumulated_input_tokens, input_tokens, accumulated_output_tokens, output_tokens) IS NOT NULL`,
      )
      .get() as { input: number; output: number; sessions: number };
    const hasCost = (db.prepare("SELECT count(*) AS n FROM pragma_table_info('sessions') WHERE name = 'accumulated_cost'").get() as { n: number }).n > 0;
    const cost = hasCost ? (db.prepare('SELECT coalesce(sum(accumulated_cost), 0) AS c FROM sessions').get() as { c: number }).c : 0;
    return { ...row, costUsd: cost };
  } finally {
    db.close();
  }
}

function usageTotals(events: readonly SessionfoldEvent[]): Totals {
  const u = byKind(events).usage as UsageEvent[];
  return {
    input: u.reduce((a, e) => a + e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens, 0),
    output: u.reduce((a, e) => a + e.outputTokens, 0),
    costUsd: u.reduce((a, e) => a + (e.costUsd ?? 0), 0),
    sessions: u.length,
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
    ['v13', V13],
    ['v5', V5],
  ])('schema %s: a fresh read equals the checked-in events', async (name, file) => {
    await expectGolden(EXPECTED, `generated-${name}`, await readEvents(goose, file));
  });

  it.each([
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

  it('a usage-only read gives the same usage without reading messages', async () => {
    expect(await readEvents(goose, V13, { kinds: ['usage'] })).toEqual(byKind(await readEvents(goose, V13)).usage);
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
