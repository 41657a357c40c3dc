/**
 * The installed sessionfold version, read once from its package manifest: part of every cache key whose
 * meaning could change with the code (list summaries, fold snapshots), so an upgrade never reuses results
 * an older build computed, even where a rule's own version number was not bumped.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let own: string | undefined;

export function sessionfoldVersion(): string {
  if (own !== undefined) return own;
  own = '?';
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'sessionfold') {
        own = String(pkg.version);
        break;
      }
    } catch {
      // not here
    }
  }
  return own;
}
