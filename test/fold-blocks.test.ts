/**
 * The cost fold's `addBlock` (a native engine's block decoded onto one object the fold reuses) against `add`
 * of every record as an object of its own: the same summary and the same exported state, fresh and restored
 * (a restored fold holds records back, so it must give them objects of their own), whatever the grouping.
 * The blocks here are made from records, so the fold is tested apart from the engines (test/native-engines
 * holds an engine's block to its events).
 */
import { describe, expect, it } from 'vitest';
import type { UsageBlock } from '../cursors/protocol/codec.js';
import { resetUsageEvent, type UsageEvent } from '../cursors/protocol/events.js';
import { createCostFold, drainBlocks } from '../src/cost/fold.js';
import { eventTime, type CostFoldOptions } from '../src/cost/filter.js';
import type { StoredFoldState } from '../src/cost/fold.js';
import { hashKey } from '../src/key-table.js';
import { parseOverrides } from '../src/cost/overrides.js';
import { createPricer } from '../src/cost/pricing.js';
import { blankBlockRecord, blockRecords, KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type UsageRecord, type UsageRecordBlock } from '../src/scan/types.js';
import { usageRecord } from './helpers/usage-record.js';

const pricer = createPricer({
  mode: 'auto',
  overrides: parseOverrides({ models: { alpha: { input_mtok: 1, output_mtok: 10, cache_read_mtok: 0.1, cache_write_mtok: 1.25 }, beta: { input_mtok: 2, output_mtok: 20 } } }, '<test>'),
});

/** The i-th event of a varied history: optional fields set on some and not the next, copies of one response across files. */
function event(i: number): UsageEvent {
  const r = usageRecord(i, {
    sessionId: `s${i % 5}`,
    model: ['alpha', 'beta', 'gamma'][i % 3] as string,
    timestamp: `2026-01-${String(10 + (i % 4)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00.000Z`,
    inputTokens: 100 + (i % 13),
    outputTokens: 10 + (i % 9) * 7,
    reasoningTokens: i % 4,
    cacheReadTokens: (i % 6) * 50,
    cacheWriteTokens: (i % 5) * 20,
    cacheWrite1hTokens: i % 5,
    // every third response comes again in a later file, larger or not
    dedupKey: `k${i % 3 === 0 ? i : i - (i % 3)}`,
  });
  const { file: _f, cwd: _c, ...e } = r;
  if (i % 4 === 1) e.costUsd = 0.001 * (i % 7);
  if (i % 7 === 2) e.speed = 'fast';
  if (i % 5 === 3) e.webSearchRequests = 2;
  if (i % 2 === 0) e.messageId = `m${i}`;
  if (i % 3 === 1) e.provider = 'anthropic';
  if (i % 11 === 4) e.modelFallback = true;
  return e;
}

/** A block of `events` as an engine's would decode them: every field overwritten, hints on some. */
function blockOf(events: readonly UsageEvent[]): UsageBlock {
  return {
    count: events.length,
    decode(k, into) {
      const e = events[k] as UsageEvent;
      const r = Object.assign(resetUsageEvent(into), e) as UsageRecord;
      const hinted = k % 2 === 0;
      const [hi, lo] = hinted ? hashKey(e.dedupKey) : [NaN, NaN];
      r[KEY_HI] = hi;
      r[KEY_LO] = lo;
      r[KEY_OF] = e.dedupKey;
      r[TIME_MS] = hinted ? eventTime(e.timestamp) : NaN;
      r[TIME_OF] = e.timestamp;
      return r;
    },
  };
}

/** The history as blocks, a file each (one without a cwd), 7 events a file. */
function blocks(from: number, to: number): UsageRecordBlock[] {
  const out: UsageRecordBlock[] = [];
  for (let i = from; i < to; i += 7) {
    const events = Array.from({ length: Math.min(7, to - i) }, (_, k) => event(i + k));
    out.push({ block: blockOf(events), file: `/h/f${i % 4}-${i}.jsonl`, cwd: i % 3 === 0 ? undefined : `/work/p${i % 2}` });
  }
  return out;
}

function encoded(state: ReturnType<ReturnType<typeof createCostFold>['exportState']>): unknown {
  return { header: state.header, pieces: [...state.pieces].map(([q, encode]) => [q, [...encode()]]) };
}

function stored(state: ReturnType<ReturnType<typeof createCostFold>['exportState']>): StoredFoldState {
  const pieces = new Map([...state.pieces].map(([q, encode]) => [q, encode()]));
  const hashes: Buffer[] = [];
  for (let q = 0; q < state.seqCount; q += 2) hashes.push(pieces.get(q) as Buffer);
  return { header: state.header, hashes, columns: (c) => pieces.get(2 * c + 1) as Buffer };
}

const GROUPINGS: CostFoldOptions[] = [{}, { groupBy: 'day' }, { groupBy: 'session' }, { groupBy: 'project', breakdown: true }, { groupBy: 'model' }, { groupBy: 'day', since: new Date('2026-01-11T00:00:00Z'), model: 'al' }];

describe('addBlock', () => {
  it('folds a block as add folds its records, each an object of its own', async () => {
    const history = blocks(0, 400);
    // The records as the scan yields them when no consumer decodes: each its own object.
    const records = history.map(blockRecords);
    expect(new Set(records.flat()).size).toBe(400);
    expect(records.flat().map((r) => r.cwd)).toContain(undefined);
    for (const o of GROUPINGS) {
      const opts: CostFoldOptions = { pricer, timeZone: 'UTC', ...o };
      const byRecord = createCostFold(opts);
      for (const batch of records) for (const r of batch) byRecord.add(r);
      const byBlock = createCostFold(opts);
      await drainBlocks(
        (async function* () {
          yield* history;
        })(),
        byBlock,
      );
      expect(byBlock.counts).toEqual(byRecord.counts);
      expect(byBlock.result()).toEqual(byRecord.result());
      expect(encoded(byBlock.exportState())).toEqual(encoded(byRecord.exportState()));
      expect(byRecord.counts.selected).toBeGreaterThan(0);
    }
  });

  it('a restored fold given blocks holds their records back as objects of their own, and answers as a fresh fold', () => {
    const opts: CostFoldOptions = { pricer, timeZone: 'UTC', groupBy: 'day' };
    const first = createCostFold(opts);
    for (const u of blocks(0, 300)) first.addBlock(u);
    const restored = createCostFold(opts, stored(first.exportState()));
    // Larger copies of earlier responses and new ones, through addBlock on the restored fold.
    const more = blocks(300, 380);
    for (const u of more) restored.addBlock(u);
    const fresh = createCostFold(opts);
    for (const u of [...blocks(0, 300), ...more]) for (const r of blockRecords(u)) fresh.add(r);
    expect(restored.result()).toEqual(fresh.result());
    expect(restored.counts).toEqual(fresh.counts);
  });

  it('the record a fold decodes onto has the keys of a block record of its own (a cwd, if only undefined)', () => {
    const [u] = blocks(7, 14) as [UsageRecordBlock];
    expect(u.cwd).toBeDefined();
    const [own] = blockRecords(u) as [UsageRecord];
    const onto = u.block.decode(0, blankBlockRecord());
    expect(new Set(Reflect.ownKeys(onto))).toEqual(new Set(Reflect.ownKeys(own)));
  });
});
