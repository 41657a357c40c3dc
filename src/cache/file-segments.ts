/**
 * A cached file's stored records, as the event cache (store.ts) reads and rewrites them inside its
 * transactions: its live segments (dropped from the tail, merged when fragmented), its ledger, and its change
 * log (file_changes). Each operation is a few statements of statements.ts; the rules of when to run them
 * (resume, restart, delete) stay in store.ts, so that this file is only how each is done.
 */
import type { Segment } from '../scan/segment.js';
import { decodeSegment, pushRecords, SegmentWriter, segmentKey } from '../scan/segment.js';
import type { UsageRecord } from '../scan/types.js';
import type { FileResult, FileRow } from './rows.js';
import type { Statements } from './statements.js';

/** Updates of a file kept in its change log (file_changes). */
export const MAX_CHANGES_PER_FILE = 64;

/** Records as one segment (null for none). */
export function encodeRecords(records: readonly UsageRecord[]): Buffer | null {
  if (records.length === 0) return null;
  const w = new SegmentWriter();
  for (const r of records) w.add(r);
  return toBuffer(w.finish());
}

export function toBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** Log what an update to `gen` did to a file's records (file_changes), keeping the last MAX_CHANGES_PER_FILE. */
export function logChange(s: Statements, fileId: number, gen: number, removed: Buffer | null, added: readonly Uint8Array[]): void {
  let addedBlob: Buffer | null = null;
  if (added.length > 0) {
    addedBlob = Buffer.allocUnsafe(added.reduce((n, a) => n + 4 + a.byteLength, 0));
    let o = 0;
    for (const a of added) {
      addedBlob.writeUInt32LE(a.byteLength, o);
      addedBlob.set(a, o + 4);
      o += 4 + a.byteLength;
    }
  }
  s.insertChange.run(fileId, gen, removed, addedBlob);
  s.pruneChanges.run(fileId, gen - MAX_CHANGES_PER_FILE);
}

/**
 * What the updates of a file after `fromGen` up to its current gen did to its records, oldest first, from
 * the log; undefined when the log does not reach back that far (a rewrite, pruned entries).
 */
export function changesSince(s: Statements, row: FileRow, fromGen: number): { added: UsageRecord[]; removed: UsageRecord[] }[] | undefined {
  if (fromGen >= row.gen || row.gen - fromGen > MAX_CHANGES_PER_FILE) return undefined;
  const rows = s.changes.all(row.id, fromGen, row.gen) as { gen: number; removed: Buffer | null; added: Buffer | null }[];
  if (rows.length !== row.gen - fromGen) return undefined;
  const cwd = row.cwd ?? undefined;
  return rows.map((c) => {
    const removed: UsageRecord[] = [];
    const added: UsageRecord[] = [];
    if (c.removed !== null) pushRecords(decodeSegment(c.removed), row.path, cwd, false, removed);
    if (c.added !== null) {
      for (let o = 0; o + 4 <= c.added.length; ) {
        const n = c.added.readUInt32LE(o);
        pushRecords(decodeSegment(c.added.subarray(o + 4, o + 4 + n)), row.path, cwd, false, added);
        o += 4 + n;
      }
    }
    return { added, removed };
  });
}

/** Every record a row holds now (live, then ledger), as read by `readFiles`. */
export function pushFile(s: Statements, row: FileRow, out: UsageRecord[]): void {
  const cwd = row.cwd ?? undefined;
  for (const data of s.segments.all(row.id) as Buffer[]) pushRecords(decodeSegment(data), row.path, cwd, row.deleted !== 0, out);
  const ledger = row.ledger_count > 0 ? (s.ledger.get(row.id) as Buffer | null) : null;
  if (ledger !== null) pushRecords(decodeSegment(ledger), row.path, cwd, true, out);
}

/** The ledger after a read from byte 0: old ledger and (same parser) old live usage whose key is gone. */
export function ledgerAfterRestart(s: Statements, row: FileRow, r: FileResult, decoded: Segment[]): { ledger: Uint8Array | null; ledgerCount: number } {
  const sameParser = row.parser === r.parser;
  const carry = sameParser && row.live_count > 0;
  if (!carry && row.ledger_count === 0) return { ledger: null, ledgerCount: 0 };
  const newKeys = new Set<string>();
  for (const seg of decoded) for (let i = 0; i < seg.count; i++) newKeys.add(segmentKey(seg, i));
  // Per key, the latest version: old ledger first, old live usage over it.
  const pick = new Map<string, [Segment, number]>();
  const ledger = row.ledger_count > 0 ? (s.ledger.get(row.id) as Buffer | null) : null;
  if (ledger !== null) {
    const seg = decodeSegment(ledger);
    for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
  }
  if (carry) {
    for (const data of s.segments.all(row.id) as Buffer[]) {
      const seg = decodeSegment(data);
      for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
    }
  }
  const w = new SegmentWriter();
  for (const [key, [seg, i]] of pick) if (!newKeys.has(key)) w.addFrom(seg, i);
  const count = w.count;
  return count === 0 ? { ledger: null, ledgerCount: 0 } : { ledger: w.finish(), ledgerCount: count };
}

/** Remove the last `n` live events of a file (copying them to `collect`); returns how many segments were deleted. */
export function dropTail(s: Statements, fileId: number, n: number, collect?: SegmentWriter): number {
  let left = n;
  let removed = 0;
  if (left <= 0) return 0;
  // Segment sizes first (a long session has dozens of segments; only the last one or two are read).
  for (const c of s.segmentCountsDesc.all(fileId) as { seq: number; count: number }[]) {
    if (left <= 0) break;
    const seg = c.count <= left && !collect ? undefined : decodeSegment(s.segmentData.get(fileId, c.seq) as Buffer);
    if (c.count <= left) {
      if (collect && seg) for (let i = 0; i < seg.count; i++) collect.addFrom(seg, i);
      s.deleteSegment.run(fileId, c.seq);
      left -= c.count;
      removed++;
    } else {
      const full = seg as Segment;
      const w = new SegmentWriter();
      for (let i = 0; i < full.count - left; i++) w.addFrom(full, i);
      if (collect) for (let i = full.count - left; i < full.count; i++) collect.addFrom(full, i);
      s.replaceSegment.run(w.count, toBuffer(w.finish()), fileId, c.seq);
      left = 0;
    }
  }
  return removed;
}

/** Merge a file's segments into one; returns the segment count (0 or 1). */
export function compact(s: Statements, fileId: number): number {
  const w = new SegmentWriter();
  for (const data of s.segments.all(fileId) as Buffer[]) {
    const seg = decodeSegment(data);
    for (let i = 0; i < seg.count; i++) w.addFrom(seg, i);
  }
  s.deleteSegments.run(fileId);
  if (w.count === 0) return 0;
  s.insertSegment.run(fileId, 0, w.count, toBuffer(w.finish()));
  return 1;
}
