/**
 * A file of an installed package, found as `require` finds the package itself (the first of its lookup
 * folders, `require.resolve.paths`, that holds the package), without resolving the package's entry. A
 * package whose package.json has an `exports` map (xxhash-wasm, genai-prices) sends `require(name)` and
 * `require.resolve(name)` through part of Node's ESM resolver, which Node loads and compiles on first use:
 * about 6 ms of CPU (timed here) on every warm report, to find a file whose place in the package is known.
 * A file that is not where it is expected is undefined: the caller then asks `require` as before.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `<folder>/<name>/<file>` in the first of `req`'s lookup folders that holds `<name>/<file>`; undefined if none. */
export function packageFile(req: NodeJS.Require, name: string, file: string): string | undefined {
  for (const dir of req.resolve.paths(name) ?? []) {
    const path = join(dir, name, file);
    if (existsSync(path)) return path;
  }
  return undefined;
}
