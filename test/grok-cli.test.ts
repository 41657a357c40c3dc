/**
 * The community grok-cli (`~/.grok/grok.db`) over a database built from fixtures/grok-cli/grok.sql (its own DDL,
 * codecs/grok-cli/README.md): golden events, token totals checked by a simple second reader in SQL, messages
 * with reasoning, tool calls and results, a broken message row skipped and counted, per-session record paths,
 * the folder left as it was, and the root. Regenerate the golden file with
 * `UPDATE_GOLDEN=1 npx vitest run test/grok-cli.test.ts`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getGrokCliRoots, grokCli } from '../codecs/grok-cli/index.js';
import type { MessageEvent, SessionEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, type UsageTotals } from './helpers/usage-totals.js';

const SQL = readFileSync(new URL('../fixtures/grok-cli/grok.sql', import.meta.url), 'utf8');
const EXPECTED_DIR = new URL('../fixtures/expected/grok-cli/', import.meta.url).pathname;

let home: string;
let dbPath: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-grok-cli-'));
  mkdirSync(join(home, '.grok'));
  dbPath = join(home, '.grok', 'grok.db');
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.exec(SQL);
  db.close();
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** The simple second reader: SQL sums of the usage rows with tokens (input as stored, no cache split). */
function naiveTotals(): UsageTotals {
  const db = new Database(':memory:');
  db.exec(SQL);
  const r = db.prepare('SELECT sum(input_tokens) AS input, 0 AS cached, sum(output_tokens) AS output, 0 AS reasoning, count(*) AS responses FROM usage_events WHERE input_tokens + output_tokens > 0').get() as UsageTotals;
  db.close();
  return r;
}

describe('grok-cli', () => {
  it('a read of the database equals the checked-in events, with totals of the simple reader', async () => {
    const before = await treeListing(join(home, '.grok'));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(grokCli, dbPath, { info });
    await expectGolden(EXPECTED_DIR, 'grok', events);
    expect(codecUsageTotals(events)).toEqual(naiveTotals());
    expect(naiveTotals()).toEqual({ input: 17000, cached: 0, output: 322, reasoning: 0, responses: 4 });
    expect(info.skippedLines, 'the broken message row').toBe(1);
    expect(await treeListing(join(home, '.grok'))).toEqual(before);
  });

  it('reads messages with reasoning, tool calls and results (an error-text output is an error)', async () => {
    const k = byKind(await readEvents(grokCli, dbPath));
    expect((k.message as MessageEvent[]).map((m) => [m.role, m.text])).toEqual([
      ['user', 'The footer link points to /about-us; fix it.'],
      ['assistant', 'Looking for the footer.'],
      ['assistant', 'The file is read-only; change its permissions and run me again.'],
      ['user', 'hello'],
      ['system', 'Context compacted.'],
    ]);
    expect((k.message[1] as MessageEvent).thinking).toBe('Find the footer component.');
    expect(k.tool_call.map((t) => (t as { name: string }).name)).toEqual(['search', 'str_replace_editor']);
    expect(k.tool_result.map((t) => (t as { isError: boolean }).isError)).toEqual([false, true]);
    expect(k.usage.map((u) => (u as { costUsd?: number }).costUsd)).toEqual([0.0014, undefined, 0.00124, 0.000096]);
  });

  it('discovers every session as a record path; one without usage says its usage is unknown', async () => {
    const files = [];
    for await (const f of grokCli.discover(grokCli.defaultRoots({ HOME: home }))) files.push(f);
    expect(files.map((f) => f.sessionId)).toEqual(['s_7f3a', 's_9b2c']);
    const second = await readEvents(grokCli, files[1]!.path);
    expect(second.every((e) => e.sessionId === 's_9b2c')).toBe(true);
    expect(second[0]).toMatchObject({ type: 'session', cwd: '/home/kai/site', usageUnknown: true } as Partial<SessionEvent>);
    expect((second[0] as SessionEvent).title).toBeUndefined();
  });

  it('is ~/.grok', () => {
    expect(getGrokCliRoots({ HOME: '/h' })).toEqual(['/h/.grok']);
  });
});
