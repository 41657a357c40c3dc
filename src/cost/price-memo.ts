/**
 * A pricer's resolutions kept beside the event cache (`<cache>.prices.json`): a later run whose models
 * were all resolved before prices them without loading genai-prices, whose bundled table is the largest
 * single cost of a warm local `statusline` (its evaluation, in `--cpu-prof` profiles). The resolutions hold
 * only under the fingerprint they were made with (the price data's version, our rules' version, the
 * overrides): under another the file is ignored and written afresh. The same map `seed()` takes from a fold
 * snapshot, so a price is the one the pricer would resolve itself.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Pricer, ResolvedPrice } from './pricing.js';

interface Stored {
  fingerprint: string;
  resolved: ResolvedPrice[];
}

/**
 * Where the resolutions of a cache at `cachePath` are kept: named after the cache file, so two caches in one
 * folder keep their own, and never the user's price overrides (`$XDG_CONFIG_HOME/sessionfold/prices.json`),
 * which a cache folder set to the config folder would otherwise share a name with.
 */
export function priceMemoPath(cachePath: string): string {
  return `${cachePath}.prices.json`;
}

/** Seed `pricer` from the file when it was written under the pricer's fingerprint; how many it took. */
export function seedFromMemo(pricer: Pricer, file: string): number {
  if (pricer.fingerprint === undefined || pricer.seed === undefined) return 0;
  let stored: Stored;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Stored;
  } catch {
    return 0; // none yet, or unreadable: the pricer resolves as usual
  }
  if (stored.fingerprint !== pricer.fingerprint || !Array.isArray(stored.resolved)) return 0;
  pricer.seed(stored.resolved);
  return stored.resolved.length;
}

/** Write the pricer's resolutions when it made more than `seeded`, into an existing cache folder only. */
export function saveMemo(pricer: Pricer, file: string, seeded: number): void {
  const resolved = pricer.exportResolved?.();
  if (resolved === undefined || pricer.fingerprint === undefined || resolved.length <= seeded || !existsSync(dirname(file))) return;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ fingerprint: pricer.fingerprint, resolved } satisfies Stored));
    renameSync(tmp, file);
  } catch {
    // a read-only cache folder: the next run resolves again
  }
}
