/**
 * cursors/ids.ts takes xxhash-wasm by require() on the first hash, not by an import at the top: in a fresh
 * process nothing of it is loaded until then, and it then starts (not the JavaScript fallback), from the
 * modules and from the CLI's CommonJS bundle (a script that cannot import()), with the same digests.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { xxh64 } from '../cursors/xxhash-js.js';

const IDS = new URL('../dist/cursors/ids.js', import.meta.url).href;
const CJS = new URL('../dist/src/cli/bundle-cjs/', import.meta.url).pathname;
const CODE_CACHE = new URL('../dist/src/cli/code-cache.cjs', import.meta.url).pathname;

/** What a fresh process says: xxhash-wasm loaded before the first hash, after it, the backend, a digest. */
const probe = (load: string) => `${load}
const loaded = () => Object.keys(require('node:module')._cache).some((k) => k.includes('xxhash-wasm'));
const before = loaded();
ids.hashesReady().then(() => {
  const h = new Uint32Array(2);
  ids.hashString64Into('abc', h); // the fold's key hash: xxhash-wasm's where no WebAssembly kernel is loaded
  process.stdout.write(JSON.stringify([before, loaded(), ids.hashesFrom?.() ?? 'not exported', ((BigInt(h[0]) << 32n) | BigInt(h[1])).toString(16)]));
});`;

describe('xxhash-wasm starts on the first hash', () => {
  const want = xxh64(Buffer.from('abc')).toString(16);
  it('from the modules', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url); const ids = await import(${JSON.stringify(IDS)});\n${probe('')}`], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([false, true, 'xxhash-wasm', want]);
  });

  it('from the CLI\'s CommonJS bundle', () => {
    const load = `const { cjsBundle } = require(${JSON.stringify(CODE_CACHE)}); const b = cjsBundle(${JSON.stringify(CJS)}, undefined); const chunk = require('node:fs').readdirSync(${JSON.stringify(CJS)}).find((f) => /^ids-.*\\.cjs$/.test(f)); const ids = b.load(chunk);`;
    const out = execFileSync(process.execPath, ['-e', probe(load)], { encoding: 'utf8' });
    // the chunk exports only what other chunks use: the package loaded, and the digest the same
    expect(JSON.parse(out)).toEqual([false, true, 'not exported', want]);
  });
});
