/**
 * Every table the CLI prints for people is set one way: Title Case headers, a `─` rule under the header with
 * one run per column (a run starts and ends with its column, numbers and their headers right-aligned), two
 * spaces between columns. Checked over each command's table on the bundled demo history.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { sink } from './sessions-helpers.js';

const DEMO = new URL('../fixtures/demo/', import.meta.url).pathname;
const DEMO_SESSION = 'c4d3880c-5410-4d93-b839-0ac00902df2d';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-table-style-'));
  env = {
    HOME: dir,
    PATH: process.env.PATH,
    CLAUDE_CONFIG_DIR: join(DEMO, 'claude'),
    CODEX_HOME: join(DEMO, 'codex'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    SESSIONFOLD_STORE_DIR: join(dir, 'store'),
    SESSIONFOLD_SOCKET: 'off',
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  expect((await cli('store', 'save', `claude:${DEMO_SESSION}`, '--name', 'kept')).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = sink();
  const code = await runCli(args, { stdout, stderr: sink(), env });
  return { code, stdout: stdout.text() };
}

/** The header line starting with `first`, checked with the rule under it. */
function expectTableStyle(out: string, first: string): void {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith(first));
  expect(at, `a header starting "${first}" in:\n${out}`).toBeGreaterThanOrEqual(0);
  const head = lines[at] as string;
  const rule = lines[at + 1] ?? '';
  expect(rule, head).toMatch(/^─+( {2}─+)*$/);
  const words = [...head.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ text: m[0], from: m.index, to: m.index + m[0].length }));
  const runs = [...rule.matchAll(/─+/g)].map((m) => ({ from: m.index, to: m.index + m[0].length }));
  expect(runs.length, head).toBe(words.length);
  words.forEach((w, i) => {
    expect(w.text, head).toMatch(/^[A-Z]/);
    const run = runs[i] as { from: number; to: number };
    expect(w.from === run.from || w.to === run.to, `${w.text} within its rule`).toBe(true);
  });
}

describe('the human tables share one style', () => {
  it.each([
    [['cost', 'report'], 'Day '],
    [['cost', 'report', '--compact', '--group-by', 'model'], 'Model '],
    [['cost', 'blocks'], 'Agent '],
    [['sessions', 'list'], 'Updated '],
    [['sessions', 'list', 'claude', '--compact', '--no-cost'], 'Updated '],
    [['sessions', 'search', 'parser'], 'Score '],
    [['store', 'list'], 'Session '],
    [['agents'], 'Agent '],
    [['start'], 'Updated '],
    [['start'], 'Day '],
    [['bench', '--agent', 'claude'], 'Agent '],
  ])('%j', async (args, first) => {
    const r = await cli(...args);
    expect(r.code).toBe(0);
    expectTableStyle(r.stdout, first);
  });
});
