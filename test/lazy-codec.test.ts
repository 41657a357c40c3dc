/**
 * The registry's lazy codecs (src/lazy-codec.ts) stand for the codec modules: once loaded, every member a
 * codec module has is reachable through its wrapper, with the same presence. A member the wrapper does not
 * forward would be silently absent (a fold's optional path, such as a batched database read, never taken).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CODECS } from '../src/builtin-codecs.js';
import { LazyCodec } from '../src/lazy-codec.js';

describe('a lazy codec, loaded', () => {
  it.each(BUILTIN_CODECS.map((b) => [b.descriptor.id, b] as const))('%s: every member of its module, with the same presence', async (_id, builtin) => {
    const lazy = new LazyCodec(builtin);
    expect(() => lazy.lineCore).toThrow(/not loaded yet/);
    const full = await lazy.load();
    const members = Object.keys(full);
    expect(members.length).toBeGreaterThan(5);
    for (const m of members) {
      const mine = (lazy as unknown as Record<string, unknown>)[m];
      const theirs = (full as unknown as Record<string, unknown>)[m];
      expect(typeof mine, `${m}`).toBe(typeof theirs);
    }
  });
});
