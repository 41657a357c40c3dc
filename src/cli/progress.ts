/**
 * Progress on stderr for commands that can take more than a second: a bar when the work knows its size (the
 * scan's `onProgress(done, total)` in bytes), else a spinner with the elapsed time. Only on a terminal, and
 * only once the work has taken `delayMs`; redrawn at most every REDRAW_MS; cleared before anything else is
 * written (a warning, the final output). Piped or redirected stderr gets nothing.
 */

import { tuneJitForScan } from './jit.js';

/** Least time between two redraws. */
export const REDRAW_MS = 100;
/** Work shorter than this shows nothing. */
export const DEFAULT_DELAY_MS = 400;

/**
 * Whether a command draws progress: stderr is a terminal, the terminal can move the cursor (`TERM` is not
 * `dumb`), no CI runner is capturing it (`CI`), and the user did not turn it off (`SESSIONFOLD_PROGRESS=0`).
 */
export function progressEnabled(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (isTTY !== true) return false;
  if (env.TERM === 'dumb') return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false') return false;
  return env.SESSIONFOLD_PROGRESS !== '0';
}

export interface Progress {
  /** Bytes done of the total: the bar. */
  onProgress(done: number, total: number): void;
  /** Clear what is drawn (before a warning or the output); drawing resumes on the next update. */
  clear(): void;
  /** Clear and draw no more. */
  stop(): void;
}

const SPIN = ['|', '/', '-', '\\'];

/**
 * Progress on `stderr` for work called `label` (`Reading sessions`): a spinner with the elapsed time until
 * `onProgress` gives sizes, then a bar. A timer drives the spinner, unref'd so it never keeps the process up.
 */
export function createProgress(stderr: NodeJS.WritableStream, env: NodeJS.ProcessEnv, label = 'Reading', delayMs = DEFAULT_DELAY_MS, now: () => number = Date.now): Progress {
  const on = progressEnabled((stderr as NodeJS.WriteStream).isTTY, env);
  const started = now();
  let last = 0;
  let shown = false;
  let stopped = false;
  let sized = false;
  let frame = 0;
  const draw = (text: string): void => {
    const t = now();
    if (t - started < delayMs || t - last < REDRAW_MS) return;
    last = t;
    shown = true;
    stderr.write(`\r${text}\x1b[K`);
  };
  const timer = on
    ? setInterval(() => {
        if (stopped || sized) return;
        draw(`${SPIN[frame++ % SPIN.length]} ${label}… ${((now() - started) / 1000).toFixed(1)}s`);
      }, REDRAW_MS)
    : undefined;
  timer?.unref?.();
  const clear = (): void => {
    if (shown) stderr.write('\r\x1b[K');
    shown = false;
  };
  return {
    onProgress(done, total) {
      // The scan has files to read (its first report comes as they are queued): tune V8 for it (jit.ts).
      if (total > 0) tuneJitForScan(env);
      if (!on || stopped || total <= 0) return;
      sized = true;
      const cols = Math.max(20, Math.min(((stderr as NodeJS.WriteStream).columns ?? 80) - 30, 50));
      const frac = Math.min(1, done / total);
      const fill = Math.round(frac * cols);
      const mb = (b: number) => (b / 1048576).toFixed(0);
      draw(`[${'#'.repeat(fill)}${'.'.repeat(cols - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${mb(done)}/${mb(total)} MB`);
    },
    clear,
    stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      clear();
    },
  };
}

/** Run `work` with progress on the command's stderr (see createProgress); cleared before `work`'s result is printed. */
export async function withProgress<T>(io: { stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }, label: string, work: (p: Progress) => Promise<T>): Promise<T> {
  const p = createProgress(io.stderr, io.env, label);
  try {
    return await work(p);
  } finally {
    p.stop();
  }
}
