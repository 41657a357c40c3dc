/**
 * Reading a corpus the way benchmarks need: every file of an agent through its codec (one after the other,
 * on this thread), counting events and folding usage into a UsageCollector for the check against
 * expected.json; and the naive baseline (`readFile` + `toString` + `split('\n')` + `JSON.parse`).
 */
import { open, readFile } from 'node:fs/promises';
import { DEFAULT_BUFFER_SIZE, type Codec } from '../../cursors/protocol/codec.js';
import type { EventKind } from '../../cursors/protocol/events.js';
import { findCodec } from '../../src/registry.js';
import { UsageCollector } from '../../fixtures/generate/index.js';

export interface CorpusRead {
  files: number;
  events: number;
  usage: UsageCollector;
  skippedLines: number;
  bytes: number;
}

/** The files a codec discovers under its default roots in `env`. */
export async function discoverPaths(codec: Codec, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out: string[] = [];
  for await (const f of codec.discover(codec.defaultRoots(env))) out.push(f.path);
  return out.sort();
}

/** Read every path with the codec; usage events go to a fresh UsageCollector. */
export async function readAll(codec: Codec, paths: readonly string[], kinds?: readonly EventKind[]): Promise<CorpusRead> {
  const r: CorpusRead = { files: 0, events: 0, usage: new UsageCollector(), skippedLines: 0, bytes: 0 };
  for (const p of paths) {
    r.files++;
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    for await (const e of codec.read(p, { kinds, info })) {
      r.events++;
      if (e.type === 'usage') r.usage.add(e);
    }
    r.skippedLines += info.skippedLines;
    r.bytes += info.bytes;
  }
  return r;
}

/** The codec registered under `id`, or a reason it is missing (for `skip`). */
export function codecOrReason(id: string): { codec?: Codec; reason?: string } {
  const codec = findCodec(id);
  return codec ? { codec } : { reason: `codec ${id} is not registered yet` };
}

export interface NaiveRead {
  lines: number;
  objects: number;
  /** Lines that failed JSON.parse or were not objects. */
  bad: number;
  bytes: number;
}

/** The naive baseline: whole file in memory, one string, split, JSON.parse every line. */
export async function naiveRead(paths: readonly string[]): Promise<NaiveRead> {
  const r: NaiveRead = { lines: 0, objects: 0, bad: 0, bytes: 0 };
  for (const p of paths) {
    const buf = await readFile(p);
    r.bytes += buf.length;
    const lines = buf.toString('utf8').split('\n');
    for (const l of lines) {
      if (l.length === 0) continue;
      r.lines++;
      try {
        const v: unknown = JSON.parse(l);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) r.objects++;
        else r.bad++;
      } catch {
        r.bad++;
      }
    }
  }
  return r;
}

/** Read the whole file with one reused buffer; `each` sees every chunk. */
export async function bareRead(path: string, each?: (buf: Buffer, n: number) => void): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(DEFAULT_BUFFER_SIZE);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      each?.(buf, bytesRead);
      pos += bytesRead;
    }
    return pos;
  } finally {
    await fh.close();
  }
}

