/**
 * Test databases: a writer in a child process (sqlite-writer.mjs, the agent), and a snapshot of a folder's
 * files (bytes, mtimes, listing) to prove that a read changed nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
