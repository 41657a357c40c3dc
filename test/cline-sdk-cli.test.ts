/**
 * Cline ≥ 4.1 (SDK) sessions through the built CLI (dist/), as a subprocess, over a temporary HOME whose
 * `~/.cline/data` is fixtures/cline-sdk/data (SDK sessions and a resumed legacy task): `sessions list` with and
 * without subagents, `sessions show`, `cost report --agent cline` (tokens equal to the golden files, each call
 * once), and `CLINE_SESSION_DATA_DIR`. The agent's folder is the same after every command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { treeListing } from './helpers/files.js';
import { cliJson, isolatedHome } from './helpers/isolated-home.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = join(REPO, 'fixtures');
const SESSION = '1767607200000_k3x9q';
const h = isolatedHome('sf-cline-sdk-cli-', (home) => cp(join(FIXTURES, 'cline-sdk', 'data'), join(home, '.cline', 'data'), { recursive: true }));
const data = () => join(h.home, '.cline', 'data');
let before: string[];

beforeAll(async () => {
  const built = join(REPO, 'dist', 'codecs', 'cline', 'sdk-parse.js');
  const src = join(REPO, 'codecs', 'cline', 'sdk-parse.ts');
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(src).mtimeMs) await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO });
  before = await treeListing(data());
}, 300_000);

/** The built CLI's JSON for `args`, after checking the agent's folder is as it was. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<any> {
  const out = await cliJson({ ...h.env, ...env }, args);
  expect(await treeListing(data()), `${args.join(' ')} leaves the agent's folder as it was`).toEqual(before);
  return out;
}

/** The usage events of every SDK golden file (the resumed task folder's included). */
async function goldenUsage(): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  for (const name of (await readdir(join(FIXTURES, 'expected', 'cline'))).filter((n) => n.startsWith('sdk-'))) {
    for (const l of (await readFile(join(FIXTURES, 'expected', 'cline', name), 'utf8')).split('\n').filter(Boolean)) {
      const e = JSON.parse(l) as SessionfoldEvent;
      if (e.type === 'usage') out.push(e);
    }
  }
  return out;
}

type Row = { sessionId: string; title?: string; forkedFrom?: string; subagent?: true; usageUnknown?: true; cost?: { requestCount: number } };

describe('sessionfold CLI over Cline SDK sessions', () => {
  it('sessions list cline lists every root session once; --subagents adds the children under their root', async () => {
    const rows = (await cli(['sessions', 'list', 'cline', '--json'])) as Row[];
    const roots = (await readdir(join(data(), 'sessions'))).sort();
    expect(rows.map((r) => r.sessionId).sort()).toEqual(roots);
    expect(rows.find((r) => r.sessionId === SESSION)).toMatchObject({ title: 'Add retry to the HTTP client', cost: { requestCount: 4 } });
    expect(rows.find((r) => r.sessionId === '1767614400000_f0rk1')).toMatchObject({ forkedFrom: SESSION, usageUnknown: true });
    const all = (await cli(['sessions', 'list', 'cline', '--json', '--subagents'])) as Row[];
    expect(all.filter((r) => r.subagent).map((r) => [r.sessionId, r.forkedFrom]).sort()).toEqual([[`${SESSION}/agent_7f2a`, SESSION], [`${SESSION}/agent_team1__task_2`, SESSION]]);
  });

  it('sessions show has the conversation, its tools and its work dir', async () => {
    const c = JSON.stringify(await cli(['sessions', 'show', 'cline', SESSION, '--format', 'json']));
    for (const text of ['Add retry to the HTTP client', 'Now document it in the README.', 'spawn_agent', '/home/dev/http-client']) expect(c).toContain(text);
  });

  it('cost report --agent cline counts each call once, with the golden tokens', async () => {
    const usage = await goldenUsage();
    const report = (await cli(['cost', 'report', '--agent', 'cline', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, Record<string, number>> };
    const sum = (f: (u: UsageEvent) => number) => usage.reduce((a, u) => a + f(u), 0);
    expect(report.breakdowns.cline).toMatchObject({ inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), cacheReadTokens: sum((u) => u.cacheReadTokens), cacheWriteTokens: sum((u) => u.cacheWriteTokens), requestCount: usage.length });
    expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(usage.length);
  });

  it('CLINE_SESSION_DATA_DIR names a folder of session folders', async () => {
    const elsewhere = join(h.home, 'elsewhere');
    await cp(join(data(), 'sessions', SESSION), join(elsewhere, SESSION), { recursive: true });
    try {
      const rows = (await cli(['sessions', 'list', 'cline', '--json'], { CLINE_DATA_DIR: join(h.home, 'none'), CLINE_SESSION_DATA_DIR: elsewhere })) as Row[];
      expect(rows.map((r) => r.sessionId)).toEqual([SESSION]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
