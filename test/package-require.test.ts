/**
 * The package's entry (dist/src/index.js) has no top-level await, so a CommonJS caller can `require()` it
 * where Node allows `require()` of ES modules (Node 20.19+), and every codec `getCodec()` gives has its
 * members at once: the entry hands the registry's lazy entries the codec objects it imports
 * (src/codec-objects.ts, `adoptCodecs`). Needs the build (`npm test` builds first).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../dist/src/index.js', import.meta.url));

function probe(load: string): string {
  const script = `${load}.then((m) => {
    const lazy = m.listCodecs().filter((c) => { try { void c.lineCoreFor; return false; } catch { return true; } });
    process.stdout.write(JSON.stringify({ codecs: m.listCodecs().length, unloaded: lazy.map((c) => c.id), claudeIsTheObject: m.getCodec('claude').loaded === m.claude || m.getCodec('claude') === m.claude }));
  })`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout;
}

describe('the package entry', () => {
  it.runIf(process.features.require_module === true)('is require()-able: no top-level await in its graph', () => {
    const got = JSON.parse(probe(`Promise.resolve(require(${JSON.stringify(ENTRY)}))`)) as { codecs: number; unloaded: string[]; claudeIsTheObject: boolean };
    expect(got.codecs).toBeGreaterThanOrEqual(25);
    expect(got.unloaded).toEqual([]);
    expect(got.claudeIsTheObject).toBe(true);
  });

  it('gives every codec loaded when imported', () => {
    const got = JSON.parse(probe(`import(${JSON.stringify(ENTRY)})`)) as { codecs: number; unloaded: string[]; claudeIsTheObject: boolean };
    expect(got.codecs).toBeGreaterThanOrEqual(25);
    expect(got.unloaded).toEqual([]);
    expect(got.claudeIsTheObject).toBe(true);
  });
});
