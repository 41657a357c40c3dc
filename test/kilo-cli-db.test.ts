/**
 * Kilo CLI's `kilo.db` (OpenCode's engine and schema under Kilo's name, codecs/opencode/README.md "Forks")
 * through the built CLI: the `kilo` agent reads it beside the extension's tasks, with its own agent id and
 * dedup keys, so an OpenCode database holding the same rows is counted apart and neither counts the other's.
 * The databases are the test's own, made with OpenCode's real DDL (test/helpers/opencode-db.ts), and are
 * unchanged after every command, with no `-wal` or `-shm` beside them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kilo } from '../codecs/kilo/index.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import type { CostSummary } from '../src/cost/types.js';
import { treeListing } from './helpers/files.js';
import { buildOpencodeDb } from './helpers/opencode-db.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

let home: string;
let data: string;
let before: string[];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-kilo-db-'));
  data = join(home, '.local', 'share');
  for (const [dir, name] of [['kilo', 'kilo.db'], ['opencode', 'opencode.db']] as const) {
    mkdirSync(join(data, dir), { recursive: true });
    buildOpencodeDb(join(data, dir, name));
  }
  before = await treeListing(data);
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  const r = await run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: data, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', TZ: 'UTC' },
  });
  expect(await treeListing(data), `${args.join(' ')} leaves the databases as they were`).toEqual(before);
  return r.stdout;
}

/** buildOpencodeDb's two sessions of three exchanges: input 100+n, output 40+n plus 7 reasoning, cache 2000+n / 300. */
const DB_TOKENS = { inputTokens: 612, outputTokens: 294, cacheReadTokens: 12012, cacheWriteTokens: 1800 };

describe('Kilo CLI (kilo.db)', () => {
  it('the kilo codec lists the database sessions under Kilo CLI\'s data folder, as kilo\'s', async () => {
    const files = [...kilo.discoverSync!(kilo.defaultRoots({ HOME: home, XDG_DATA_HOME: data }))];
    expect(files.map((f) => [f.agent, f.sessionId])).toEqual([
      ['kilo', 'ses_main'],
      ['kilo', 'ses_child'],
    ]);
    const events: SessionfoldEvent[] = [];
    for await (const e of kilo.read(files[0]!.path)) events.push(e);
    expect(new Set(events.map((e) => e.agent))).toEqual(new Set(['kilo']));
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(3);
    expect(usage.every((u) => u.type === 'usage' && u.dedupKey.startsWith('kilo:'))).toBe(true);
  });

  it('cost report counts Kilo CLI and OpenCode apart, each once', async () => {
    for (const cache of [['--no-cache'], []]) {
      const r = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent', '--agent', 'kilo', '--agent', 'opencode', ...cache])) as CostSummary;
      for (const agent of ['kilo', 'opencode']) {
        const row = r.breakdowns?.[agent];
        expect({ inputTokens: row?.inputTokens, outputTokens: row?.outputTokens, cacheReadTokens: row?.cacheReadTokens, cacheWriteTokens: row?.cacheWriteTokens }, agent).toEqual(DB_TOKENS);
        expect(row?.sessionCount, agent).toBe(2);
      }
    }
  });

  it('sessions list and read know the CLI sessions as kilo\'s', async () => {
    type Row = { agent: string };
    const rows = (args: string[]) => cli(['sessions', 'list', 'kilo', '--json', ...args]).then((o) => {
      const list = JSON.parse(o) as { sessions?: Row[] } | Row[];
      return (Array.isArray(list) ? list : (list.sessions ?? [])).map((s) => s.agent);
    });
    // ses_child is a subagent (its parent_id is ses_main): listed with --subagents only.
    expect(await rows([])).toEqual(['kilo']);
    expect(await rows(['--subagents'])).toEqual(['kilo', 'kilo']);
    const lines = (await cli(['read', '--agent', 'kilo', `${join(data, 'kilo', 'kilo.db')}#ses_child`])).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((l) => (JSON.parse(l) as SessionfoldEvent).agent === 'kilo')).toBe(true);
  });
});
