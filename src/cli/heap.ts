/**
 * V8's old-generation growth for a command that streams a large file with little live data (`sessions
 * show`). V8 lets the old generation grow to several times what survived the last full GC before it
 * collects again; reading a 500 MB session, which parses every line twice and keeps about 30 MB, that put
 * 150-200 MB of garbage on the heap before each collection and the process at 265 MB (issue 16's bar is
 * 250 MB). A growing factor of 1.1 (`--heap-growing-percent=10`) collects sooner, for no measured loss of
 * time there: 191 MB instead of 265 for the streamed show (bench/RESULTS.md, peak RSS).
 *
 * The flag goes through setV8Flags (v8-flags.ts), so the code cache is not stamped with it. The executable
 * decides for its own process, as jit.ts does: a program that imports the library keeps
 * V8's defaults, and so does a user who set the flag or a heap size (`NODE_OPTIONS`, node's own flags), or
 * turned this off (`SESSIONFOLD_HEAP_TUNE=0`).
 */
import { setV8Flags } from './v8-flags.js';

export const STREAM_HEAP_GROWING_PERCENT = 10;

let tuned = false;

/** Make V8 collect the old generation sooner for the rest of this process (see above); once. */
export function tuneHeapForStream(env: NodeJS.ProcessEnv): void {
  if (tuned) return;
  tuned = true;
  if (!heapTuneApplies(`${process.execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`, env)) return;
  setV8Flags(`--heap-growing-percent=${STREAM_HEAP_GROWING_PERCENT}`);
}

/** Whether the growth is tuned with these node options and environment. */
export function heapTuneApplies(nodeOptions: string, env: NodeJS.ProcessEnv): boolean {
  return !/heap[-_]growing|max[-_]old[-_]space|max[-_]heap[-_]size/.test(nodeOptions) && env.SESSIONFOLD_HEAP_TUNE !== '0';
}
