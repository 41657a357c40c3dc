/**
 * Zed's Agent panel threads (`<data dir>/threads/threads.db`) over a database built with Zed's own DDL
 * (fixtures/zed/schema.sql) and rows bound as `save_thread_sync` binds them, zstd blobs included
 * (fixtures/zed/rows.json): golden events, the token rule (the running total once, else one event per turn,
 * never both) checked by a deliberately simple second reader, legacy and imported threads, record paths,
 * skipped rows counted, and the data folder left as it was (bytes, mtimes, listing).
 * Regenerate the golden file with `UPDATE_GOLDEN=1 npx vitest run test/zed.test.ts`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decompress } from 'fzstd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getZedRoots, priceModel, zed } from '../codecs/zed/index.js';
import { newReadInfo, type SessionFile } from '../cursors/protocol/codec.js';
import type { SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { resolvePriceEntry } from '../src/cost/pricing.js';
import { byKind, discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { buildZedDb, insertZedRows, layOutZed, ZED_FIXTURES, ZED_ROWS, ZED_SCHEMA, zedBlob } from './helpers/zed-db.js';

const EXPECTED_DIR = new URL('../fixtures/expected/zed/', import.meta.url).pathname;
const A = '3f1c9a52-7b2e-4d8a-9c61-0a1b2c3d4e5f';
const B = '5b6c7d8e-0f1a-4b2c-9d3e-4f5a6b7c8d9e';
const C = '9d2e4f60-5a1b-4c7d-8e9f-102030405060';
const D = '1e2d3c4b-aaaa-4bbb-8ccc-0d0e0f101112';
const E = '6e6e6e6e-1234-4abc-8def-aaaaaaaaaaaa';

type Tok = Record<string, number | undefined>;
/**
 * The simple second reader: each fixture thread's JSON file, its total when that is above zero, else its
 * turns summed; the four counts added up over the whole database.
 */
function naiveTotals(): { input: number; output: number; cacheRead: number; cacheWrite: number } {
  const out = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const r of ZED_ROWS) {
    if (r.data === undefined) continue;
    const t = JSON.parse(readFileSync(join(ZED_FIXTURES, r.data.replace(/\.zst$/, '')), 'utf8')) as { cumulative_token_usage?: Tok; request_token_usage?: Tok[] | Record<string, Tok> };
    const cum = t.cumulative_token_usage ?? {};
    const sum = (u: Tok) => (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    const list = sum(cum) > 0 ? [cum] : Object.values(t.request_token_usage ?? {});
    for (const u of list) {
      out.input += u.input_tokens ?? 0;
      out.output += u.output_tokens ?? 0;
      out.cacheRead += u.cache_read_input_tokens ?? 0;
      out.cacheWrite += u.cache_creation_input_tokens ?? 0;
    }
  }
  return out;
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

let home: string;
let dbPath: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-zed-'));
  dbPath = layOutZed(home);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('zed fixtures', () => {
  it('each committed zstd blob decompresses to its thread JSON (the fixtures are what they claim)', () => {
    const zst = ZED_ROWS.filter((r) => r.data?.endsWith('.zst'));
    expect(zst.length).toBe(4);
    for (const r of zst) {
      const text = Buffer.from(decompress(zedBlob(r) as Buffer)).toString('utf8');
      expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(join(ZED_FIXTURES, r.data!.replace(/\.zst$/, '')), 'utf8')));
    }
    const later = join(ZED_FIXTURES, 'threads', `${A}.later.json`);
    expect(JSON.parse(Buffer.from(decompress(readFileSync(`${later}.zst`))).toString('utf8'))).toEqual(JSON.parse(readFileSync(later, 'utf8')));
  });
});

describe('zed golden events', () => {
  it("a read of the database equals the checked-in events; its tokens are the simple reader's; nothing changes on disk", async () => {
    const dir = join(home, '.local', 'share', 'zed');
    const before = await treeListing(dir);
    const bytes = sha(dbPath);
    const info = newReadInfo();
    const events = await readEvents(zed, dbPath, { info });
    await expectGolden(EXPECTED_DIR, 'zed', events);
    const usage = byKind(events).usage as UsageEvent[];
    const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
    expect({ input: sum((u) => u.inputTokens), output: sum((u) => u.outputTokens), cacheRead: sum((u) => u.cacheReadTokens), cacheWrite: sum((u) => u.cacheWriteTokens) }).toEqual(naiveTotals());
    expect(info.skippedLines, 'the row whose zstd frame is cut short').toBe(1);
    const skips: unknown[] = [];
    await readEvents(zed, dbPath, { onSkip: (e) => skips.push(e) });
    expect(skips, 'onSkip hears of it').toHaveLength(1);
    await expect(readEvents(zed, dbPath, { strict: true }), 'a strict read refuses it').rejects.toMatchObject({ code: 'PARSE_ERROR' });
    expect(await treeListing(dir), 'the data folder: same files, sizes and mtimes, no -wal or -shm').toEqual(before);
    expect(sha(dbPath), 'the database bytes').toBe(bytes);
  });

  it('the simple reader sees real tokens (the comparison is not vacuous)', () => {
    expect(naiveTotals()).toEqual({ input: 9120 + 3050 + 5210 + 5420 + 4400, output: 1410 + 240 + 160 + 12 + 520, cacheRead: 54600 + 6100, cacheWrite: 18200 });
  });

  it('the running total once where Zed keeps it, else one event per turn; never both', async () => {
    const usage = byKind(await readEvents(zed, dbPath)).usage as UsageEvent[];
    const rows = usage.map((u) => [u.sessionId, u.model, u.provider, u.singleRequest, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.dedupKey]);
    expect(rows).toEqual([
      [D, 'claude-3-7-sonnet', 'zed.dev', false, 4400, 520, 0, 0, `zed:${D}`],
      [B, 'claude-sonnet-4', 'anthropic', true, 5210, 160, 0, 0, `zed:${B}:7a7a7a7a-0000-4000-8000-000000000001`],
      [B, 'claude-sonnet-4', 'anthropic', true, 5420, 12, 0, 0, `zed:${B}:7a7a7a7a-0000-4000-8000-000000000002`],
      [A, 'claude-sonnet-4-5', 'zed.dev', false, 9120, 1410, 54600, 18200, `zed:${A}`],
      [C, 'claude-sonnet-4-5', 'zed.dev', false, 3050, 240, 6100, 0, `zed:${C}`],
    ]);
    expect(usage.find((u) => u.sessionId === A)?.timestamp, "the thread's last save").toBe('2026-10-03T09:14:52.481Z');
  });

  it('marks usage unknown where a turn ran tools and no total was kept, not for an imported thread', async () => {
    const sessions = byKind(await readEvents(zed, dbPath, { kinds: ['session'] })).session as SessionEvent[];
    const by = new Map(sessions.map((s) => [s.sessionId, s]));
    expect(by.get(B)?.usageUnknown).toBe(true);
    expect(by.get(A)?.usageUnknown).toBeUndefined();
    expect(by.get(E)).toMatchObject({ title: '🔗 Port the parser to nom', model: 'gpt-5' });
    expect(by.get(E)?.usageUnknown).toBeUndefined();
    expect(by.get(C)).toMatchObject({ subagent: true, forkedFrom: A, cwd: '/home/dev/shop' });
    expect(by.get(A)).toMatchObject({ cwd: '/home/dev/shop', startedAt: '2026-10-03T09:01:05.000Z', title: 'Fix the cart total rounding', version: '0.3.0' });
  });

  it('a total short of its turns (counting began after a Zed upgrade mid-thread) is counted once, a lower bound', async () => {
    // `request_token_usage` keeps one request of each turn, all in the total when the total is whole: a total
    // below their sum missed requests (threads saved with `{}` count from the first save after the upgrade)
    const b = JSON.parse(readFileSync(join(ZED_FIXTURES, 'threads', `${B}.json`), 'utf8')) as Record<string, unknown>;
    const row = (id: string, cumulative: Tok) => ({ id, summary: 'Explain the retry helper', updated_at: '2025-09-12T16:40:03+00:00', data_type: 'json', hex: Buffer.from(JSON.stringify({ ...b, cumulative_token_usage: cumulative })).toString('hex') });
    const path = buildZedDb(join(home, 'upgraded'), { rows: false });
    const db = new Database(path);
    insertZedRows(db, [row('short', { input_tokens: 5420, output_tokens: 12 }), row('whole', { input_tokens: 16000, output_tokens: 400, cache_read_input_tokens: 9000 })]);
    db.close();
    const events = await readEvents(zed, path);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.sessionId, u.inputTokens, u.outputTokens, u.singleRequest])).toEqual([
      ['short', 5420, 12, false],
      ['whole', 16000, 400, false],
    ]);
    const sessions = new Map((byKind(events).session as SessionEvent[]).map((s) => [s.sessionId, s]));
    expect(sessions.get('short')?.usageUnknown).toBe(true);
    expect(sessions.get('whole')?.usageUnknown).toBeUndefined();
  });

  it("a first-agent thread without a total: its list's entries mapped to turns as Zed's upgrade maps them", async () => {
    // `request_token_usage` indexed by message: a user message's entry is a placeholder copy, each assistant
    // message's the request it answered; `upgrade_from_agent_1` keeps a turn's last assistant entry
    const d = JSON.parse(readFileSync(join(ZED_FIXTURES, 'threads', `${D}.json`), 'utf8')) as Record<string, unknown>;
    const hex = Buffer.from(JSON.stringify({ ...d, cumulative_token_usage: {} })).toString('hex');
    const path = buildZedDb(join(home, 'legacy-no-total'), { rows: false });
    const db = new Database(path);
    insertZedRows(db, [{ id: D, summary: 'Add a README badge', updated_at: '2025-05-20T08:31:40.551+00:00', data_type: 'json', hex }]);
    db.close();
    const events = await readEvents(zed, path);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.outputTokens, u.singleRequest, u.messageId, u.dedupKey])).toEqual([[2300, 220, true, '0', `zed:${D}:0`]]);
    expect((byKind(events).session as SessionEvent[])[0]?.usageUnknown, 'the turn ran a tool: its first request is not in the list').toBe(true);
  });

  it('a usage or session read emits the same session and usage events', async () => {
    const full = (await readEvents(zed, dbPath)).filter((e) => e.type === 'session' || e.type === 'usage');
    expect(await readEvents(zed, dbPath, { kinds: ['session', 'usage'] })).toEqual(full);
  });

  it('reads the first agent thread: segments, tool uses and results, thinking', async () => {
    const events = await readEvents(zed, dbPath);
    const d = events.filter((e) => e.sessionId === D);
    expect(d.map((e) => e.type)).toEqual(['session', 'message', 'message', 'tool_call', 'tool_result', 'message', 'usage']);
    expect(d[2]).toMatchObject({ role: 'assistant', text: "I'll edit README.md.", thinking: 'The workflow file is ci.yml.' });
    expect(d[4]).toMatchObject({ callId: 'toolu_05Edit', toolName: 'edit_file', output: 'Edited README.md', isError: false });
  });

  it('skips a blob that decompresses past maxLineBytes, and counts it', async () => {
    const info = newReadInfo();
    const events = await readEvents(zed, dbPath, { info, maxLineBytes: 1024 });
    expect(info.skippedLines, 'the cut frame and the threads over 1 KiB').toBe(1 + ZED_ROWS.filter((r) => r.data !== undefined && readFileSync(join(ZED_FIXTURES, r.data.replace(/\.zst$/, ''))).length > 1024).length);
    expect(byKind(events).session.length).toBeGreaterThan(0);
  });

  it('reads a database of the first SQLite schema (no parent, folder or creation columns)', async () => {
    const dir = join(home, 'old', 'threads');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'threads.db');
    const db = new Database(path);
    db.exec(ZED_SCHEMA.split('\nALTER TABLE')[0]!);
    const row = ZED_ROWS.find((r) => r.id === D)!;
    db.prepare('INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, ?, ?, ?, ?)').run(row.id, row.summary, row.updated_at, 'thread-v1', zedBlob(row));
    db.close();
    const events = await readEvents(zed, path);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: D, startedAt: '2025-05-20T08:31:40.551Z' });
    expect((await discoverAll(zed, [join(home, 'old')])).map((f) => f.sessionId)).toEqual([D]);
  });
});

describe('zed sessions', () => {
  const discovered = (roots: readonly string[]): Promise<SessionFile[]> => discoverAll(zed, roots);

  it('lists every thread as a record path, in creation order, a subagent thread marked', async () => {
    const files = await discovered(getZedRoots({ HOME: home }));
    expect(files.map((f) => [f.sessionId, f.subagent ?? false])).toEqual([
      [D, false],
      [B, false],
      [E, false],
      [A, false],
      [C, true],
      ['deadbeef-0000-4000-8000-00000000dead', false],
    ]);
    expect(new Set(files.map((f) => f.path.split('#')[0]))).toEqual(new Set([dbPath]));
  });

  it('a record path reads its own thread only', async () => {
    const files = await discovered(getZedRoots({ HOME: home }));
    const one = await readEvents(zed, files.find((f) => f.sessionId === B)!.path);
    expect(one.every((e) => e.sessionId === B)).toBe(true);
    expect(one[0]).toMatchObject({ type: 'session', title: 'Explain the retry helper', cwd: '/home/dev/net', model: 'claude-sonnet-4', provider: 'anthropic' });
  });

  it('takes a root that is the threads folder or the database itself', async () => {
    const other = buildZedDb(join(home, 'custom-data'));
    expect((await discovered([join(home, 'custom-data', 'threads')])).length).toBe(ZED_ROWS.length);
    expect((await discovered([other])).length).toBe(ZED_ROWS.length);
  });

  it("finds Zed's data folder the way Zed's paths crate does", () => {
    expect(getZedRoots({ HOME: '/h' })).toEqual(['/h/.local/share/zed', '/h/Library/Application Support/Zed']);
    expect(getZedRoots({ HOME: '/h', XDG_DATA_HOME: '/x', FLATPAK_XDG_DATA_HOME: '/f', LOCALAPPDATA: 'C:/L' })).toEqual(['/f/zed', '/x/zed', '/h/Library/Application Support/Zed', 'C:/L/Zed']);
  });
});

describe('zed model names', () => {
  it.each([
    ['claude-sonnet-4-5-thinking', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-thinking-latest', 'claude-sonnet-4'],
    ['Claude Sonnet 4 Thinking', 'claude-sonnet-4'],
    ['Claude 3.7 Sonnet', 'claude-3-7-sonnet'],
    ['Claude Opus 4.1', 'claude-opus-4-1'],
    ['gpt-4.1', 'gpt-4.1'],
    ['Gemini 2.5 Pro', 'gemini-2.5-pro'],
  ])('%s is priced as %s', (raw, want) => {
    expect(priceModel(raw)).toBe(want);
  });

  it('every model of the fixture threads resolves to a price, under Zed\'s provider id', async () => {
    const usage = byKind(await readEvents(zed, dbPath)).usage as UsageEvent[];
    for (const u of usage) expect(resolvePriceEntry(u.model, u.provider, undefined), `${u.model} (${u.provider})`).toBeDefined();
  });
});
