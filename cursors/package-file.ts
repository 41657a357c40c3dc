/**
 * A file of an installed package, found as `require` finds the package itself (the first of its lookup
 * folders, `require.resolve.paths`, that holds the package), without resolving the package's entry. A
 * package whose package.json has an `exports` map (xxhash-wasm, genai-prices) sends `require(name)` and
 * `require.resolve(name)` through part of Node's ESM resolver, which Node loads and compiles on first use:
 * about 6 ms of CPU (timed here) on every warm report, to find a file whose place in the package is known.
 * The package is the first `<folder>/<name>` with a package.json, the copy `require(name)` loads; the file is
 * looked for in that copy only, so a package's JavaScript and the file taken beside it (its addon, its
 * package.json) never come from two installed copies. A file that is not in that copy is undefined: the
 * caller then asks `require` as before.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<folder>/<name>/<file>` for the first of `req`'s lookup folders that holds the package (`<name>/package.json`);
 * undefined when that copy lacks the file or no folder holds the package.
 */
export function packageFile(req: NodeJS.Require, name: string, file: string): string | undefined {
  for (const dir of req.resolve.paths(name) ?? []) {
    const pkg = join(dir, name);
    if (!existsSync(join(pkg, 'package.json'))) continue;
    const path = join(pkg, file);
    return existsSync(path) ? path : undefined;
  }
  return undefined;
}
