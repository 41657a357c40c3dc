/**
 * V8's tier-up budget for the executable's scans. A function is compiled by TurboFan (on V8's background
 * threads) once it has run through `--interrupt-budget` bytes of bytecode a few times; a cold report's read
 * path runs dozens of functions that are hot for a second or two, so at the default (66 KiB, V8 11.3: Node 20)
 * TurboFan compiles about a hundred of them, and most of that compile time never pays back on a small or
 * medium history. Four times the budget leaves the lukewarm ones in Sparkplug's code and still optimizes the
 * hottest loops early. Measured (bench/RESULTS.md, "The walking pass"): a cold report's CPU time 0.90–0.94x at
 * scale 0.12 and 0.89–0.96x at 0.5 of the peers profile without the addon, 0.92–0.95x with it.
 *
 * The executable decides for its own process (as with the malloc arenas, cursors/native.ts): a program that
 * imports the library keeps V8's defaults. It raises the budget once a scan has files to read (the first
 * progress report), and before any of `cost report`, `cost blocks`, a local `statusline` and `sessions list`
 * lists the history: a warm run with nothing changed still lists and stats every file, and at the default
 * budget TurboFan compiled discovery's per-file functions (the listing's generators, the stat and
 * fingerprint of each file) on every such run, about a third of its CPU time at 1,961 files
 * (bench/RESULTS.md, "The warm path"). A `cost report` or `cost blocks` over no history (the empty report's
 * test, `absentHistory` in src/cost/empty-report.ts) never loads `node:v8`. Only on the V8 it was measured
 * on, and not when the user set the budget (`NODE_OPTIONS`, node's own flags) or turned this off
 * (`SESSIONFOLD_JIT=0`).
 *
 * Only a one-shot run is tuned: `serve` runs the commands' compute (progress included) for its whole life,
 * so its first request that read files would set the budget of a long-lived process, judged on one client's
 * environment. The served path calls `keepJitDefaults()` (src/cli/served-compute.ts).
 */
import { setV8Flags } from './v8-flags.js';

/** V8 11.3's default `--interrupt-budget` (66 KiB), times four. */
const SCAN_INTERRUPT_BUDGET = 4 * 66 * 1024;

let tuned = false;

/** Raise V8's tier-up budget for the rest of this process (see above); once, and only where it applies. */
export function tuneJitForScan(env: NodeJS.ProcessEnv): void {
  if (tuned) return;
  tuned = true;
  if (!appliesTo(process.versions.v8, `${process.execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`, env)) return;
  setV8Flags(`--interrupt-budget=${SCAN_INTERRUPT_BUDGET}`);
}

/** Never raise the budget in this process (a resident server's; see above). */
export function keepJitDefaults(): void {
  tuned = true;
}

/** Whether the budget is raised on this V8 (`process.versions.v8`) with these node options and environment. */
export function appliesTo(v8Version: string, nodeOptions: string, env: NodeJS.ProcessEnv): boolean {
  return v8Version.startsWith('11.3.') && !nodeOptions.includes('interrupt-budget') && !nodeOptions.includes('interrupt_budget') && env.SESSIONFOLD_JIT !== '0';
}
