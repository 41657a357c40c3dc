/**
 * `../shared/fixtures/real/` beside the repository, found from the repository's root (the first folder up
 * holding package.json), so a helper resolves it the same from its source under test/ and from dist/test/
 * (where bench scripts import it).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function repoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The repository's root. */
export const REPO_ROOT = repoRoot(dirname(fileURLToPath(import.meta.url)));

/** The real fixtures' folder, with a trailing slash. */
export const REAL_FIXTURES = `${join(REPO_ROOT, '..', 'shared', 'fixtures', 'real')}/`;
