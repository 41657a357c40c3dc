import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blankUsageEvent, type UsageEvent } from '../cursors/protocol/events.js';
import { decodeSegment, pushRecords, segmentCount, segmentKey, SegmentWriter } from '../src/scan/segment.js';
import type { UsageRecord } from '../src/scan/types.js';

const eventArb: fc.Arbitrary<UsageEvent> = fc
  .record(
    {
      agent: fc.constantFrom('claude', 'codex'),
      sessionId: fc.string({ maxLength: 40 }),
      offset: fc.maxSafeNat(),
      model: fc.oneof(fc.constantFrom('claude-sonnet-4-5', 'gpt-5-codex'), fc.string()),
      modelFallback: fc.boolean(),
      provider: fc.constantFrom('anthropic', 'openai'),
      timestamp: fc.constantFrom('2026-01-01T00:00:00.000Z', '2025-12-31T23:59:59.999Z'),
      inputTokens: fc.maxSafeNat(),
      outputTokens: fc.nat(),
      reasoningTokens: fc.nat(),
      cacheReadTokens: fc.nat(),
      cacheWriteTokens: fc.nat(),
      cacheWrite1hTokens: fc.nat(),
      costUsd: fc.double({ noNaN: true, noDefaultInfinity: true }),
      singleRequest: fc.boolean(),
      // Full Unicode, lone surrogates included: the encoding must round-trip every JS string.
      dedupKey: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 30 }),
      messageId: fc.string({ unit: 'grapheme', maxLength: 20 }),
      copied: fc.constant(true),
    },
    { requiredKeys: ['agent', 'sessionId', 'offset', 'model', 'timestamp', 'inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens', 'cacheWrite1hTokens', 'singleRequest', 'dedupKey'] },
  )
  .map((r) => ({ type: 'usage' as const, ...r }));

function roundTrip(events: UsageEvent[], file = '/f', cwd?: string): UsageRecord[] {
  const w = new SegmentWriter();
  for (const e of events) w.add(e);
  const bytes = w.finish();
  expect(segmentCount(bytes)).toBe(events.length);
  const out: UsageRecord[] = [];
  pushRecords(decodeSegment(bytes), file, cwd, false, out);
  return out;
}

describe('usage segments', () => {
  it('round-trip every field, optional ones present or absent, any string', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), (events) => {
        expect(roundTrip(events, '/x.jsonl', '/cwd')).toEqual(events.map((e) => ({ ...e, file: '/x.jsonl', cwd: '/cwd' })));
      }),
    );
  });

  it('keeps an explicit modelFallback: false apart from an absent one', () => {
    const base = eventArb.filter(() => true);
    const [e] = fc.sample(base, { numRuns: 1, seed: 3 }) as [UsageEvent];
    const { modelFallback: _drop, ...without } = e;
    const out = roundTrip([{ ...e, modelFallback: false }, without as UsageEvent]);
    expect(out[0]).toHaveProperty('modelFallback', false);
    expect(out[1]!.modelFallback).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out[1]))).not.toHaveProperty('modelFallback');
  });

  it('decodes every record on the shape of a record read from its file', () => {
    // asRecords: an event built on blankUsageEvent(), then file, then cwd when known.
    const read = Object.assign(blankUsageEvent(), { file: '/f', cwd: '/c' });
    const [e] = fc.sample(eventArb, { numRuns: 1, seed: 11 }) as [UsageEvent];
    const { provider: _p, costUsd: _c, messageId: _m, modelFallback: _f, ...bare } = e;
    for (const r of roundTrip([e, bare as UsageEvent], '/f', '/c')) expect(Object.keys(r)).toEqual(Object.keys(read));
  });

  it('round-trips a lone surrogate in a segment that also holds multi-byte text', () => {
    const e = fc.sample(eventArb, { numRuns: 1, seed: 9 })[0] as UsageEvent;
    const events = [
      { ...e, dedupKey: 'a\ud800b', messageId: '世界🙂' },
      { ...e, dedupKey: 'é', sessionId: '\udfff' },
    ];
    expect(roundTrip(events)).toEqual(events.map((x) => ({ ...x, file: '/f' })));
  });

  it('decodes from an unaligned buffer, such as a BLOB read back from SQLite', () => {
    const e = fc.sample(eventArb, { numRuns: 2, seed: 5 }) as UsageEvent[];
    const w = new SegmentWriter();
    for (const x of e) w.add(x);
    const bytes = w.finish();
    const shifted = Buffer.alloc(bytes.length + 3);
    shifted.set(bytes, 3);
    const out: UsageRecord[] = [];
    pushRecords(decodeSegment(shifted.subarray(3)), '/f', undefined, true, out);
    expect(out).toEqual(e.map((x) => ({ ...x, file: '/f', retained: true })));
  });

  it('copies events between segments and reads their dedup keys', () => {
    const events = fc.sample(eventArb, { numRuns: 10, seed: 11 }) as UsageEvent[];
    const w = new SegmentWriter();
    for (const x of events) w.add(x);
    const seg = decodeSegment(w.finish());
    expect(Array.from({ length: seg.count }, (_, i) => segmentKey(seg, i))).toEqual(events.map((x) => x.dedupKey));
    const copy = new SegmentWriter();
    for (let i = 0; i < seg.count; i += 2) copy.addFrom(seg, i);
    const out: UsageRecord[] = [];
    pushRecords(decodeSegment(copy.finish()), '/f', undefined, false, out);
    expect(out).toEqual(events.filter((_, i) => i % 2 === 0).map((x) => ({ ...x, file: '/f' })));
  });

  it('rejects bytes that are not a segment', () => {
    expect(() => decodeSegment(new Uint8Array(64))).toThrow(/magic/);
    expect(() => decodeSegment(new Uint8Array(4))).toThrow(/truncated/);
    const w = new SegmentWriter();
    w.add(fc.sample(eventArb, { numRuns: 1, seed: 1 })[0] as UsageEvent);
    const bytes = w.finish();
    expect(() => decodeSegment(bytes.subarray(0, bytes.length - 1))).toThrow(/length/);
  });

  it('encodes an empty segment', () => {
    expect(roundTrip([])).toEqual([]);
  });
});
