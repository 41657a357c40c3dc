/**
 * Question: what does verifying a cursor's prefix cost? A resumed read must prove the first `offset` bytes
 * are unchanged before it trusts its state. Goal (issue 2): sha256 >= 1 GB/s. Shown beside it: xxh64 (the
 * event cache's faster fingerprint: fed a read's chunks, the cache's own pread-and-hash in C, and the same
 * through xxhash-wasm), the bare read, and the real thing — a codec read
 * resumed from a cursor at the end of an unchanged file (verification + open + nothing to parse).
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync } from 'node:fs';
import { createHash64 } from '../cursors/ids.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import { nativeKernel } from '../cursors/native.js';
import { bigFileSpec, ensureCorpus, largestFile } from './lib/corpus.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { bareRead, codecOrReason } from './lib/read.js';

/** Reference digests computed by a different path (a 64 KiB read stream; xxh64 through xxhash-wasm, so the C path is checked against another implementation). */
async function referenceDigests(path: string): Promise<{ sha256: string; xxh64: string }> {
  const sha = createHash('sha256');
  const was = process.env.SESSIONFOLD_NATIVE_HASH;
  process.env.SESSIONFOLD_NATIVE_HASH = '0';
  const xx = createHash64();
  if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_HASH;
  else process.env.SESSIONFOLD_NATIVE_HASH = was;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 16 })) {
    sha.update(chunk as Buffer);
    xx.update(chunk as Buffer);
  }
  return { sha256: sha.digest('hex'), xxh64: xx.digest() };
}

export const topic: Topic = {
  name: 'prefix',
  question: 'Prefix verification: sha256 (goal >= 1 GB/s) vs xxh64 vs a bare read; a resume from a cursor at EOF',
  async prepare(env) {
    ensureCorpus(env.dir, bigFileSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const big = largestFile(ensureCorpus(env.dir, bigFileSpec(env)));
    const bare = 'bare read (prefix)';
    const { codec, reason } = codecOrReason('claude');
    /** The cache's fingerprint of the whole file (`updateFromFile`), with `SESSIONFOLD_NATIVE_HASH` set as given. */
    const cacheHashCase = (name: string, baseline: string, nativeHash: string | undefined): BenchCase<{ sha256: string; xxh64: string }> => ({
      name,
      bytes: big.bytes,
      baseline,
      // The C case names the C path: without the kernel (or with SESSIONFOLD_NATIVE_HASH=0) it would time xxhash-wasm.
      ...(nativeHash === undefined && (nativeKernel() === undefined || process.env.SESSIONFOLD_NATIVE_HASH === '0') && { skip: 'no native kernel (or SESSIONFOLD_NATIVE_HASH=0)' }),
      setup: () => referenceDigests(big.path),
      run: async () => {
        const fd = openSync(big.path, 'r');
        if (nativeHash !== undefined) process.env.SESSIONFOLD_NATIVE_HASH = nativeHash;
        try {
          const h = createHash64();
          const n = h.updateFromFile(fd, 0, big.bytes);
          return { n, digest: h.digest() };
        } finally {
          if (nativeHash !== undefined) delete process.env.SESSIONFOLD_NATIVE_HASH;
          closeSync(fd);
        }
      },
      verify: (r, ref: { xxh64: string }) => {
        check(r.n === big.bytes, `hashed ${String(r.n)} of ${big.bytes} bytes`);
        check(r.digest === ref.xxh64, `xxh64 ${String(r.digest)} != reference ${ref.xxh64}`);
      },
    });
    return [
      {
        name: bare,
        bytes: big.bytes,
        note: `${(big.bytes / 1e6).toFixed(0)} MB prefix`,
        run: async () => ({ read: await bareRead(big.path) }),
        verify: (r) => check(r.read === big.bytes, `read ${String(r.read)} of ${big.bytes} bytes`),
      },
      {
        name: 'sha256 prefix',
        bytes: big.bytes,
        baseline: bare,
        setup: () => referenceDigests(big.path),
        run: async () => {
          const h = createHash('sha256');
          await bareRead(big.path, (buf, n) => h.update(n === buf.length ? buf : buf.subarray(0, n)));
          return { digest: h.digest('hex') };
        },
        verify: (r, ref: { sha256: string }) => check(r.digest === ref.sha256, `sha256 ${String(r.digest)} != reference ${ref.sha256}`),
      },
      {
        name: 'xxh64 prefix',
        bytes: big.bytes,
        baseline: bare,
        setup: () => referenceDigests(big.path),
        run: async () => {
          const h = createHash64();
          await bareRead(big.path, (buf, n) => h.update(n === buf.length ? buf : buf.subarray(0, n)));
          return { digest: h.digest() };
        },
        verify: (r, ref: { xxh64: string }) => check(r.digest === ref.xxh64, `xxh64 ${String(r.digest)} != reference ${ref.xxh64}`),
      },
      // What the event cache runs to verify a grown file's prefix (src/scan/parse-file.ts): with the kernel,
      // pread and XXH64 in C (native/hash.c); the next case is the same digest through xxhash-wasm.
      cacheHashCase('xxh64 prefix, the cache\'s path (updateFromFile)', bare, undefined),
      cacheHashCase('xxh64 prefix, xxhash-wasm (SESSIONFOLD_NATIVE_HASH=0)', 'xxh64 prefix, the cache\'s path (updateFromFile)', '0'),
      {
        name: 'claude resume at EOF (verify cursor, nothing new)',
        bytes: big.bytes,
        baseline: bare,
        ...(reason !== undefined && { skip: reason }),
        setup: async () => {
          let cursor: ReadCursor | undefined;
          for await (const _ of codec!.read(big.path, { kinds: ['usage'], resume: { onCursor: (u) => (cursor = u.cursor) } })) void _;
          if (!cursor) throw new Error('no cursor after a full read');
          return cursor;
        },
        run: async (cursor: ReadCursor) => {
          let events = 0;
          let restarted: boolean | undefined;
          let replaced = 0;
          let offset = -1;
          for await (const _ of codec!.read(big.path, {
            kinds: ['usage'],
            resume: { from: cursor, onStart: (s) => ((restarted = s.restarted), (replaced = s.replaced.usage ?? 0)), onCursor: (u) => (offset = (u.cursor as { offset: number }).offset) },
          })) {
            events++;
          }
          return { events, restarted, replaced, offset };
        },
        verify: (r) => {
          check(r.restarted === false, `resume restarted (restarted=${String(r.restarted)})`);
          // Only the still-open last response may come again (and the start line says so).
          check(r.events === r.replaced, `${String(r.events)} events from an unchanged file, ${String(r.replaced)} announced as replaced`);
          check(r.offset === big.bytes, `cursor offset ${String(r.offset)} != ${big.bytes}`);
        },
      },
    ];
  },
};

await runTopicMain(import.meta.url, topic);
