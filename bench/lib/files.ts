/**
 * File chores of the resume benchmarks: restore a grown file to its earlier size and grow it again with the
 * same bytes (so every iteration sees an identical append), and snapshot / restore a SQLite cache with its
 * -wal and -shm side files. These only ever touch the benchmark's own scratch copies.
 */
import { copyFileSync, existsSync, openSync, closeSync, readSync, rmSync, truncateSync, appendFileSync } from 'node:fs';

/** Bytes [from, to) of a file. */
export function readRange(path: string, from: number, to: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(to - from);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, from + off);
      if (n === 0) throw new Error(`${path} is shorter than ${to}`);
      off += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** Cut `path` back to `size` bytes, then append `block` (the file ends as it did after the first append). */
export function regrow(path: string, size: number, block: Buffer): void {
  truncateSync(path, size);
  appendFileSync(path, block);
}

const SIDES = ['', '-wal', '-shm'];

export function snapshotDb(db: string, to: string): void {
  for (const s of SIDES) {
    rmSync(to + s, { force: true });
    if (existsSync(db + s)) copyFileSync(db + s, to + s);
  }
}

export function restoreDb(from: string, db: string): void {
  for (const s of SIDES) {
    rmSync(db + s, { force: true });
    if (existsSync(from + s)) copyFileSync(from + s, db + s);
  }
}

export function removeDb(db: string): void {
  for (const s of SIDES) rmSync(db + s, { force: true });
}
