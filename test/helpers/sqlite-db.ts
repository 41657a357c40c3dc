/**
 * Test databases: a writer in a child process (sqlite-writer.mjs, the agent); resumed reads; golden files.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { RACY_MS } from '../../cursors/listing-memo.js';
import type { Codec, ReadCursor, ResumeStart } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { expectUsageShape } from './golden.js';

const WRITER = fileURLToPath(new URL('./sqlite-writer.mjs', import.meta.url));

export interface LoopResult {
  commits: number;
  maxCommitMs: number;
  errors: number;
}

export interface Writer {
  exec(sql: string): Promise<void>;
  run(sql: string, params: unknown[][]): Promise<void>;
  /** Commit `sqls` as one transaction again and again until `stop()`. */
  loop(sqls: string[]): Promise<void>;
  stop(): Promise<LoopResult>;
  /** Close the database (checkpoint; -wal and -shm go) and end the process. */
  close(): Promise<void>;
  /** End the process without closing the database: -wal and -shm stay, as after a crash. */
  kill(): Promise<void>;
}

/**
 * `fn()` with the clock 2 x RACY_MS ahead (`Date` only): files written just now then look settled, so a
 * snapshot keeps what it computed (cursors/sqlite.ts `snapshotMemo`).
 */
export function later<T>(fn: () => T): T {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2 * RACY_MS });
  try {
    return fn();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Each test of the file gets a fresh temp folder (named from `prefix`), handed to `onDir` before the test; after
 * it, the writers pushed onto the returned list are killed and the folder is removed.
 */
export function tempDirPerTest(prefix: string, onDir: (dir: string) => void): Writer[] {
  const writers: Writer[] = [];
  let dir: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    onDir(dir);
  });
  afterEach(async () => {
    for (const w of writers.splice(0)) await w.kill().catch(() => undefined);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return writers;
}

/** Start a writer on `path` (created in WAL mode when missing). */
export async function startWriter(path: string): Promise<Writer> {
  const child: ChildProcess = fork(WRITER, [path], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  let next = 1;
  child.on('message', (m: Record<string, unknown>) => waiting.get(m.id as number)?.(m));
  await new Promise<void>((resolve, reject) => {
    waiting.set(0, () => resolve());
    child.once('error', reject);
  });
  const call = (msg: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => {
        waiting.delete(id);
        if (m.ok === true) resolve(m);
        else reject(new Error(String(m.error)));
      });
      child.send({ ...msg, id });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    exec: async (sql) => void (await call({ exec: sql })),
    run: async (sql, params) => void (await call({ run: sql, params })),
    loop: async (sqls) => void (await call({ loop: { sqls } })),
    stop: async () => {
      const m = await call({ stop: true });
      return { commits: m.commits as number, maxCommitMs: m.maxCommitMs as number, errors: m.errors as number };
    },
    close: async () => {
      await call({ close: true });
      await exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The events of a read, with how it started and the cursor it left. */
export interface Resumed {
  events: SessionfoldEvent[];
  start: ResumeStart | undefined;
  cursor: ReadCursor | undefined;
}

/** Read `path` from `from` (a full read without one), keeping the start and the cursor. */
export async function readResumed(codec: Codec, path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Resumed> {
  const r: Resumed = { events: [], start: undefined, cursor: undefined };
  for await (const e of codec.read(path, { kinds, resume: { from, onStart: (s) => (r.start = s), onCursor: (u) => (r.cursor = u.cursor) } })) r.events.push(e);
  return r;
}

/**
 * Compare events with the golden file `<dir>/<name>.events.jsonl` (written first with UPDATE_GOLDEN=1), byte for
 * byte, and check every usage event is on `blankUsageEvent()`'s one shape (golden.ts's `expectUsageShape`).
 */
export function expectGolden(dir: string, name: string, events: readonly SessionfoldEvent[]): void {
  const file = join(dir, `${name}.events.jsonl`);
  const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
  expectUsageShape(events);
}
