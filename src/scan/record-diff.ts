/**
 * Record multisets for incremental folds: what changed between two versions of a file's records, and the net
 * change of successive updates. Two records are the same when every field but `retained` is (the folds do
 * not read that flag), offsets included: the totals fold breaks ties by (file, offset).
 */
import type { UsageRecord } from './types.js';

/** What an update did to a file's records. */
export interface RecordChange {
  added: readonly UsageRecord[];
  removed: readonly UsageRecord[];
}

/** Identity of a record in a multiset. */
export function recordKey(r: UsageRecord): string {
  const { retained: _, ...rest } = r;
  return JSON.stringify(rest);
}

/**
 * Whether two records are the same (`recordKey` equal). Records decoded from the cache share one shape, so
 * most pairs are settled by their own keys and values, in order, without building either key; any other
 * pair (a field in another order, a `retained` flag on one side only, an object value) compares the keys.
 */
export function sameRecord(a: UsageRecord, b: UsageRecord): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  let same = ka.length === kb.length;
  for (let i = 0; same && i < ka.length; i++) {
    const k = ka[i] as keyof UsageRecord;
    const v = a[k];
    same = k === kb[i] && (k === 'retained' || (v === b[k] && (v === null || typeof v !== 'object')));
  }
  return same || recordKey(a) === recordKey(b);
}

/**
 * `after` minus `before` (added) and `before` minus `after` (removed), as multisets. The leading records the
 * two share, pair by pair, cancel out before any key is built: a file that grew (the native engine re-read
 * it whole, src/cache/store.ts) was a diff of every record's JSON and its garbage, most of the store's
 * apply on a warm report after an append (bench/RESULTS.md, "After +1 MB at 34 MB"). Taking equal pairs out
 * of both multisets leaves their difference as it was; of equal records, which copy is named removed does
 * not matter (they are the same).
 */
export function diffRecords(before: readonly UsageRecord[], after: readonly UsageRecord[]): { added: UsageRecord[]; removed: UsageRecord[] } {
  let p = 0;
  while (p < before.length && p < after.length && sameRecord(before[p] as UsageRecord, after[p] as UsageRecord)) p++;
  if (p === before.length) return { added: after.slice(p), removed: [] };
  return diffTails(before.slice(p), after.slice(p));
}

function diffTails(before: readonly UsageRecord[], after: readonly UsageRecord[]): { added: UsageRecord[]; removed: UsageRecord[] } {
  const left = new Map<string, number>();
  for (const r of before) {
    const k = recordKey(r);
    left.set(k, (left.get(k) ?? 0) + 1);
  }
  const added: UsageRecord[] = [];
  for (const r of after) {
    const k = recordKey(r);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else added.push(r);
  }
  const removed: UsageRecord[] = [];
  for (const r of before) {
    const k = recordKey(r);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      removed.push(r);
    }
  }
  return { added, removed };
}

/**
 * The net change of successive updates to one file: a record added by one update and removed by a later one
 * was never there for the consumer; a record removed and added back identical (a replaced tail re-read as it
 * was) is no change at all, and is in neither list.
 */
export function netChange(steps: readonly RecordChange[]): { added: UsageRecord[]; removed: UsageRecord[] } {
  if (steps.length === 1) {
    const only = steps[0] as RecordChange;
    if (only.removed.length === 0 || only.added.length === 0) return { added: [...only.added], removed: [...only.removed] };
  }
  const added = new Map<string, UsageRecord[]>();
  const removed: [string, UsageRecord][] = [];
  for (const step of steps) {
    for (const r of step.removed) {
      const k = recordKey(r);
      const pending = added.get(k);
      if (pending !== undefined && pending.length > 0) pending.pop();
      else removed.push([k, r]);
    }
    for (const r of step.added) {
      const k = recordKey(r);
      const list = added.get(k);
      if (list === undefined) added.set(k, [r]);
      else list.push(r);
    }
  }
  const outRemoved: UsageRecord[] = [];
  for (const [k, r] of removed) {
    const twins = added.get(k);
    if (twins !== undefined && twins.length > 0) twins.pop();
    else outRemoved.push(r);
  }
  const outAdded: UsageRecord[] = [];
  for (const list of added.values()) for (const r of list) outAdded.push(r);
  return { added: outAdded, removed: outRemoved };
}
