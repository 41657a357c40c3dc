/**
 * The one way the executable changes V8's flags for the rest of its process (jit.ts, heap.ts). V8 stamps a
 * code cache with a hash of its flags, so a cache written after a change is rejected by every later run that
 * starts without it: the executable's code cache (src/cli/code-cache.cts) is told first, writes what it
 * holds, and names the caches of chunks loaded afterwards for the new flags. src/cli/main.cts puts that hook
 * on the global symbol below, since it and this module sit on opposite sides of the bundle.
 */
import { nodeV8 } from '../../cursors/builtins.js';

const BEFORE_V8_FLAGS = Symbol.for('sessionfold.beforeV8Flags');

/** `v8.setFlagsFromString(flags)`, after the code cache's hook (when the executable set one). */
export function setV8Flags(flags: string): void {
  const beforeFlags = (globalThis as Record<symbol, unknown>)[BEFORE_V8_FLAGS];
  if (typeof beforeFlags === 'function') (beforeFlags as (flags: string) => unknown)(flags);
  nodeV8().setFlagsFromString(flags);
}
