/**
 * Spend still live in another file is not retained spend. A session folder moved elsewhere under the roots,
 * and a Codex rollout compressed to `.jsonl.zst` (its plain file gone), leave the event cache's ledger holding
 * the old file's records as retained; the same responses, byte-equal in tokens, are live in the new file. A
 * warm cached report keeps the live copy, as a `--no-cache` run does: no "Retained" line, the same totals and
 * runs. The old names sort first, so the file-path tie-break alone would keep the gone copy.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { CostSummary } from '../src/cost/types.js';
import { expectReqSums, writeClaudeSession, type Req } from './claude-lines.js';
import { REAL_DIR } from './codex-helpers.js';
import { HAS_CLAUDE, HAS_CODEX, makeHome, type Home } from './sessions-helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const run = promisify(execFile);

const homes: Home[] = [];
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

async function report(h: Home, agent: string, args: string[]): Promise<{ json: CostSummary; table: string }> {
  const base = [CLI, 'cost', 'report', '--agent', agent, '--tz', 'UTC', ...args];
  const json = await run(process.execPath, [...base, '--json'], { env: h.env });
  expect(json.stderr).toBe('');
  const table = await run(process.execPath, base, { env: h.env });
  return { json: JSON.parse(json.stdout) as CostSummary, table: table.stdout };
}

/** The figures a report gives, without where its sources are. */
function figures(s: CostSummary): Omit<CostSummary, 'sources'> {
  const { sources: _, ...rest } = s as CostSummary & { sources?: unknown };
  return rest;
}

/** A warm cached report after `move` gives what a `--no-cache` run gives, with nothing retained. */
async function expectLiveAfter(h: Home, agent: string, move: () => Promise<void>): Promise<CostSummary> {
  const before = await report(h, agent, []);
  expect(before.json.retained).toBeUndefined();
  await move();
  const fresh = await report(h, agent, ['--no-cache']);
  for (let i = 0; i < 2; i++) {
    const warm = await report(h, agent, []);
    expect(warm.json.retained).toBeUndefined();
    expect(warm.table).not.toMatch(/Retained/);
    expect(figures(warm.json)).toEqual(figures(fresh.json));
    expect([warm.json.totalUsd, warm.json.requestCount, warm.json.runCount]).toEqual([before.json.totalUsd, before.json.requestCount, before.json.runCount]);
  }
  return fresh.json;
}

const SID = '66666666-6666-4666-8666-666666666666';
const REQS: Req[] = [
  { id: 'm1', ms: Date.UTC(2026, 0, 5, 9), inp: 10, out: 100, cr: 1000, cw: 5, usd: 0.5 },
  { id: 'm2', ms: Date.UTC(2026, 0, 6, 10), inp: 20, out: 200, cr: 2000, cw: 7, usd: 0.25 },
];

describe.skipIf(!HAS_CLAUDE)('a Claude session folder moved (warm cache)', () => {
  for (const group of ['none', 'session']) {
    it(`counts the moved transcript as live, grouped by ${group}`, async () => {
      const h = await makeHome();
      homes.push(h);
      // `-a-old` sorts before `-b-new`: the gone copy is the one the path would keep.
      await writeClaudeSession(h.claude, SID, REQS);
      const projects = join(h.claude, 'projects');
      await rename(join(projects, '-w'), join(projects, '-a-old'));
      const fresh = await expectLiveAfter(h, 'claude', () => rename(join(projects, '-a-old'), join(projects, '-b-new')).then(() => undefined));
      expectReqSums(fresh, REQS);
      expect(fresh.runCount).toBe(1);
    });
  }
});

const ID = '019fc8be-3658-7ca3-9e29-000000000000';
const PLAIN_NAME = `rollout-2026-08-03T10-48-56-${ID}.jsonl`;
const ZST_FIXTURE = join(ROOT, 'fixtures', 'codex-zst', `${PLAIN_NAME}.zst`);

describe.skipIf(!HAS_CODEX)('a Codex rollout compressed to .jsonl.zst (warm cache)', () => {
  it('counts the compressed rollout as live', async () => {
    const h = await makeHome();
    homes.push(h);
    const dir = join(h.codex, 'archived_sessions');
    await mkdir(dir, { recursive: true });
    await copyFile(join(REAL_DIR, 'agent-sessions-v0.146-sanitized.jsonl'), join(dir, PLAIN_NAME));
    const fresh = await expectLiveAfter(h, 'codex', async () => {
      // What Codex's compression worker leaves: the compressed file, the plain one gone.
      await copyFile(ZST_FIXTURE, join(dir, `${PLAIN_NAME}.zst`));
      await rm(join(dir, PLAIN_NAME));
    });
    expect(fresh.requestCount).toBeGreaterThan(0);
    expect(fresh.runCount).toBe(1);
  });
});
