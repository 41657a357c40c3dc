/**
 * The grok, grok-cli, codebuff and zcode codecs through the built CLI (dist/), as a subprocess, over a temporary HOME
 * holding each agent's fixture tree where the agent keeps it (`~/.grok/sessions/…`, `~/.config/manicode/…`, the
 * Z Code database built from fixtures/zcode/db.sql at `~/.zcode/cli/db/db.sqlite`): `sessions list`,
 * `sessions show`, `cost report --json --group-by agent` (tokens equal to the golden files) and `read`. The
 * agents' trees are the same after every command.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codebuff, discoverCodebuffSync } from '../codecs/codebuff/index.js';
import { discoverGrokSync, grok } from '../codecs/grok/index.js';
import { grokCli } from '../codecs/grok-cli/index.js';
import { zcode } from '../codecs/zcode/index.js';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { buildZcodeDb } from './helpers/zcode-db.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const EXPECTED = join(FIXTURES, 'expected');
const AGENTS = ['grok', 'grok-cli', 'codebuff', 'zcode'] as const;
type Agent = (typeof AGENTS)[number];
const CODECS: Record<Agent, Codec> = { grok, 'grok-cli': grokCli, codebuff, zcode };

let home: string;
let before: string[];
const files = {} as Record<Agent, SessionFile[]>;

beforeAll(async () => {
  await buildIfStale(AGENTS);
  home = await mkdtemp(join(tmpdir(), 'sf-grok-codebuff-zcode-cli-'));
  await cp(join(FIXTURES, 'grok', 'sessions'), join(home, '.grok', 'sessions'), { recursive: true });
  files.grok = [...discoverGrokSync([join(home, '.grok', 'sessions')])];
  // The community grok-cli's database in the same ~/.grok folder as Grok Build's sessions.
  const g = new Database(join(home, '.grok', 'grok.db'));
  g.pragma('journal_mode = WAL');
  g.exec(await readFile(join(FIXTURES, 'grok-cli', 'grok.sql'), 'utf8'));
  g.close();
  files['grok-cli'] = [];
  for await (const f of grokCli.discover([join(home, '.grok')])) files['grok-cli'].push(f);
  await cp(join(FIXTURES, 'codebuff', 'projects'), join(home, '.config', 'manicode', 'projects'), { recursive: true });
  files.codebuff = [...discoverCodebuffSync([join(home, '.config', 'manicode', 'projects')])];
  await mkdir(join(home, '.zcode', 'cli', 'db'), { recursive: true });
  buildZcodeDb(join(home, '.zcode', 'cli', 'db', 'db.sqlite'));
  files.zcode = [];
  for await (const f of zcode.discover([join(home, '.zcode')])) files.zcode.push(f);
  before = await trees();
}, 300_000);

async function trees(): Promise<string[]> {
  return [...(await treeListing(join(home, '.grok'))), ...(await treeListing(join(home, '.config', 'manicode'))), ...(await treeListing(join(home, '.zcode')))];
}

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, trees, () => before);

/** The golden usage of an agent's fixtures, once per dedup key (named by session id; a database's is the database's). */
const agentUsage = (agent: Agent): Promise<UsageEvent[]> =>
  goldenUsage((agent === 'zcode' ? ['db'] : agent === 'grok-cli' ? ['grok'] : files[agent].map((f) => f.sessionId!)).map((name) => join(EXPECTED, agent, `${name}.events.jsonl`)));

describe('sessionfold CLI over Grok Build, grok-cli, Codebuff and Z Code trees', () => {
  it.each(AGENTS)('sessions list %s lists every session', async (agent) => {
    const rows = JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { sessionId: string; agent: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(files[agent].map((f) => f.sessionId!).sort());
    expect(rows.every((r) => r.agent === agent)).toBe(true);
  });

  it('sessions show prints the conversation with its tool calls', async () => {
    const g = await cli(['sessions', 'show', 'grok', '0f9c2e4a-1b7d-4c3e-9a51-6d2b8e7f1a01']);
    expect(g).toContain('Why does the build fail?');
    expect(g).toContain('The build fails because strict mode flags an implicit any.');
    expect(g).toContain('run_command');
    const gc = await cli(['sessions', 'show', 'grok-cli', 's_7f3a']);
    expect(gc).toContain('The footer link points to /about-us; fix it.');
    expect(gc).toContain('str_replace_editor');
    const c = await cli(['sessions', 'show', 'codebuff', '2026-01-04T09-15-00.000Z']);
    expect(c).toContain('Add a health check endpoint');
    expect(c).toContain('Added GET /health returning 200.');
    expect(c).toContain('find_files');
  });

  it.each(AGENTS)('cost report %s says how many sessions have usage the agent did not record', async (agent) => {
    const rows = JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { usageUnknown?: true }[];
    const n = rows.filter((r) => r.usageUnknown === true).length;
    const h = home;
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', agent, '--json'], {
      maxBuffer: 64 << 20,
      env: { PATH: process.env.PATH, HOME: h, XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share'), TZ: 'UTC' },
    });
    const note = r.stderr.split('\n').filter((l) => l.startsWith(`note: ${agent}: `) && l.includes('not recorded'));
    if (n === 0) expect(note).toEqual([]);
    else expect(note).toEqual([`note: ${agent}: ${n} session${n === 1 ? ' has' : 's have'} tokens the agent has not recorded, counted as none here (\`sessions list ${agent}\` marks them)`]);
    expect(await trees()).toEqual(before);
  });

  it('some of these sessions have usage the agent did not record', async () => {
    let n = 0;
    for (const agent of AGENTS) n += (JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { usageUnknown?: true }[]).filter((r) => r.usageUnknown === true).length;
    expect(n).toBeGreaterThan(0);
  });

  it('cost report --json --group-by agent has a row per agent with the golden tokens', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, AgentRow> };
    for (const agent of AGENTS) expectGoldenRow(report.breakdowns[agent], agent, await agentUsage(agent));
    const warm = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as typeof report;
    expect(warm.breakdowns, 'a second report from the warm cache').toEqual(report.breakdowns);
    // Z Code writes a request while it runs: the cached database is read again.
    const db = new Database(join(home, '.zcode', 'cli', 'db', 'db.sqlite'));
    db.prepare("INSERT INTO model_usage (id, session_id, model_id, started_at, input_tokens, output_tokens, computed_total_tokens) VALUES ('mu_new', 'sess_02JAPI', 'kimi-k2', 1767690040000, 700, 30, 730)").run();
    db.close();
    before = await trees();
    const changed = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as typeof report;
    expect(changed.breakdowns.zcode).toMatchObject({ inputTokens: report.breakdowns.zcode!.inputTokens + 700, requestCount: report.breakdowns.zcode!.requestCount + 1 });
    expect(changed.breakdowns.grok).toEqual(report.breakdowns.grok);
  });

  it.each(AGENTS)('read --agent %s streams the library events', async (agent) => {
    const path = files[agent][0]!.path;
    const events = (await cli(['read', path, '--agent', agent])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(CODECS[agent], path));
    expect(events.some((e) => e.type === (agent === 'zcode' ? 'usage' : 'message'))).toBe(true);
  });
});
