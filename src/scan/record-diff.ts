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

/** `after` minus `before` (added) and `before` minus `after` (removed), as multisets. */
export function diffRecords(before: readonly UsageRecord[], after: readonly UsageRecord[]): { added: UsageRecord[]; removed: UsageRecord[] } {
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
