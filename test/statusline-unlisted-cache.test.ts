/**
 * The cache rows of transcripts the status line reads outside the agent's roots (`KeepFiles.unlisted`) and
 * `cost report`'s retained spend: a report counts as retained only usage it counted once, from a file its
 * roots list. Each case reads files through the library with one event cache, deletes a transcript, and
 * checks the cached report against plain sums of the generated responses.
 */
import { appendFile, cp, mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventCache } from '../src/cache/store.js';
import { costReport } from '../src/cost/report.js';
import { statusLine } from '../src/cost/statusline.js';
import { newScanStats } from '../src/scan/index.js';
import { claudeLine, sumOf, writeClaudeSession, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const NOW = '2026-03-10T12:00:00.000Z';
const TODAY = Date.parse('2026-03-10T00:00:00Z');
const MIN = 60_000;

const FRESH_SID = 'cccccccc-3333-4333-8333-000000000001';
const OTHER_SID = 'cccccccc-3333-4333-8333-000000000002';
const FRESH: Req[] = [{ id: 'uc-fr0', ms: TODAY + 10 * 60 * MIN, inp: 20, out: 40, cr: 2_000, cw: 100, usd: 0.75 }];
const OTHER: Req[] = [
  { id: 'uc-ot0', ms: TODAY + 9 * 60 * MIN, inp: 30, out: 10, cr: 500, cw: 40, usd: 2 },
  { id: 'uc-ot1', ms: TODAY + 9 * 60 * MIN + 30 * MIN, inp: 31, out: 11, cr: 600, cw: 0, usd: 4 },
];
const MORE: Req = { id: 'uc-ot2', ms: TODAY + 11 * 60 * MIN, inp: 5, out: 6, cr: 7, cw: 8, usd: 16 };

let home: Home;
let cachePath: string;
beforeEach(async () => {
  home = await makeHome();
  cachePath = join(home.dir, 'cache.db');
  await writeClaudeSession(home.claude, FRESH_SID, FRESH);
});
afterEach(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const usd = (rs: readonly Req[]): number => sumOf(rs, (r) => r.usd);

/** The status line of the session in `file`, with the test's cache; its session figures are `reqs`'. */
async function readUnlisted(file: string, reqs: readonly Req[], env = home.env): Promise<void> {
  const d = await statusLine({ agent: 'claude', file, env, cache: true, cachePath, now: new Date(NOW), timeZone: 'UTC' });
  expect(d.session?.requests, file).toBe(reqs.length);
  expect(d.session?.costUsd, file).toBeCloseTo(usd(reqs), 9);
}

/** The cached report over `env`'s Claude roots: its total and retained spend. */
async function report(env = home.env): Promise<{ total: number; requests: number; retained: number }> {
  const { summary } = await costReport({ agents: ['claude'], env, cache: true, cachePath });
  return { total: summary.totalUsd, requests: summary.requestCount, retained: summary.retained?.totalUsd ?? 0 };
}

/** The paths of the Claude rows the event cache holds. */
function cachedPaths(): string[] {
  const cache = EventCache.open(cachePath, () => undefined);
  try {
    return [...cache.loadFiles(['claude']).values()].map((r) => r.path).sort();
  } finally {
    cache.close();
  }
}

describe.skipIf(!HAS_CLAUDE)('the cache rows of transcripts read outside the roots', () => {
  it('a copy lying directly in the projects folder: once deleted, its usage is no retained spend', async () => {
    // Claude's discovery lists project folders only: a file directly in projects/ is no session of the roots.
    const copy = join(home.claude, 'projects', 'copy.jsonl');
    await writeFile(copy, OTHER.map((r) => claudeLine(OTHER_SID, r)).join('\n') + '\n');
    expect(await report()).toEqual({ total: usd(FRESH), requests: 1, retained: 0 });
    // No report between the read and the deletion: a report answered from its memo would not scan again.
    await readUnlisted(copy, OTHER);
    await rm(copy);
    expect(await report()).toEqual({ total: usd(FRESH), requests: 1, retained: 0 });
  });

  it('a file read unlisted, then listed under a real root: deleted, a cached report keeps its spend', async () => {
    // The same transcript, named by the status line of a process without CLAUDE_CONFIG_DIR (unlisted there),
    // then by a report with it.
    const config = join(home.dir, 'config');
    await writeClaudeSession(config, OTHER_SID, OTHER);
    const file = join(config, 'projects', '-w', `${OTHER_SID}.jsonl`);
    const withConfig = { ...home.env, CLAUDE_CONFIG_DIR: `${home.claude},${config}` };
    await readUnlisted(file, OTHER);
    const all = { total: usd([...FRESH, ...OTHER]), requests: 3 };
    expect(await report(withConfig)).toEqual({ ...all, retained: 0 });
    await rm(file);
    const after = await report(withConfig);
    expect(after).toEqual({ ...all, retained: after.retained });
    expect(after.retained).toBeCloseTo(usd(OTHER), 9);
  });

  it('a file listed, then grown and read unlisted: deleted, a cached report keeps all its spend', async () => {
    const config = join(home.dir, 'config');
    await writeClaudeSession(config, OTHER_SID, OTHER);
    const file = join(config, 'projects', '-w', `${OTHER_SID}.jsonl`);
    const withConfig = { ...home.env, CLAUDE_CONFIG_DIR: `${home.claude},${config}` };
    expect(await report(withConfig)).toEqual({ total: usd([...FRESH, ...OTHER]), requests: 3, retained: 0 });
    await appendFile(file, claudeLine(OTHER_SID, MORE) + '\n');
    await readUnlisted(file, [...OTHER, MORE]);
    await rm(file);
    const after = await report(withConfig);
    expect(after).toEqual({ total: usd([...FRESH, ...OTHER, MORE]), requests: 4, retained: after.retained });
    expect(after.retained).toBeCloseTo(usd([...OTHER, MORE]), 9);
  });
  it('the row of a deleted unlisted file goes at the next unlisted read', async () => {
    const outside = join(home.dir, 'outside');
    await mkdir(outside, { recursive: true });
    const copy = join(outside, `${OTHER_SID}.jsonl`);
    const fresh = join(home.claude, 'projects', '-w', `${FRESH_SID}.jsonl`);
    await cp(fresh, join(outside, 'fresh.jsonl'));
    await writeFile(copy, OTHER.map((r) => claudeLine(OTHER_SID, r)).join('\n') + '\n');
    await readUnlisted(copy, OTHER);
    expect(cachedPaths()).toEqual([fresh, copy].sort());
    await rm(copy);
    // A report over the roots leaves it (its root is none of theirs) ...
    await report();
    expect(cachedPaths()).toEqual([fresh, copy].sort());
    // ... the next read of a file outside them sweeps it.
    await readUnlisted(join(outside, 'fresh.jsonl'), FRESH);
    expect(cachedPaths()).toEqual([fresh, join(outside, 'fresh.jsonl')].sort());
    expect(await report()).toEqual({ total: usd(FRESH), requests: 1, retained: 0 });
  });
  it('a kept path spelled otherwise (a linked folder, //, ..) is the listed file: read once, one row', async () => {
    const name = `${FRESH_SID}.jsonl`;
    const fresh = join(home.claude, 'projects', '-w', name);
    await symlink(home.claude, join(home.dir, 'link'));
    const spellings = [`${home.dir}/link/projects/-w/${name}`, `${home.claude}/projects//-w/${name}`, `${home.claude}/projects/-w/../-w/${name}`];
    // Recent, then older than the status line's look-back (kept all the same, for the session alone).
    for (const old of [false, true]) {
      if (old) await utimes(fresh, new Date(TODAY - 30 * 24 * 60 * MIN), new Date(TODAY - 30 * 24 * 60 * MIN));
      for (const file of spellings) {
        for (const cache of [false, true]) {
          const label = `${file} old=${old} cache=${cache}`;
          const stats = newScanStats();
          const d = await statusLine({ agent: 'claude', file, env: home.env, cache, cachePath, now: new Date(NOW), timeZone: 'UTC' }, { stats });
          expect(stats.files, label).toBe(1);
          expect(d.sessionId, label).toBe(FRESH_SID);
          expect(d.session?.requests, label).toBe(1);
          expect(d.session?.costUsd, label).toBeCloseTo(usd(FRESH), 9);
          expect(d.today.requests, label).toBe(old ? 0 : 1);
        }
      }
    }
    expect(cachedPaths()).toEqual([fresh]);
  });
});
