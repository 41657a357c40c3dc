/**
 * The cursor and goose codecs through the built CLI (a subprocess, isolated HOME): `sessions list`,
 * `sessions show` and `cost report --json --group-by agent` over real fixtures and databases built with the
 * agents' schemas, and the agents' folders unchanged by every command. Cursor records no token usage: its
 * sessions say so (`usageRecorded: false`, the Markdown's "unknown"), and a report of Cursor alone prints no
 * zero total as if tokens were counted. Build first: `npx tsc -p .` and
 * `node scripts/bundle-cli.mjs`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursor } from '../codecs/cursor/index.js';
import { goose } from '../codecs/goose/index.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { snapshotTree } from './sessions-helpers.js';
import { COMPOSER_A, COMPOSER_B, COMPOSER_MISSING, writeStateDb } from './cursor-helpers.js';
import { S_BAD, S_MAIN, S_SUB, writeGooseDb } from './goose-helpers.js';

const run = promisify(execFile);

/** Plain SQL on a private copy of the agent's database (a plain read-only open would write beside it). */
function sqlOnCopy<T>(db: string, sql: string, ...params: unknown[]): T {
  const copy = join(home, 'copy.db');
  copyFileSync(db, copy);
  const d = new Database(copy, { readonly: true });
  try {
    return d.prepare(sql).get(...params) as T;
  } finally {
    d.close();
    rmSync(copy, { force: true });
  }
}
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/cursor/', import.meta.url));
const REAL_CHAT = 'a1b2c3d4-e5f6-7890-abcd-ef1234567890';
const home = mkdtempSync(join(tmpdir(), 'sf-cursor-goose-cli-'));
const agentDirs = [join(home, '.cursor'), join(home, '.config', 'Cursor'), join(home, '.local', 'share', 'goose')];
const gooseDb = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CACHE_HOME: join(home, '.cache'),
  SESSIONFOLD_TAGS: join(home, 'tags.json'),
  NO_COLOR: '1',
  TZ: 'UTC',
  COLUMNS: '200',
};

async function cli(args: string[]): Promise<string> {
  return (await cliBoth(args)).stdout;
}

async function cliBoth(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 });
}

let before: Awaited<ReturnType<typeof snapshotTree>>[];

beforeAll(async () => {
  const transcripts = join(home, '.cursor', 'projects', 'Users-dev-app', 'agent-transcripts');
  mkdirSync(transcripts, { recursive: true });
  copyFileSync(join(REAL, 'agent-sessions-agent-transcript.jsonl'), join(transcripts, 'p1.jsonl'));
  const chat = join(home, '.cursor', 'chats', 'e4e90b7bcae743c9a1a1a045a49e1b1d', REAL_CHAT);
  mkdirSync(chat, { recursive: true });
  copyFileSync(join(REAL, 'agent-sessions-cli-chat-store.db'), join(chat, 'store.db'));
  writeStateDb(join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb')).close();
  writeGooseDb(gooseDb);
  before = await Promise.all(agentDirs.map((d) => snapshotTree(d)));
});

afterAll(async () => {
  // every command below ran against these folders: none of them may have changed a byte
  expect(await Promise.all(agentDirs.map((d) => snapshotTree(d)))).toEqual(before);
  rmSync(home, { recursive: true, force: true });
});

interface Summary {
  agent: string;
  sessionId: string;
  messageCount: number;
  cost?: { inputTokens: number; outputTokens: number; requestCount: number };
  usageRecorded?: false;
  file: string;
}

describe('sessions list', () => {
  it('cursor: every chat store, transcript and IDE composer, none with a cost', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'cursor', '--json'])) as Summary[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['p1', REAL_CHAT, COMPOSER_A, COMPOSER_B, COMPOSER_MISSING].sort());
    for (const r of rows) expect(r.cost).toBeUndefined();
    // said, not only left out: the agent records no usage, so the cost is unknown (not a session without any)
    for (const r of rows) expect(r.usageRecorded).toBe(false);
    // a user, two assistants (one only a tool call) and the two tool results
    expect(rows.find((r) => r.sessionId === COMPOSER_A)?.messageCount).toBe(5);
  });

  it('goose: each session of the database, subagents only with --subagents, usage as plain SQL has it', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'goose', '--json'])) as Summary[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual([S_MAIN, S_BAD].sort());
    const withSubs = JSON.parse(await cli(['sessions', 'list', 'goose', '--json', '--subagents'])) as Summary[];
    expect(withSubs.map((r) => r.sessionId).sort()).toEqual([S_MAIN, S_SUB, S_BAD].sort());
    const sql = sqlOnCopy<{ i: number; o: number }>(gooseDb, 'SELECT accumulated_input_tokens AS i, accumulated_output_tokens AS o FROM sessions WHERE id = ?', S_MAIN);
    const main = rows.find((r) => r.sessionId === S_MAIN)!;
    expect(main.cost).toMatchObject({ inputTokens: sql.i, outputTokens: sql.o, requestCount: 1 });
    expect(main.file).toBe(`${gooseDb}#${S_MAIN}`);
    for (const r of withSubs) expect(r).not.toHaveProperty('usageRecorded');
  });
});

describe('sessions show', () => {
  it('goose: one session of the database, its messages and tool calls', async () => {
    const s = JSON.parse(await cli(['sessions', 'show', 'goose', S_MAIN, '--format', 'json'])) as {
      sessionId: string;
      title: string;
      messages: { role: string; content: string; toolCalls?: { toolName: string }[] }[];
      cost?: { inputTokens: number };
    };
    expect(s.sessionId).toBe(S_MAIN);
    expect(s.title).toBe('Fix the parser');
    expect(s.messages[0]).toMatchObject({ role: 'user', content: 'Why does cargo test fail?' });
    expect(s.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.toolName)).toEqual(['developer__shell', '']);
    expect(s.cost?.inputTokens).toBe(12000);
  });

  it('cursor: an IDE composer by its id, and a transcript; no cost', async () => {
    const c = JSON.parse(await cli(['sessions', 'show', `cursor:${COMPOSER_A}`, '--format', 'json'])) as { title: string; messages: { content: string }[]; cost?: unknown };
    expect(c.title).toBe('Rate limiter');
    expect(c.messages[0]?.content).toBe('Add a token-bucket limiter to the router.');
    expect(c.cost).toBeUndefined();
    const md = await cli(['sessions', 'show', 'cursor', 'p1', '--no-pager']);
    expect(md).toContain('run ls command');
  });

  it('cursor: the Markdown says the usage is unknown because the agent records none', async () => {
    for (const id of [COMPOSER_A, 'p1']) {
      const md = await cli(['sessions', 'show', `cursor:${id}`, '--no-pager']);
      const lines = md.split('\n');
      expect(lines).toContain('- **Cost:** unknown (the agent records no token usage)');
      const summary = lines.slice(lines.indexOf('## Cost summary'));
      expect(summary.filter((l) => l !== '')).toEqual(['## Cost summary', 'Token usage unknown: the agent records no token usage.']);
      expect(md).not.toContain('No token usage recorded');
    }
    // an agent that records usage keeps its cost lines
    const goose = await cli(['sessions', 'show', `goose:${S_MAIN}`, '--no-pager']);
    expect(goose).toMatch(/^- \*\*Cost:\*\* \$/m);
    expect(goose).not.toContain('records no token usage');
  });
});

describe('read', () => {
  it('streams a record path, a database and a transcript as the library reads them', async () => {
    const ndjson = (t: string) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(ndjson(await cli(['read', `${gooseDb}#${S_MAIN}`, '--agent', 'goose']))).toEqual(await readEvents(goose, `${gooseDb}#${S_MAIN}`));
    expect(ndjson(await cli(['read', gooseDb, '--agent', 'goose', '--kinds', 'usage']))).toEqual(await readEvents(goose, gooseDb, { kinds: ['usage'] }));
    const p1 = join(home, '.cursor', 'projects', 'Users-dev-app', 'agent-transcripts', 'p1.jsonl');
    expect(ndjson(await cli(['read', p1, '--agent', 'cursor']))).toEqual(await readEvents(cursor, p1));
  });
});

describe('the SQLite driver in a CLI process', () => {
  it('takes URI file names (no private copy) even when another database was opened first, as the cache is', async () => {
    const dist = (p: string) => JSON.stringify(fileURLToPath(new URL(`../dist/${p}`, import.meta.url)));
    const script = [
      `await (await import(${dist('src/registry.js')})).loadCodecs();`,
      "const { default: Database } = await import('better-sqlite3');",
      "new Database(':memory:').close();",
      `const { withSqliteSnapshot } = await import(${dist('cursors/sqlite.js')});`,
      'const seen = [];',
      `withSqliteSnapshot(${JSON.stringify(gooseDb)}, () => 0, { onStrategy: (s) => seen.push(s) });`,
      'console.log(JSON.stringify(seen));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { PATH: process.env.PATH } });
    expect(JSON.parse(stdout)).toEqual(['immutable']);
  });
});

describe('cost report of Cursor alone', () => {
  it('prints no zero total as if tokens were counted: one line says none are, in the table and in Markdown', async () => {
    for (const format of ['table', 'markdown']) {
      const { stdout, stderr } = await cliBoth(['cost', 'report', '--agent', 'cursor', '--format', format]);
      expect(stdout, format).not.toMatch(/Total|\$0\.00/);
      expect(stdout.trimEnd().split('\n').at(-1), format).toBe('(no token usage counted: cursor records none)');
      expect(stderr).toMatch(/note: cursor: \d+ session files?; the agent records no token usage/);
    }
    // the JSON keeps its shape: totals of the usage counted (none), and the sources say why
    const json = JSON.parse(await cli(['cost', 'report', '--agent', 'cursor', '--json'])) as { requestCount: number; totalUsd: number; breakdowns: object; sources: { files: number; usageRecorded?: false }[] };
    expect([json.requestCount, json.totalUsd, json.breakdowns]).toEqual([0, 0, {}]);
    const found = json.sources.filter((x) => x.files > 0);
    expect(found.length).toBeGreaterThan(0);
    for (const x of json.sources) expect(x.usageRecorded).toBe(false);
    // beside an agent that records usage, its table as ever (the note names Cursor)
    const both = await cli(['cost', 'report', '--agent', 'cursor,goose', '--group-by', 'agent']);
    expect(both).toMatch(/^goose\s/m);
    expect(both).toMatch(/^Total\s/m);
    expect(both).not.toContain('no token usage counted');
  });
});

describe('cost report --json --group-by agent', () => {
  it('a goose row equal to plain SQL totals, and no cursor row (Cursor records no usage)', async () => {
    const s = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'])) as {
      breakdowns: Record<string, { inputTokens: number; outputTokens: number; requestCount: number; sessionCount: number }>;
    };
    const sql = sqlOnCopy<{ i: number; o: number; n: number }>(
      gooseDb,
      `SELECT sum(CASE WHEN coalesce(accumulated_input_tokens, input_tokens) >= 0 THEN coalesce(accumulated_input_tokens, input_tokens) END) AS i,
                sum(CASE WHEN coalesce(accumulated_output_tokens, output_tokens) >= 0 THEN coalesce(accumulated_output_tokens, output_tokens) END) AS o,
                count(coalesce(accumulated_input_tokens, input_tokens, accumulated_output_tokens, output_tokens)) AS n FROM sessions`,
    );
    expect(Object.keys(s.breakdowns)).toEqual(['goose']);
    expect(s.breakdowns.goose).toMatchObject({ inputTokens: sql.i, outputTokens: sql.o, requestCount: sql.n, sessionCount: 3 });
    // the cached scan gives the same report
    const cached = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as typeof s;
    expect(cached.breakdowns).toEqual(s.breakdowns);
  });
});
