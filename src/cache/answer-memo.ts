/**
 * The answers of reports that found nothing changed, kept beside the event cache (`<cache>.answers.json`), so
 * the next run of the same query, when still nothing changed, answers without opening SQLite: loading
 * better-sqlite3 and opening the cache is about a fifth of such a run's CPU (profiles of a warm `cost report`
 * on a small history, bench/RESULTS.md "Size curve").
 *
 * An entry is what a fold snapshot answered (src/cost/incremental.ts: its summary, sealed as the snapshot's,
 * and the skipped-lines warning the rows gave), under the snapshot key of the query, the digest of the files
 * it saw and their stats, and the identity of the cache's files at the time: device, inode, size, mtime and
 * ctime in nanoseconds of the database and of its `-wal` (or that there was none). Equal identity, no byte of
 * the cache was written since, so the snapshot would answer the same (its change count and rows are as they
 * were); equal stats digest, no session file changed. Any write by any process (a sessionfold of any version,
 * SQLite's checkpoint) changes the mtime of the file it writes, the one thing taken on trust, as the event
 * cache itself takes a session file's size and mtime.
 *
 * Timestamps have a granularity (the kernel's clock tick; seconds on some file systems): a write within the
 * same tick as the last one could leave the mtime as it was. So an identity is only recorded when every
 * mtime in it is older than RACY_MS before the run began (git's "racily clean" rule): a later write then
 * has a later mtime. A cache written in the last two seconds is answered through SQLite, as before.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hashId64 } from '../../cursors/ids.js';

/** Entries kept (each is one query's summary). */
export const MAX_MEMO_ANSWERS = 8;
/** How old every mtime of the cache must be for its identity to be recorded (see the header). */
export const RACY_MS = 2_000;
const VERSION = 1;

/** Where the answers of the cache at `cachePath` are kept. */
export function answerMemoPath(cachePath: string): string {
  return `${cachePath}.answers.json`;
}

/** The identity of the cache's files (see the header), and the newest mtime among them in ms. */
export interface CacheIdentity {
  id: string;
  newestMtimeMs: number;
}

function fileIdentity(path: string): { id: string; mtimeMs: number } {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (s === undefined) return { id: '-', mtimeMs: -Infinity };
  return { id: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, mtimeMs: Number(s.mtimeNs / 1_000_000n) };
}

/** The identity of the cache at `cachePath`; undefined when there is no database there or it cannot be stat'ed. */
export function cacheIdentity(cachePath: string): CacheIdentity | undefined {
  try {
    const db = fileIdentity(cachePath);
    if (db.id === '-') return undefined;
    const wal = fileIdentity(`${cachePath}-wal`);
    return { id: `${db.id}|${wal.id}`, newestMtimeMs: Math.max(db.mtimeMs, wal.mtimeMs) };
  } catch {
    return undefined;
  }
}

/** One stored answer. */
export interface MemoAnswer {
  key: string;
  /** `CacheIdentity.id` when it was recorded. */
  cache: string;
  /** The discovery's stats digest (src/scan/index.ts `discoveryStats`). */
  stats: string;
  /** The summary, sealed (`sealSummary`). */
  summary: string;
  /** The skipped-lines warning the run gave, if any. */
  warning: string | null;
}

interface Stored {
  v: number;
  answers: MemoAnswer[];
}

function readStored(file: string): MemoAnswer[] {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as Stored;
    return s.v === VERSION && Array.isArray(s.answers) ? s.answers : [];
  } catch {
    return []; // none yet, or unreadable: the run goes through SQLite
  }
}

/**
 * The stored answer of `key` when the cache is still as it was recorded (`identity`) and the files' digest is
 * `stats`: its summary (JSON) and warning. Undefined otherwise, or when its seal does not hold (damaged or edited).
 */
export function findAnswer(cachePath: string, key: string, identity: CacheIdentity, stats: string): { summary: string; warning: string | undefined } | undefined {
  const a = readStored(answerMemoPath(cachePath)).find((e) => e.key === key);
  if (a === undefined || a.cache !== identity.id || a.stats !== stats || typeof a.summary !== 'string') return undefined;
  const json = openSummary(a.summary);
  if (json === undefined || json === 'legacy') return undefined;
  return { summary: json, warning: typeof a.warning === 'string' ? a.warning : undefined };
}

/** Whether an answer for `key` at `identity` and `stats` is stored already (a run that found it writes nothing). */
export function hasAnswer(cachePath: string, key: string, identity: CacheIdentity, stats: string): boolean {
  return readStored(answerMemoPath(cachePath)).some((e) => e.key === key && e.cache === identity.id && e.stats === stats);
}

/**
 * Record `answer` for the cache as it is now, when `before` (its identity when the run began, taken at
 * `startedMs`) still stands (the run, and nobody else, wrote to it) and is old enough (see the header).
 * Answers recorded under another identity are dropped: the cache changed since, they can never be found.
 * A cache folder that cannot be written keeps no answers. Returns whether it wrote.
 */
export function recordAnswer(cachePath: string, before: CacheIdentity, startedMs: number, answer: Omit<MemoAnswer, 'cache' | 'summary'> & { summary: string }): boolean {
  if (before.newestMtimeMs > startedMs - RACY_MS) return false;
  const now = cacheIdentity(cachePath);
  if (now === undefined || now.id !== before.id) return false;
  const file = answerMemoPath(cachePath);
  const kept = readStored(file).filter((e) => e.cache === now.id && e.key !== answer.key);
  const answers: MemoAnswer[] = [{ ...answer, cache: now.id, summary: sealSummary(answer.summary) }, ...kept].slice(0, MAX_MEMO_ANSWERS);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ v: VERSION, answers } satisfies Stored));
    renameSync(tmp, file);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}

/** A stored summary: `sf1:<xxh64 of the JSON>\n<JSON>`, so a damaged or edited one is never the answer. */
const SUMMARY_TAG = 'sf1:';

export function sealSummary(json: string): string {
  return `${SUMMARY_TAG}${hashId64(json)}\n${json}`;
}

/** The JSON of a sealed summary; 'legacy' for one stored before seals; undefined when its check fails. */
export function openSummary(stored: string): string | 'legacy' | undefined {
  if (!stored.startsWith(SUMMARY_TAG)) return 'legacy';
  const nl = stored.indexOf('\n');
  if (nl < 0) return undefined;
  const json = stored.slice(nl + 1);
  return stored.slice(SUMMARY_TAG.length, nl) === hashId64(json) ? json : undefined;
}
