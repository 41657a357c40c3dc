/**
 * The server's order of work: `CommandQueue` runs one job at a time (a job that stalls no longer holds up the
 * next), and `WorkAhead` keeps the recent distinct commands and re-runs them after a change, one per turn of
 * the queue, so their fold snapshots already hold the change when a client asks again.
 */
import type { ServeRequest } from './protocol.js';

/** Distinct recent commands the server keeps current after a change. */
export const REFRESH_LIMIT = 4;

export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/**
 * One job at a time: the event cache, the fold snapshots, the working folder and the time zone are the
 * process's own. A job still running after `stallMs` lets the next one start (the stalled one goes on; its
 * client has long since run locally, see client.ts).
 */
export class CommandQueue {
  #tail: Promise<void> = Promise.resolve();
  /** Jobs still running (a stalled one included). */
  readonly #running = new Set<Promise<void>>();
  readonly #stallMs: number;

  constructor(stallMs: number) {
    this.#stallMs = stallMs;
  }

  /** Resolves when the job has finished or stalled; a job's own failure is swallowed. */
  enqueue(job: () => Promise<void>): Promise<void> {
    this.#tail = this.#tail.then(() => {
      const p = job().catch(() => undefined);
      this.#running.add(p);
      void p.finally(() => this.#running.delete(p));
      return Promise.race([p, delay(this.#stallMs)]);
    });
    return this.#tail;
  }

  /** Resolves when every job queued so far, and every stalled one, has finished. */
  settled(): Promise<void> {
    return Promise.all([this.#tail, ...this.#running]).then(() => undefined);
  }
}

/**
 * The recent distinct commands (at most REFRESH_LIMIT, oldest dropped first) and the ones still to refresh.
 * Refreshes run one per turn of the queue, most recent first, so a client that asks meanwhile waits for one
 * refresh at most; a client asking for a command still pending takes it over (its own run does the work).
 */
export class WorkAhead {
  readonly #recent = new Map<string, ServeRequest>();
  readonly #pending = new Set<string>();
  #draining = false;

  readonly #queue: CommandQueue;
  readonly #refresh: (req: ServeRequest) => Promise<void>;
  readonly #log: (line: string) => void;
  readonly #delayMs: number;

  /** `refresh` computes a command and drops its data; `delayMs` waits after a change before working ahead. */
  constructor(queue: CommandQueue, refresh: (req: ServeRequest) => Promise<void>, log: (line: string) => void, delayMs: number) {
    this.#queue = queue;
    this.#refresh = refresh;
    this.#log = log;
    this.#delayMs = delayMs;
  }

  /** The key that makes two requests the same command. */
  static key(req: ServeRequest): string {
    return JSON.stringify([req.argv, req.cwd, req.env]);
  }

  /** A client is about to run `key` itself: no refresh of it is needed. */
  takeOver(key: string): void {
    this.#pending.delete(key);
  }

  /** `req` was just served: it becomes the most recent command. */
  remember(key: string, req: ServeRequest): void {
    this.#recent.delete(key);
    this.#recent.set(key, req);
    while (this.#recent.size > REFRESH_LIMIT) this.#recent.delete(this.#recent.keys().next().value as string);
  }

  /** The recent commands, oldest first. */
  commands(): ServeRequest[] {
    return [...this.#recent.values()];
  }

  /** Files changed: refresh every recent command (after `delayMs`, unless refreshes are under way). */
  schedule(): void {
    for (const key of this.#recent.keys()) this.#pending.add(key);
    if (this.#draining || this.#pending.size === 0) return;
    this.#draining = true;
    setTimeout(() => this.#drain(), this.#delayMs).unref();
  }

  #drain(): void {
    const req = this.#nextPending();
    if (req === undefined) {
      this.#draining = false;
      return;
    }
    void this.#queue
      .enqueue(async () => {
        const t = performance.now();
        await this.#refresh(req);
        this.#log(`refreshed ${req.argv.slice(0, 2).join(' ')} in ${(performance.now() - t).toFixed(0)} ms`);
      })
      .catch((e: unknown) => this.#log(`refresh failed: ${(e as Error).message}`))
      .finally(() => this.#drain());
  }

  /** The most recently added pending command still among the recent ones. */
  #nextPending(): ServeRequest | undefined {
    while (this.#pending.size > 0) {
      const key = [...this.#pending].pop() as string;
      this.#pending.delete(key);
      const req = this.#recent.get(key); // undefined: no longer among the recent ones
      if (req !== undefined) return req;
    }
    return undefined;
  }
}
