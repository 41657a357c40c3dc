/**
 * The Gemini CLI codec through the built CLI (dist/), as a subprocess, over a temporary GEMINI_CLI_HOME that
 * holds every shared fixture laid out as Gemini CLI lays out its tree (a slug dir with its `.project_root`,
 * hash dirs, the registry): `sessions list gemini`, `sessions show`, `cost report --json --group-by agent`
 * (tokens equal to the golden files, USD equal to @pydantic/genai-prices for those tokens) and `read`. The
 * agent's tree is the same after every command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { calcPrice } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini } from '../codecs/gemini/index.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/gemini/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/gemini/', import.meta.url));
const PROJECT = '/home/someone/proj-a';

/** Where each fixture goes in the tree: its project dir and the name Gemini CLI would give it. */
const LAYOUT: Record<string, [string, string]> = {
  'agent-sessions-jsonl-v0.40.jsonl': ['proj-a', 'session-2026-04-29T21-39-gemini_s.jsonl'],
  'agent-sessions-chat-small.json': ['0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9', 'session-2026-01-16T18-34-3739ef95.json'],
  'agent-sessions-chat-large.json': ['205016864bd110904e9ad8314192344ab398d043e779da15bedbb9ee9be00da2', 'session-2025-12-16T23-47-b4f17607.json'],
  'agentsview-thinking-only.json': ['abc123def456', 'session-2024-01-01T10-00-sess-uui.json'],
  'agentsview-tool-calls.json': ['abc123def456', 'session-2024-01-01T10-00-sess-uu2.json'],
};

let home: string;
let before: string[];

beforeAll(async () => {
  const built = join(ROOT, 'dist', 'codecs', 'gemini', 'index.js');
  const src = join(ROOT, 'codecs', 'gemini');
  const newest = Math.max(...(await readdir(src)).filter((f) => f.endsWith('.ts')).map((f) => statSync(join(src, f)).mtimeMs));
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < newest) await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
  home = await mkdtemp(join(tmpdir(), 'sf-gemini-cli-'));
  const tmp = join(home, '.gemini', 'tmp');
  for (const [name, [dir, file]] of Object.entries(LAYOUT)) {
    await mkdir(join(tmp, dir, 'chats'), { recursive: true });
    await copyFile(join(REAL, name), join(tmp, dir, 'chats', file));
  }
  await writeFile(join(tmp, 'proj-a', '.project_root'), PROJECT);
  await writeFile(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [PROJECT]: 'proj-a' } }));
  before = await treeListing(join(home, '.gemini'));
}, 180_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
    env: { PATH: process.env.PATH, HOME: home, GEMINI_CLI_HOME: home, XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' },
  });
  expect(await treeListing(join(home, '.gemini')), `${args.join(' ')} leaves the agent's tree as it was`).toEqual(before);
  return r;
}

async function goldenUsage(): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  for (const name of Object.keys(LAYOUT)) {
    const text = await readFile(join(EXPECTED, `${name}.events.jsonl`), 'utf8');
    for (const l of text.split('\n').filter(Boolean)) {
      const e = JSON.parse(l) as SessionfoldEvent;
      if (e.type === 'usage') out.push(e);
    }
  }
  return out;
}

describe('sessionfold CLI over a Gemini CLI tree', () => {
  it('sessions list gemini lists every chat with its title, and the cwd of the registered project', async () => {
    const { stdout } = await cli(['sessions', 'list', 'gemini', '--json']);
    const rows = JSON.parse(stdout) as { sessionId: string; title?: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['gemini_stage0_jsonl', 'sess-uuid-2', 'sess-uuid-thinking', 'session-2025-12-16T23-47-b4f17607', 'session-2026-01-16T18-34-3739ef95']);
    const jsonl = rows.find((r) => r.sessionId === 'gemini_stage0_jsonl');
    expect(jsonl).toMatchObject({ title: 'Say hello and list files.', cwd: PROJECT });
    expect(rows.every((r) => typeof r.title === 'string' && r.title !== '')).toBe(true);
  });

  it('sessions show prints the conversation with its tool calls', async () => {
    const { stdout } = await cli(['sessions', 'show', 'gemini', 'gemini_stage0_jsonl']);
    expect(stdout).toContain('Say hello and list files.');
    expect(stdout).toContain('run_shell_command');
    expect(stdout).toContain('Hello! I listed the files.');
    const doc = await cli(['sessions', 'show', 'gemini', 'sess-uuid-2']);
    expect(doc.stdout).toContain('Let me read it.');
  });

  it('cost report --json --group-by agent: the golden tokens, priced as genai-prices prices them', async () => {
    const { stdout } = await cli(['cost', 'report', '--json', '--group-by', 'agent']);
    const report = JSON.parse(stdout) as { breakdowns: Record<string, { inputTokens: number; outputTokens: number; cacheReadTokens: number; requestCount: number; totalUsd: number }> };
    const g = report.breakdowns.gemini;
    const usage = await goldenUsage();
    const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
    expect(g).toMatchObject({ inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), requestCount: usage.length });
    expect(usage.length).toBeGreaterThanOrEqual(4);
    let usd = 0;
    for (const u of usage) {
      const r = calcPrice({ input_tokens: u.inputTokens + u.cacheReadTokens, cache_read_tokens: u.cacheReadTokens, output_tokens: u.outputTokens }, u.model, { providerId: 'google', timestamp: new Date(u.timestamp) });
      expect(r, u.model).toBeTruthy();
      usd += r!.total_price;
    }
    expect(g!.totalUsd).toBeCloseTo(usd, 12);
    expect(g!.totalUsd).toBeGreaterThan(0);
  });

  it('read --agent gemini streams the library events of a JSONL chat and a JSON one', async () => {
    for (const [dir, file] of [LAYOUT['agent-sessions-jsonl-v0.40.jsonl']!, LAYOUT['agent-sessions-chat-large.json']!]) {
      const path = join(home, '.gemini', 'tmp', dir, 'chats', file);
      const { stdout } = await cli(['read', path, '--agent', 'gemini']);
      const events = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
      expect(events).toEqual(await readEvents(gemini, path));
      expect(events.some((e) => e.type === 'usage')).toBe(true);
    }
  });
});
