/**
 * The store's lock: one file, `<root>/.lock`, created with O_EXCL (`open(…, 'wx')`), so of two processes
 * exactly one creates it; the other waits and tries again. It holds `{pid, host, nonce, intent}`: who holds
 * it, and what family operation it is doing (`intent`), so a process that finds the holder dead can finish
 * the operation before it takes the lock over (the store's `recover`).
 *
 * A lock is stale when its holder ran on this host and no longer runs (`kill(pid, 0)` fails with ESRCH), or
 * when it has stayed empty or unreadable for `STALE_EMPTY_MS` (its holder died between creating and
 * writing it). Two waiters may find the same stale lock; breaking it is serialized by a second O_EXCL file,
 * `<root>/.lock.break`: only its creator re-reads `.lock`, checks it is still the stale one (same nonce),
 * recovers its intent and unlinks it. A `.lock.break` older than `STALE_BREAK_MS` belonged to a breaker
 * that died (breaking takes microseconds) and is removed. A holder on another host cannot be checked: the
 * wait ends with IO_ERROR naming the lock file.
 *
 * A mutation takes the lock, runs synchronously and releases it, so within one process two mutations never
 * interleave, and the lock is never held across an await.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { ioError } from './fs.js';

/** What a lock holder is doing, for recovery after it dies. */
export type LockIntent =
  | { op: 'write'; name: string }
  | { op: 'archive'; name: string }
  | { op: 'delete'; name: string }
  | { op: 'other' };

interface LockRecord {
  pid: number;
  host: string;
  nonce: string;
  intent: LockIntent;
}

export const LOCK_FILE = '.lock';
const BREAK_FILE = '.lock.break';
const STALE_EMPTY_MS = 5_000;
const STALE_BREAK_MS = 10_000;
const STALE_SAME_PID_MS = 60_000;
/** Nonces of the locks this thread holds. */
const held = new Set<string>();
export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export interface LockOptions {
  /** Give up waiting after this long (IO_ERROR). Default 30 s. */
  timeoutMs?: number;
  /** Called with the intent of a dead holder before its lock is removed (the store finishes its operation). */
  recover?: (intent: LockIntent, holderPid: number) => void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

function readLock(path: string): { record: LockRecord | undefined; text: string; ageMs: number } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const ageMs = Date.now() - statSync(path).mtimeMs;
    let record: LockRecord | undefined;
    try {
      const o = JSON.parse(text) as Partial<LockRecord>;
      if (typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.nonce === 'string' && o.intent !== undefined) record = o as LockRecord;
    } catch {
      // being written, or left empty by a holder that died before writing it
    }
    return { record, text, ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('Cannot read the store lock', path, e);
  }
}

function isStale(l: { record: LockRecord | undefined; ageMs: number }): boolean {
  if (l.record === undefined) return l.ageMs > STALE_EMPTY_MS;
  if (l.record.host !== hostname()) return false;
  // our own pid on a lock this thread does not hold: a dead process's pid reused (containers reuse small
  // pids), or another thread of ours, which holds a lock for milliseconds only
  if (l.record.pid === process.pid) return !held.has(l.record.nonce) && l.ageMs > STALE_SAME_PID_MS;
  return !isAlive(l.record.pid);
}

function tryCreate(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw ioError('Cannot create the store lock', path, e);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/**
 * Break the stale lock whose text was `seen`, when this process wins `.lock.break` (see the file header).
 * True when the lock is gone or changed (try again now), false when another breaker is at it (wait).
 */
function breakStale(root: string, seen: string, recover: LockOptions['recover']): boolean {
  const lockPath = join(root, LOCK_FILE);
  const breakPath = join(root, BREAK_FILE);
  if (!tryCreate(breakPath, String(process.pid))) {
    try {
      if (Date.now() - statSync(breakPath).mtimeMs > STALE_BREAK_MS) unlinkQuiet(breakPath);
    } catch {
      // the other breaker finished
    }
    return false;
  }
  try {
    const now = readLock(lockPath);
    if (now === undefined || now.text !== seen) return true; // someone else broke it first
    if (now.record !== undefined) recover?.(now.record.intent, now.record.pid);
    unlinkQuiet(lockPath);
    return true;
  } finally {
    unlinkQuiet(breakPath);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for `ms` (a mutation is synchronous; so is its wait). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Run `fn` holding the store's lock at `root` (which must exist). Waits for another holder, breaks a stale
 * lock (recovering its intent first), and gives up with IO_ERROR after `timeoutMs`.
 */
export function withLock<T>(root: string, intent: LockIntent, fn: () => T, options: LockOptions = {}): T {
  const lockPath = join(root, LOCK_FILE);
  const record: LockRecord = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString('hex'), intent };
  const text = JSON.stringify(record);
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  let wait = 2;
  for (;;) {
    if (tryCreate(lockPath, text)) break;
    const other = readLock(lockPath);
    if (other === undefined) continue; // released between our create and our read
    if (isStale(other) && breakStale(root, other.text, options.recover)) continue;
    if (Date.now() > deadline) {
      const who = other.record !== undefined ? `process ${other.record.pid} on ${other.record.host}` : 'another process';
      throw new SessionfoldError('IO_ERROR', `The session store at ${root} is locked by ${who}; if no sessionfold runs, remove ${lockPath}`, { file: lockPath });
    }
    sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
  held.add(record.nonce);
  try {
    return fn();
  } finally {
    held.delete(record.nonce);
    const now = readLock(lockPath);
    if (now?.text === text) unlinkQuiet(lockPath);
  }
}
