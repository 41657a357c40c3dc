/**
 * The qwen and droid codecs through the built CLI (dist/), as a subprocess, over a temporary HOME that holds
 * every fixture of both laid out as each agent lays out its tree (`~/.qwen/projects/<p>/chats/`,
 * `~/.factory/sessions/<p>/` with the sidecar): `sessions list`, `cost report --json --group-by agent` (tokens
 * equal to the golden files) and `read`. The agents' trees are the same after every command.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droid } from '../codecs/droid/index.js';
import { qwen } from '../codecs/qwen/index.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const SHARED = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));
const OWN_DROID = fileURLToPath(new URL('../fixtures/droid/sessions/-home-someone-proj/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/', import.meta.url));

let home: string;
let before: string[];
const files: Record<'qwen' | 'droid', string[]> = { qwen: [], droid: [] };

async function place(from: string, dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await copyFile(join(from, name), join(dir, name));
  return join(dir, name);
}

beforeAll(async () => {
  await buildIfStale(['qwen', 'droid']);
  home = await mkdtemp(join(tmpdir(), 'sf-qwen-droid-cli-'));
  const chats = join(home, '.qwen', 'projects', '-tmp-proj', 'chats');
  for (const n of (await readdir(join(SHARED, 'qwen'))).filter((n) => n.endsWith('.jsonl'))) files.qwen.push(await place(join(SHARED, 'qwen'), chats, n));
  const sessions = join(home, '.factory', 'sessions');
  for (const n of (await readdir(join(SHARED, 'droid'))).filter((n) => n.endsWith('.jsonl'))) files.droid.push(await place(join(SHARED, 'droid'), join(sessions, '-tmp'), n));
  for (const n of await readdir(OWN_DROID)) {
    const p = await place(OWN_DROID, join(sessions, '-home-someone-proj'), n);
    if (n.endsWith('.jsonl')) files.droid.push(p);
  }
  before = await trees();
}, 300_000);

async function trees(): Promise<string[]> {
  return [...(await treeListing(join(home, '.qwen'))), ...(await treeListing(join(home, '.factory')))];
}

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, trees, () => before);

const agentUsage = (agent: 'qwen' | 'droid'): Promise<UsageEvent[]> => goldenUsage(files[agent].map((f) => join(EXPECTED, agent, `${f.split('/').pop()}.events.jsonl`)));

describe('sessionfold CLI over Qwen Code and Factory Droid trees', () => {
  it.each(['qwen', 'droid'] as const)('sessions list %s lists every session file', async (agent) => {
    const rows = JSON.parse(await cli(['sessions', 'list', agent, '--json'])) as { sessionId: string; agent: string }[];
    const ids = files[agent].map((f) => f.split('/').pop()!.replace(/\.jsonl$/, '')).sort();
    expect(rows.map((r) => r.sessionId).sort()).toEqual(ids);
    expect(rows.every((r) => r.agent === agent)).toBe(true);
  });

  it('sessions show prints the conversation, its tool calls and the title', async () => {
    const q = await cli(['sessions', 'show', 'qwen', 'splitrail-qwen-code-v0.18.1']);
    expect(q).toContain('List the files here.');
    expect(q).toContain('list_directory');
    expect(q).toContain('Done.');
    const d = await cli(['sessions', 'show', 'droid', '6f1c2b9e-4c1d-4e58-9a57-0d2f3c4b5a61']);
    expect(d).toContain('# Fix the failing test');
    expect(d).toContain('Fix the failing test in add.test.ts');
    expect(d).not.toContain('system-reminder');
    expect(d).toContain('Execute');
  });

  it('cost report --json --group-by agent has a row per agent with the golden tokens', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, AgentRow> };
    for (const agent of ['qwen', 'droid'] as const) expectGoldenRow(report.breakdowns[agent], agent, await agentUsage(agent));
    const warm = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as typeof report;
    expect(warm.breakdowns, 'a second report from the warm cache').toEqual(report.breakdowns);
    // Droid rewrites the sidecar as a session runs: the cached events of its session are read again.
    const sidecar = files.droid.find((f) => f.includes('-home-someone-proj'))!.replace(/\.jsonl$/, '.settings.json');
    const original = await readFile(sidecar, 'utf8');
    try {
      const doc = JSON.parse(original);
      doc.tokenUsage.inputTokens += 1000;
      await writeFile(sidecar, JSON.stringify(doc));
      before = await trees();
      const changed = JSON.parse(await cli(['cost', 'report', '--json', '--group-by', 'agent'])) as typeof report;
      expect(changed.breakdowns.droid!.inputTokens).toBe(report.breakdowns.droid!.inputTokens + 1000);
    } finally {
      await writeFile(sidecar, original);
      before = await trees();
    }
  });

  it('read --agent streams the library events, the droid sidecar included', async () => {
    const q = files.qwen.find((f) => f.includes('glued'))!;
    const d = files.droid.find((f) => f.includes('-home-someone-proj'))!;
    for (const [agent, codec, path] of [['qwen', qwen, q], ['droid', droid, d]] as const) {
      const events = (await cli(['read', path, '--agent', agent])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
      expect(events).toEqual(await readEvents(codec, path));
      expect(events.some((e) => e.type === 'usage' || e.type === 'message')).toBe(true);
    }
  });
});
