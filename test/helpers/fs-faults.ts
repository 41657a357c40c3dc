/**
 * Fault injection for the store's file primitives (src/store/fs.ts): node:fs's `renameSync` is replaced
 * (and the ESM bindings resynced, as test/startup-paths.test.ts does for the module loader), so the nth
 * rename from now on fails with an errno error, as a full or failing disk makes it, or kills this process,
 * as a crash does. Every atomic write and every move of the store ends in one rename, so failing each in
 * turn walks every step of a mutation.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
const original = fs.renameSync;

/** What the nth rename does: throw an errno error with this code, or SIGKILL the process. */
export type RenameFault = 'ENOSPC' | 'EIO' | 'kill';

/** Count renames and inject `fault` at the `at`th (1-based; 0 never). `renames()` tells how many ran. */
export function injectRenameFault(at: number, fault: RenameFault): { renames(): number; restore(): void } {
  let n = 0;
  fs.renameSync = (from, to) => {
    n++;
    if (n === at) {
      if (fault === 'kill') process.kill(process.pid, 'SIGKILL');
      throw Object.assign(new Error(`${fault}: injected failure, rename '${String(from)}' -> '${String(to)}'`), { code: fault });
    }
    original(from, to);
  };
  syncBuiltinESMExports();
  return {
    renames: () => n,
    restore: () => {
      fs.renameSync = original;
      syncBuiltinESMExports();
    },
  };
}
