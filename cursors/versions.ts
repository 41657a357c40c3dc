/**
 * The installed sessionfold package: its folder and its version, each found once. The folder is found by
 * walking up from this module to the `package.json` named sessionfold, wherever the build put the module
 * (`src/` under tests, `dist/src/`, or the CLI's bundle in `dist/src/cli/bundle/`), so files the package
 * ships (the native kernel, the scan's worker, the demo history) are named from it, not from a module's URL.
 *
 * The version is part of every cache key whose meaning could change with the code (list summaries, fold
 * snapshots), so an upgrade never reuses results an older build computed, even where a rule's own version
 * number was not bumped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: { root: string | undefined; version: string } | undefined;

function find(): { root: string | undefined; version: string } {
  if (found !== undefined) return found;
  found = { root: undefined, version: '?' };
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 6; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    // asked first: a read that fails throws an error with a stack, one per folder the walk passes (the
    // bundle's and dist's), on every start
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'sessionfold') {
        found = { root: dir, version: String(pkg.version) };
        break;
      }
    } catch {
      // not here
    }
  }
  return found;
}

export function sessionfoldVersion(): string {
  return find().version;
}

/** The package folder (holding package.json), or undefined when this module is not inside one. */
export function packageRoot(): string | undefined {
  return find().root;
}

/** True when this code runs from its TypeScript sources (tests, through the dev loader), not from a build. */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');
