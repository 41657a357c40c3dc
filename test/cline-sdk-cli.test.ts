/**
 * Cline ≥ 4.1 (SDK) sessions through the built CLI (dist/), as a subprocess, over a temporary HOME whose
 * `~/.cline/data` is fixtures/cline-sdk/data (SDK sessions and a resumed legacy task): `sessions list` with and
 * without subagents, `sessions show`, `cost report --agent cline` (each call once, the totals worked out by hand
 * from the fixture), and `CLINE_SESSION_DATA_DIR`. The agent's folder is the same after every command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
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

/**
 * Every call the fixture holds that counts, worked out by hand from fixtures/cline-sdk/data/: [uncached input
 * (`inputTokens` less both cache counts, never below 0), output, cache read, cache write].
 */
const CALLS: Record<string, [number, number, number, number]> = {
  // 1767520800000: the SDK file's seed total (before the marker) is the task folder's, so only r2 counts there;
  // the task folder's ui_messages.json counts its two requests before baseUiMessageCount (5).
  'resumed r2': [21000 - 17000 - 3000, 410, 17000, 3000],
  'task 1767520801000': [2400, 300, 0, 4000],
  'task 1767520809000': [2000, 220, 8000, 0],
  // 1767607200000_k3x9q: four calls (m10 the last run's total), and its subagent's two; the teammate has none.
  'root m2': [12000 - 9000 - 2000, 300, 9000, 2000],
  'root m4': [13500 - 11000 - 500, 220, 11000, 500],
  'root m6': [14200 - 13000 - 700, 90, 13000, 700],
  'root m10': [30000 - 26000 - 1500, 500, 26000, 1500],
  'subagent s2': [2600 - 0 - 2400, 250, 0, 2400],
  'subagent s4': [2400 - 2400 - 0, 150, 2400, 0],
  // 1767614400000_f0rk1: m2, m4 and m6 were copied from its source before forkedAt; f2 is its own.
  'fork f2': [15000 - 14000 - 600, 180, 14000, 600],
  // 1767618000000_vslm1: v4's input (800) is below its cache (2500), so 0.
  'host v2': [3000 - 2000, 120, 2000, 0],
  'host v4': [0, 60, 2500, 0],
  // 1767621600000_bad01: x2's count is refused, the document is cut after x5; x4 counts.
  'bad x4': [4000 - 3500, 25, 3500, 0],
};

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

  it('cost report --agent cline counts each call once: the totals worked out by hand from the fixture', async () => {
    const report = (await cli(['cost', 'report', '--agent', 'cline', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, Record<string, number>> };
    const sum = (i: number) => Object.values(CALLS).reduce((a, c) => a + c[i]!, 0);
    expect(report.breakdowns.cline).toMatchObject({ inputTokens: sum(0), outputTokens: sum(1), cacheReadTokens: sum(2), cacheWriteTokens: sum(3), requestCount: Object.keys(CALLS).length });
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
