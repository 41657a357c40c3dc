/**
 * A history of an agent that records no token usage (Cursor), through the built CLI: no command shows its
 * sessions as free. `start` says no usage was counted instead of a $0.00 total, and its rows say `not
 * recorded`; `sessions list` does so in the table, the `--no-cost` table and CSV's `usage_recorded`; a JSONL
 * export of such a session keeps `usageRecorded: false` when read back; and the note of a `--no-cache` run is
 * kept under the line that replaces the table. The agent's folder is unchanged by every command.
 * Build first: `npx tsc -p .` and `node scripts/bundle-cli.mjs`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotTree } from './sessions-helpers.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/cursor/', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'sf-usage-recorded-'));
const cursorDir = join(home, '.cursor');
const exports = join(home, 'exports');
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  SESSIONFOLD_EXPORT_DIR: exports,
  SESSIONFOLD_TAGS: join(home, 'tags.json'),
  NO_COLOR: '1',
  TZ: 'UTC',
  COLUMNS: '200',
};

async function cli(args: string[]): Promise<string> {
  return (await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 })).stdout;
}

let before: Awaited<ReturnType<typeof snapshotTree>>;

beforeAll(async () => {
  const transcripts = join(cursorDir, 'projects', 'Users-dev-app', 'agent-transcripts');
  mkdirSync(transcripts, { recursive: true });
  copyFileSync(join(REAL, 'agent-sessions-agent-transcript.jsonl'), join(transcripts, 'p1.jsonl'));
  mkdirSync(exports, { recursive: true });
  before = await snapshotTree(cursorDir);
});

afterAll(async () => {
  expect(await snapshotTree(cursorDir)).toEqual(before);
  rmSync(home, { recursive: true, force: true });
});

/** The data rows of a table (under its header line and the rule under it). */
const rowsOf = (table: string): string[] => table.trimEnd().split('\n').slice(2);

describe('an agent that records no token usage', () => {
  it('start: rows say `not recorded`, and the report says none was counted instead of a $0.00 total', async () => {
    for (const args of [['start'], ['start', '--no-cache']]) {
      const out = await cli(args);
      expect(out, args.join(' ')).not.toContain('$0.00');
      expect(out).toContain('(no token usage counted: cursor records none)');
      const recent = out.slice(out.indexOf('Recent sessions'), out.indexOf('Cost by'));
      const rows = rowsOf(recent.split('\n').slice(1).join('\n'));
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r).toMatch(/\bcursor\b.*\bnot recorded\b/);
      // what a run without the event cache leaves out is still said under that line
      expect(out.includes('Without the event cache'), args.join(' ')).toBe(args.includes('--no-cache'));
    }
  });

  it('sessions list: the Cost and Tokens cells and CSV say so', async () => {
    for (const args of [[], ['--no-cost']]) {
      const rows = rowsOf(await cli(['sessions', 'list', 'cursor', ...args]));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('not recorded');
    }
    const csv = (await cli(['sessions', 'list', 'cursor', '--format', 'csv'])).trimEnd().split('\n');
    const head = (csv[0] as string).split(',');
    const row = (csv[1] as string).split(',');
    expect(row[head.indexOf('usage_recorded')]).toBe('false');
    expect(row[head.indexOf('usage_unknown')]).toBe('false');
  });

  it('a JSONL export of a Cursor session keeps usageRecorded: false when read back', async () => {
    writeFileSync(join(exports, 'p1.jsonl'), await cli(['sessions', 'export', 'cursor', 'p1']));
    const header = JSON.parse((await cli(['sessions', 'export', 'cursor', 'p1'])).split('\n')[0] as string) as { usageRecorded?: boolean };
    expect(header.usageRecorded).toBe(false);
    const listed = JSON.parse(await cli(['sessions', 'list', 'sessionfold-jsonl', '--json'])) as { sessionId: string; usageRecorded?: boolean; cost?: unknown }[];
    expect(listed.map((s) => [s.sessionId, s.usageRecorded, s.cost])).toEqual([['p1', false, undefined]]);
    const shown = JSON.parse(await cli(['sessions', 'show', 'sessionfold-jsonl', 'p1', '--format', 'json'])) as { usageRecorded?: boolean };
    expect(shown.usageRecorded).toBe(false);
    expect(rowsOf(await cli(['sessions', 'list', 'sessionfold-jsonl']))[0]).toContain('not recorded');
  });
});
