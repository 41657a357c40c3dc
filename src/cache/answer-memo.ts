/**
 * The answers of reports that found nothing changed, kept beside the event cache (`<cache>.answers/`, one
 * file per query, so a run reads its own answer only, however large the others' summaries are), so
 * the next run of the same query, when still nothing changed, answers without opening SQLite: loading
 * better-sqlite3 and opening the cache is about a fifth of such a run's CPU (profiles of a warm `cost report`
 * on a small history, bench/RESULTS.md "Size curve").
 *
 * An entry is what a fold snapshot answered (src/cost/incremental.ts: its summary, sealed as the snapshot's,
 * and what the rows warned about: the failed reads and the skipped lines), under the snapshot key of the query, the digest of the files
 * it saw and their stats, and the identity of the cache's files at the time: device, inode, size, mtime and
 * ctime in nanoseconds of the database, and of its `-wal` (or that there was none) the same but its header's
 * salts for its ctime (cursors/listing-memo.ts `walStamp`: each open of a `-wal` as root moves its ctime and
 * nothing else, so with it a run's own open, while another connection holds the cache and its `-wal`
 * open, would void the identity the run began with, and no answer would be kept). Equal identity, no byte of
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
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashId64 } from '../../cursors/ids.js';
import { fileStamp, RACY_MS, settledBefore, walStamp } from '../../cursors/listing-memo.js';

/** Answers kept (each is one query's summary), the most recently recorded. */
export const MAX_MEMO_ANSWERS = 8;
/** How old every mtime of the cache must be for its identity to be recorded (see the header). */
export { RACY_MS };
/**
 * 2: `notes` (the failed reads and every warning) for `warning` (the skipped lines' only). 3: `notes.retryAt`
 * (an answer over an I/O failure stands until the failure is to be tried again).
 */
const VERSION = 3;

/** The folder where the answers of the cache at `cachePath` are kept. */
export function answerMemoDir(cachePath: string): string {
  return `${cachePath}.answers`;
}

/** The file of one query's answer (`key`: a snapshot key, hex digits). */
function answerFile(cachePath: string, key: string): string {
  return join(answerMemoDir(cachePath), `${key}.json`);
}

/** The identity of the cache's files (see the header), and the newest mtime among them in ms. */
export interface CacheIdentity {
  id: string;
  newestMtimeMs: number;
}

/** The identity of the cache at `cachePath`; undefined when there is no database there or it cannot be stat'ed. */
export function cacheIdentity(cachePath: string): CacheIdentity | undefined {
  try {
    const db = fileStamp(cachePath);
    if (db.id === '-') return undefined;
    const wal = walStamp(`${cachePath}-wal`);
    return { id: `${db.id}|${wal.id}`, newestMtimeMs: Math.max(db.mtimeMs, wal.mtimeMs) };
  } catch {
    return undefined;
  }
}

/** What an answer given without a scan warned about, as the scan would have (src/cost/incremental.ts). */
export interface AnswerNotes {
  /** The warnings, in order: the failed reads', then the skipped lines'. */
  warnings: string[];
  /** The agent and root of each file whose read failed (the source report counts them unreadable). */
  failed: [agent: string, root: string][];
  /** When one of the failures is to be tried again (epoch ms, src/cache/rows.ts `IO_RETRY_MS`): no answer from then. */
  retryAt?: number;
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
  /** What the run warned about. */
  notes: AnswerNotes;
}

interface Stored extends MemoAnswer {
  v: number;
}

function readStored(cachePath: string, key: string): MemoAnswer | undefined {
  if (!/^[0-9a-f]+$/.test(key)) return undefined;
  try {
    const s = JSON.parse(readFileSync(answerFile(cachePath, key), 'utf8')) as Stored;
    return s.v === VERSION && s.key === key ? s : undefined;
  } catch {
    return undefined; // none yet, or unreadable: the run goes through SQLite
  }
}

/**
 * The stored answer of `key` when the cache is still as it was recorded (`identity`) and the files' digest is
 * `stats`: its summary (JSON) and notes. Undefined otherwise, or when its seal does not hold (damaged or edited).
 */
export function findAnswer(cachePath: string, key: string, identity: CacheIdentity, stats: string): { summary: string; notes: AnswerNotes } | undefined {
  const a = readStored(cachePath, key);
  if (a === undefined || a.cache !== identity.id || a.stats !== stats || typeof a.summary !== 'string' || !isNotes(a.notes)) return undefined;
  if (a.notes.retryAt !== undefined && Date.now() >= a.notes.retryAt) return undefined; // the scan reads the file again
  const json = openSummary(a.summary);
  if (json === undefined || json === 'legacy') return undefined;
  return { summary: json, notes: a.notes };
}

function isNotes(n: unknown): n is AnswerNotes {
  const o = n as AnswerNotes | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    Array.isArray(o.warnings) &&
    o.warnings.every((w) => typeof w === 'string') &&
    (o.retryAt === undefined || typeof o.retryAt === 'number') &&
    Array.isArray(o.failed) &&
    o.failed.every((f) => Array.isArray(f) && f.length === 2 && typeof f[0] === 'string' && typeof f[1] === 'string')
  );
}

/**
 * Record `answer` for the cache as it is now, when `before` (its identity when the run began, taken at
 * `startedMs`) still stands (the run, and nobody else, wrote to it) and is old enough (see the header).
 * Beyond MAX_MEMO_ANSWERS files, the least recently recorded go. A cache folder that cannot be written
 * keeps no answers. Returns whether it wrote.
 */
export function recordAnswer(cachePath: string, before: CacheIdentity, startedMs: number, answer: Omit<MemoAnswer, 'cache' | 'summary'> & { summary: string }): boolean {
  if (!settledBefore(before.newestMtimeMs, startedMs)) return false;
  const now = cacheIdentity(cachePath);
  if (now === undefined || now.id !== before.id) return false;
  if (!/^[0-9a-f]+$/.test(answer.key)) return false;
  const dir = answerMemoDir(cachePath);
  const file = answerFile(cachePath, answer.key);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, JSON.stringify({ v: VERSION, ...answer, cache: now.id, summary: sealSummary(answer.summary) } satisfies Stored));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
  prune(dir);
  return true;
}

/** Keep the MAX_MEMO_ANSWERS most recently recorded answers (by mtime); a file another process removed is skipped. */
function prune(dir: string): void {
  try {
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    if (files.length <= MAX_MEMO_ANSWERS) return;
    const aged = files.map((f) => ({ f, t: statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => b.t - a.t);
    for (const { f } of aged.slice(MAX_MEMO_ANSWERS)) {
      try {
        unlinkSync(join(dir, f));
      } catch {
        // gone already
      }
    }
  } catch {
    // an unreadable folder: answers stay until the next record
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
