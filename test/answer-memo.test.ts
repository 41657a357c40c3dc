/**
 * The warm report's answers beside the cache (src/cache/answer-memo.ts): a query that found nothing changed
 * is answered next time without opening SQLite, and only while neither the session files nor the cache's
 * files moved (the `-wal`'s ctime alone, which each open as root moves, is no move). Also the start-up pieces of a warm report that no longer load modules: the xxh64 digests that
 * replaced sha256 (`hashText128`) and the price data's version found without `require.resolve`.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerMemoDir, cacheIdentity, findAnswer, MAX_MEMO_ANSWERS, RACY_MS, recordAnswer } from '../src/cache/answer-memo.js';
import { FoldSnapshots } from '../src/cache/folds.js';
import type { FoldRunInfo } from '../src/cost/incremental.js';
import { priceDataVersion } from '../src/cost/pricing.js';
import { totalCost } from '../src/cost/total.js';
import type { CostAggregationOptions, CostSummary } from '../src/cost/types.js';
import { hashesReady, hashText128 } from '../cursors/ids.js';
import { xxh64 } from '../cursors/xxhash-js.js';
import { claudeAssistant as assistant, claudeUser as user, SONNET } from './helpers/claude-lines.js';
import { tempDir } from './scan-helpers.js';

const SID = '00000000-0000-4000-8000-000000000001';

function turn(n: number, day: number): string {
  const ts = `2026-03-${String(day).padStart(2, '0')}T10:15:00.000Z`;
  return `${[user(SID, '/work/a', `prompt ${n}`, ts), assistant(SID, '/work/a', `m${n}`, 100 + n, ts, SONNET)].join('\n')}\n`;
}

let dir: string;
let session: string;
let cachePath: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  dir = await tempDir('sf-answer-memo-');
  const project = join(dir, 'claude', 'projects', '-work-a');
  mkdirSync(project, { recursive: true });
  session = join(project, `${SID}.jsonl`);
  writeFileSync(session, turn(1, 1) + turn(2, 2));
  cachePath = join(dir, 'cache', 'events.db');
  env = { HOME: dir, CLAUDE_CONFIG_DIR: join(dir, 'claude'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC' };
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

async function report(q: CostAggregationOptions = { groupBy: 'day' }): Promise<{ summary: CostSummary; fresh: CostSummary; info: FoldRunInfo; warnings: string[] }> {
  const base = { ...q, agents: ['claude'], env, cachePath };
  const info = {} as FoldRunInfo;
  const warnings: string[] = [];
  const summary = await totalCost(base, { workers: 0, onWarning: (m) => warnings.push(m) }, info);
  const fresh = await totalCost({ ...base, cache: false }, { workers: 0, onWarning: () => undefined });
  return { summary, fresh, info, warnings };
}

/** The answer files kept beside the cache. */
function answers(): string[] {
  const dir = answerMemoDir(cachePath);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => join(dir, f)) : [];
}

/** Moves the cache's mtimes back, as if it was last written a while ago (the racy rule: see the module). */
function settle(): void {
  const t = new Date(Date.now() - 10 * RACY_MS);
  for (const f of [cachePath, `${cachePath}-wal`]) if (existsSync(f)) utimesSync(f, t, t);
}

describe('answers kept beside the cache', () => {
  it('answer a query that found nothing changed without opening SQLite, the same answer as a fold', async () => {
    const first = await report();
    expect(first.summary).toEqual(first.fresh);
    expect(answers()).toEqual([]); // it folded: nothing to keep

    // Nothing changed, but the cache was just written: answered through SQLite, nothing kept (racy).
    const second = await report();
    expect(second.info).toMatchObject({ snapshot: 'hit', scanned: false });
    expect(answers()).toEqual([]);

    settle();
    const third = await report();
    expect(third.info).toMatchObject({ snapshot: 'hit', scanned: false });
    expect(answers()).toHaveLength(1);
    const file = answers()[0] as string;
    const memo = readFileSync(file, 'utf8');
    // an mtime no write keeps: a run that wrote the same bytes again would still move it (or the inode)
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    const kept = statSync(file);

    const open = vi.spyOn(FoldSnapshots, 'open');
    const fourth = await report();
    expect(open).not.toHaveBeenCalled();
    expect(fourth.info).toMatchObject({ snapshot: 'hit', scanned: false });
    expect(fourth.summary).toEqual(fourth.fresh);
    // a run that found it writes nothing
    expect(answers()).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe(memo);
    expect([statSync(file).ino, statSync(file).mtimeMs]).toEqual([kept.ino, kept.mtimeMs]);
  });

  it('is not the answer once a session file or the cache changed, or when it does not check out', async () => {
    const { summary: first } = await report();
    await report();
    settle();
    await report();
    expect(answers()).toHaveLength(1);
    const open = vi.spyOn(FoldSnapshots, 'open');

    // A session grew: the digest of the files differs.
    appendFileSync(session, turn(3, 3));
    const grown = await report();
    expect(open).toHaveBeenCalledTimes(1);
    expect(grown.summary).toEqual(grown.fresh);
    expect(grown.summary.outputTokens).toBeGreaterThan(first.outputTokens);

    // Settled and kept again; then another query writes its own snapshot into the cache: the cache's
    // identity moved, so the day query goes through SQLite again (and still answers right).
    await report();
    settle();
    await report();
    open.mockClear();
    await report();
    expect(open).not.toHaveBeenCalled();
    await report({ groupBy: 'model' });
    open.mockClear();
    const after = await report();
    expect(open).toHaveBeenCalledTimes(1);
    expect(after.summary).toEqual(after.fresh);

    // An edited answer fails its seal and is not used.
    settle();
    await report();
    expect(answers()).toHaveLength(1); // the day query's (the model query ran once: it folded)
    const day = answers()[0] as string;
    const entry = JSON.parse(readFileSync(day, 'utf8')) as { summary: string };
    const sealed = entry.summary;
    entry.summary = entry.summary.replace(/"outputTokens":\d+/, '"outputTokens":1');
    expect(entry.summary).not.toBe(sealed);
    writeFileSync(day, JSON.stringify(entry));
    open.mockClear();
    const edited = await report();
    expect(open).toHaveBeenCalledTimes(1);
    expect(edited.summary).toEqual(edited.fresh);
    // ...and that run wrote it again, sealed: the next run answers without SQLite.
    expect((JSON.parse(readFileSync(day, 'utf8')) as { summary: string }).summary).toBe(sealed);
    open.mockClear();
    const repaired = await report();
    expect(open).toHaveBeenCalledTimes(0);
    expect(repaired.summary).toEqual(repaired.fresh);
  });

  it('says the skipped-lines warning a run through SQLite says', async () => {
    // A response with a negative count: refused, counted as a skipped line and warned about.
    const bad = JSON.parse(assistant(SID, '/work/a', 'bad', 5, '2026-03-02T11:00:00.000Z')) as { message: { usage: Record<string, unknown> } };
    bad.message.usage.input_tokens = -5;
    appendFileSync(session, `${JSON.stringify(bad)}\n`);
    await report();
    await report();
    settle();
    const viaSqlite = await report();
    expect(viaSqlite.warnings.some((w) => /skipped 1 line/.test(w))).toBe(true);
    const open = vi.spyOn(FoldSnapshots, 'open');
    const viaMemo = await report();
    expect(open).not.toHaveBeenCalled();
    expect(viaMemo.warnings).toEqual(viaSqlite.warnings);
  });

  it('answers while another connection holds the cache open, whatever its -wal’s ctime', async () => {
    await report();
    await report();
    const holder = new Database(cachePath); // a `serve`, say: the -wal and -shm stay while it is open
    try {
      holder.prepare('SELECT count(*) FROM sqlite_master').get();
      const wal = `${cachePath}-wal`;
      expect(existsSync(wal)).toBe(true);
      settle();
      // as root this run's own open re-owns the -wal (its ctime moves): still the cache it began with
      await report();
      expect(answers()).toHaveLength(1);
      // for any user, the same mode again moves the ctime alone
      chmodSync(wal, statSync(wal).mode & 0o7777);
      const open = vi.spyOn(FoldSnapshots, 'open');
      const memo = await report();
      expect(open).not.toHaveBeenCalled();
      expect(memo.summary).toEqual(memo.fresh);
      // a write to the -wal is a change
      holder.exec('CREATE TABLE IF NOT EXISTS sf_test_touch (x)');
      settle();
      open.mockClear();
      await report();
      expect(open).toHaveBeenCalledTimes(1);
    } finally {
      holder.close();
    }
  });

  it('records nothing for a cache written during the run or within RACY_MS of its start', async () => {
    await report();
    await hashesReady();
    const before = cacheIdentity(cachePath);
    expect(before).toBeDefined();
    const answer = { key: 'ab12', stats: 's', summary: '{"totalUsd":1}', notes: { warnings: [], failed: [] } };
    // Written just now: racy.
    expect(recordAnswer(cachePath, before!, Date.now(), answer)).toBe(false);
    settle();
    const settled = cacheIdentity(cachePath)!;
    // Written after the run began (the identity moved): not recorded.
    const t = new Date(Date.now() - 5 * RACY_MS);
    utimesSync(cachePath, t, t);
    expect(recordAnswer(cachePath, settled, Date.now(), answer)).toBe(false);
    const now = cacheIdentity(cachePath)!;
    expect(recordAnswer(cachePath, now, Date.now(), answer)).toBe(true);
    expect(findAnswer(cachePath, 'ab12', now, 's')).toEqual({ summary: '{"totalUsd":1}', notes: { warnings: [], failed: [] } });
    expect(findAnswer(cachePath, 'ab12', now, 'other stats')).toBeUndefined();
    expect(findAnswer(cachePath, 'cd34', now, 's')).toBeUndefined();
    expect(findAnswer(cachePath, 'ab12', { ...now, id: `${now.id}x` }, 's')).toBeUndefined();
    // One file per query, the most recently recorded MAX_MEMO_ANSWERS kept.
    for (let i = 0; i < MAX_MEMO_ANSWERS + 3; i++) {
      expect(recordAnswer(cachePath, now, Date.now(), { ...answer, key: `f${i}` })).toBe(true);
      const t = new Date(Date.now() - 1000 * (MAX_MEMO_ANSWERS + 3 - i));
      utimesSync(join(answerMemoDir(cachePath), `f${i}.json`), t, t);
    }
    expect(answers()).toHaveLength(MAX_MEMO_ANSWERS);
    expect(findAnswer(cachePath, `f${MAX_MEMO_ANSWERS + 2}`, now, 's')).toBeDefined();
    expect(findAnswer(cachePath, 'f0', now, 's')).toBeUndefined();
  });
});

describe('a warm report loads neither node:crypto nor the price data resolver', () => {
  it('hashText128 is two xxh64 digests (of the text, and of 0x01 and the text), the same with or without WebAssembly', async () => {
    const text = 'claude\0/a/b.jsonl\u00003\u00004.5\0[]\n'.repeat(50);
    const js = xxh64(Buffer.from(text, 'utf8')).toString(16).padStart(16, '0') + xxh64(Buffer.from(`\u0001${text}`, 'utf8')).toString(16).padStart(16, '0');
    await hashesReady();
    expect(hashText128(text)).toBe(js);
    expect(hashText128(text)).toHaveLength(32);
    expect(hashText128(`${text}x`)).not.toBe(js);
  });

  it('priceDataVersion is the version of the genai-prices Node would load', () => {
    const require = createRequire(import.meta.url);
    const pkg = JSON.parse(readFileSync(join(dirname(require.resolve('@pydantic/genai-prices')), '..', 'package.json'), 'utf8')) as { version: string };
    expect(priceDataVersion()).toBe(pkg.version);
  });
});
