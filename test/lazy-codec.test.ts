/**
 * The registry's lazy codecs (src/lazy-codec.ts) stand for the codec modules: once loaded, every member a
 * codec module has is reachable through its wrapper, with the same presence. A member the wrapper does not
 * forward would be silently absent (a fold's optional path, such as a batched database read, never taken).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CODECS } from '../src/builtin-codecs.js';
import { LazyCodec } from '../src/lazy-codec.js';
import type { Codec } from '../cursors/protocol/codec.js';

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

describe('a lazy codec’s forwarded methods', () => {
  const FORWARDED = ['discoverSync', 'dependencyStamp', 'locate', 'lineCoreFor', 'scanUsage', 'nativeSearch', 'resumeCommand', 'detect', 'batchKey', 'readBatch'];

  it('are the same function on every access, once loaded', async () => {
    let seen = 0;
    for (const builtin of BUILTIN_CODECS) {
      const lazy = new LazyCodec(builtin);
      await lazy.load();
      const get = (m: string): unknown => (lazy as unknown as Record<string, unknown>)[m];
      for (const m of FORWARDED) {
        if (get(m) === undefined) continue;
        seen++;
        expect(get(m), `${builtin.descriptor.id}.${m}`).toBe(get(m));
      }
    }
    expect(seen).toBeGreaterThan(BUILTIN_CODECS.length);
  });

  it('call the module with itself as `this`, and a module adopted later replaces them', async () => {
    const builtin = BUILTIN_CODECS.find((b) => b.descriptor.id === 'claude')!;
    const real = await builtin.load();
    const first: Codec = { ...real, detect: function (this: Codec) { return this === first ? 1 : 0; } };
    const second: Codec = { ...real, detect: function (this: Codec) { return this === second ? 2 : 0; } };
    const lazy = new LazyCodec({ descriptor: builtin.descriptor, load: async () => first });
    expect(() => lazy.detect).toThrow(/not loaded yet/);
    await lazy.load();
    const detect = lazy.detect!;
    expect(detect('x', Buffer.alloc(0))).toBe(1);
    lazy.adopt(second);
    expect(lazy.detect).not.toBe(detect);
    expect(lazy.detect!('x', Buffer.alloc(0))).toBe(2);
  });
});
