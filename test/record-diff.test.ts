/**
 * The event cache's record diff (src/scan/record-diff.ts `diffRecords`): the leading records both versions
 * share cancel out before any key is built, and the result must be the plain multiset difference whatever
 * the two versions are. The reference here is that difference, counted by each record's JSON without
 * `retained` (the folds' notion of the same record), written without the shortcut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { diffRecords, sameRecord } from '../src/scan/record-diff.js';
import { decodeSegment, pushRecords, SegmentWriter } from '../src/scan/segment.js';
import type { UsageRecord } from '../src/scan/types.js';

/** The folds' identity of a record: every field but `retained`, as JSON (key order included). */
function identity(r: UsageRecord): string {
  const copy: Record<string, unknown> = { ...r };
  delete copy.retained;
  return JSON.stringify(copy);
}

/** `a` minus `b` as multisets of identities, sorted. */
function minus(a: readonly UsageRecord[], b: readonly UsageRecord[]): string[] {
  const left = new Map<string, number>();
  for (const r of b) left.set(identity(r), (left.get(identity(r)) ?? 0) + 1);
  const out: string[] = [];
  for (const r of a) {
    const n = left.get(identity(r)) ?? 0;
    if (n > 0) left.set(identity(r), n - 1);
    else out.push(identity(r));
  }
  return out.sort();
}

function expectMultisetDiff(before: UsageRecord[], after: UsageRecord[]): void {
  const d = diffRecords(before, after);
  expect(d.added.map(identity).sort()).toEqual(minus(after, before));
  expect(d.removed.map(identity).sort()).toEqual(minus(before, after));
}

/** Events as the store hands them to the diff: written to a segment and decoded (one shape for all). */
function decoded(events: readonly UsageEvent[], file = '/s.jsonl'): UsageRecord[] {
  const w = new SegmentWriter();
  for (const e of events) w.add(e);
  const out: UsageRecord[] = [];
  pushRecords(decodeSegment(w.finish()), file, '/w', false, out);
  return out;
}

// A small domain, so equal records (duplicates within a file, a line re-read as it was) are common.
const eventArb: fc.Arbitrary<UsageEvent> = fc
  .record({
    offset: fc.integer({ min: 0, max: 6 }),
    model: fc.constantFrom('claude-sonnet-4-5', 'gpt-5'),
    inputTokens: fc.integer({ min: 0, max: 3 }),
    outputTokens: fc.integer({ min: 0, max: 3 }),
    dedupKey: fc.constantFrom('a', 'b', 'c'),
  })
  .map((r) => ({
    type: 'usage' as const,
    agent: 'claude',
    sessionId: 's',
    timestamp: '2026-01-05T10:00:00.000Z',
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    singleRequest: true,
    ...r,
  }));

describe('diffRecords', () => {
  it('after an append: nothing removed, exactly the appended records added, in order', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), fc.array(eventArb, { maxLength: 10 }), (old, tail) => {
        const before = decoded(old);
        const after = decoded([...old, ...tail]);
        const d = diffRecords(before, after);
        expect(d.removed).toEqual([]);
        expect(d.added).toEqual(after.slice(old.length));
        expectMultisetDiff(before, after);
      }),
    );
  });

  it('after a truncation, a rewrite, a reorder or a new file: the multiset difference', () => {
    const change = fc.constantFrom('truncate', 'rewrite', 'shuffle', 'new', 'emptied');
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), fc.array(eventArb, { maxLength: 10 }), change, fc.nat(), (old, other, how, at) => {
        const cut = old.length === 0 ? 0 : at % old.length;
        const next =
          how === 'truncate'
            ? old.slice(0, cut)
            : how === 'rewrite'
              ? [...old.slice(0, cut), ...other, ...old.slice(cut + 1)]
              : how === 'shuffle'
                ? [...old.slice(cut), ...old.slice(0, cut)]
                : how === 'new'
                  ? other
                  : [];
        const before = how === 'new' ? [] : decoded(old);
        expectMultisetDiff(before, decoded(next));
        expectMultisetDiff(decoded(next), before);
      }),
    );
  });

  it('tells records apart as their JSON does: retained ignored, key order, NaN and object values', () => {
    const [base] = decoded(fc.sample(eventArb, { numRuns: 1, seed: 7 }));
    const r = base as UsageRecord;
    const reordered = Object.fromEntries(Object.entries(r).reverse()) as unknown as UsageRecord;
    const retained = { ...r, retained: true };
    const nan = { ...r, inputTokens: Number.NaN };
    const nullish = { ...r, inputTokens: null as unknown as number }; // JSON writes NaN as null
    const withObj = { ...r, extra: { a: 1 } } as UsageRecord;
    const withObjCopy = { ...r, extra: { a: 1 } } as UsageRecord;
    expect(sameRecord(r, { ...r })).toBe(true);
    expect(sameRecord(r, retained)).toBe(true);
    expect(sameRecord(retained, r)).toBe(true);
    expect(sameRecord(r, reordered)).toBe(identity(r) === identity(reordered));
    expect(sameRecord(nan, nullish)).toBe(true);
    expect(sameRecord(withObj, withObjCopy)).toBe(true);
    expect(sameRecord(r, { ...r, offset: r.offset + 1 })).toBe(false);
    for (const [a, b] of [
      [[r, r, nan], [retained, nullish, r]],
      [[r, withObj], [withObjCopy, reordered, r]],
      [[reordered, r], [r]],
    ] as UsageRecord[][][]) {
      expectMultisetDiff(a as UsageRecord[], b as UsageRecord[]);
    }
  });
});
