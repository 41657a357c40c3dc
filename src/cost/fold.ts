/**
 * The totals fold: usage records in, one CostSummary out (the spec's, extended with cache reads/writes,
 * request and unpriced counts, and `unpriced` usage listed by model).
 *
 * Why a columnar ledger: the same response appears in several files (resumed and forked sessions copy
 * history), and which copy counts (the one with most output tokens, then most tokens, then the smallest
 * (file, offset), so the answer never depends on scan order) is known only when the stream ends. So each
 * dedup key gets a slot of typed-array columns (~90 bytes, no per-event object kept alive) that a larger
 * copy overwrites, and the running totals (fold-totals.ts) take the old copy away and add the new one.
 * Money is summed in integer nano-dollars, so totals are exact sums of the rounded event prices, independent
 * of the order events arrive in (the worker pool's order varies run to run).
 *
 * A fold's state can be exported and restored (fold-state.ts): a restored fold reads a chunk's columns only
 * when one of its slots is compared, and holds back the records it is given (up to MAX_PENDING) to find
 * their slots in one pass over the key hashes instead of rebuilding its whole dedup table.
 *
 * `createCostFold()` is the pure, synchronous core; `foldCost()` is its async wrapper.
 */
import type { UsageRecord } from '../scan/types.js';
import { createRecordSelector, hashRecordKey, normalizeCostOptions, recordTime, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import {
  CHUNK_SLOTS,
  FOLD_STATE_VERSION,
  chunkCountOf,
  columnSeq,
  decodeColumns,
  decodeHeaderAndHashes,
  encodeColumns,
  encodeHashes,
  hashSeq,
  type ExportedFoldState,
  type FoldStateHeader,
  type StoredFoldState,
} from './fold-state.js';
import { FoldTotals, T_CACHE_READ, T_CACHE_WRITE, T_CACHE_WRITE_1H, T_IN, T_NANO_USD, T_OUT, T_REASONING, T_REQUESTS, T_UNPRICED } from './fold-totals.js';
import { HASH, KeyTable } from './key-table.js';
import type { CostBreakdown, CostRecord, CostSummary, UnpricedUsage } from './types.js';

/** Records a restored fold holds back before it rebuilds its dedup table (see `add`). */
const MAX_PENDING = 4096;
/** In the small key table of held-back records: a key no slot has yet. */
const NOT_FOUND = 0x7ffffffe;

/** Group key of records without a value for the dimension (no cwd, no tags, no timestamp). */
export const UNKNOWN_GROUP = '(unknown)';
/** Tag group of sessions without tags. */
export const UNTAGGED_GROUP = '(untagged)';

const F_IN = 0;
const F_OUT = 1;
const F_REASONING = 2;
const F_CACHE_READ = 3;
const F_CACHE_WRITE = 4;
const F_CACHE_WRITE_1H = 5;
const F_NANO_USD = 6;
const F_OFFSET = 7;
const NF = 8;
const I_GROUPS = 0;
const I_SESSION = 1;
const I_FILE = 2;
/** Interned unpriced (model, provider), or -1 when priced. */
const I_UNPRICED = 3;
const NI = 4;

/** Interns strings to dense ints. */
class Interner {
  readonly values: string[] = [];
  readonly #ids = new Map<string, number>();
  constructor(values: readonly string[] = []) {
    for (const v of values) this.id(v);
  }
  id(s: string): number {
    let i = this.#ids.get(s);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(s);
      this.#ids.set(s, i);
    }
    return i;
  }
}

/** A zero CostRecord (also the SessionManager's per-session and per-message start). */
export function emptyCostRecord(): CostRecord {
  return {
    totalUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    thinkingTokens: 0,
    cachedTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    requestCount: 0,
    unpricedCount: 0,
  };
}

/** A zero-valued summary (what a selection without usage folds to). */
export function emptyCostSummary(grouped: boolean): CostSummary {
  return { ...emptyCostRecord(), sessionCount: 0, runCount: 0, unpriced: [], ...(grouped && { breakdowns: {} }) };
}

/** The synchronous totals fold (`createCostFold`). */
export interface CostFold {
  readonly options: NormalizedCostOptions;
  /** Fold one record (records the selection rejects are ignored). */
  add(record: UsageRecord): void;
  /** Records folded so far (before dedup), and how many distinct dedup keys. */
  readonly counts: { records: number; selected: number; keys: number };
  /** The summary of everything added so far. */
  result(): CostSummary;
  /**
   * True when the copy this fold counts for `r`'s dedup key is `r` itself (same file, offset and tokens), so
   * taking `r` away would change the result. False when `r` is not selected or another copy counts.
   */
  holds(r: UsageRecord): boolean;
  /**
   * The fold's state: `createCostFold(sameOptions, stored)` goes on from here. `changedOnly`: only the pieces
   * that changed since this fold was restored (every piece for a fresh fold).
   */
  exportState(changedOnly?: boolean): ExportedFoldState;
  /**
   * The state last exported is now the stored one (its pieces all written): a later `exportState(true)` names
   * only what changes after this call. For a fold kept in memory across runs (`sessionfold serve`).
   */
  rebase(): void;
}

export type { StoredFoldState } from './fold-state.js';

/**
 * The synchronous core of the totals fold.
 * @example
 * const fold = createCostFold({ groupBy: 'day', timeZone: 'UTC' });
 * for (const r of records) fold.add(r);
 * const summary = fold.result();
 *
 * `state` (from `exportState()` of a fold with the same options) restores a fold; a state that does not
 * decode is a RangeError.
 */
export function createCostFold(options: CostFoldOptions = {}, state?: StoredFoldState): CostFold {
  const n = normalizeCostOptions(options);
  const sel = createRecordSelector(n);
  const cal = n.calendar;
  const capacity = (slots: number) => Math.max(1024, slots * 2);
  const restored = state === undefined ? undefined : decodeHeaderAndHashes(state.header, state.hashes, capacity);
  const h = restored?.header;
  const files = new Interner(h?.files);
  const sessions = new Interner(h?.sessions);
  const groups = new Interner(h?.groups);
  const groupSets: number[][] = h?.groupSets ?? [[]]; // 0: no groups (ungrouped fold)
  const groupSetIds = new Map<string, number>(h?.tagSets);
  const unpricedModels = new Interner(h?.unpriced);
  const totals = h === undefined ? new FoldTotals() : FoldTotals.fromJSON(h.totals, { sessions: h.sessions.length, files: h.files.length });
  let slots = h?.slots ?? 0;
  let f = new Float64Array(capacity(slots) * NF);
  let ints = new Int32Array(capacity(slots) * NI);
  /** Each slot's key hash (hi, lo): what the stored state keeps instead of the hash table. */
  let hashes = restored?.hashes ?? new Uint32Array(1024 * 2);
  // The dedup table of a restored fold is rebuilt from the slots' hashes only when many records come.
  let keyTable: KeyTable | undefined;
  const table = (): KeyTable => {
    if (keyTable === undefined) {
      keyTable = new KeyTable(Math.max(1 << 16, slots));
      for (let i = 0; i < slots; i++) keyTable.setHash(hashes[2 * i] as number, hashes[2 * i + 1] as number, i);
    }
    return keyTable;
  };
  const counts = h?.counts ?? { records: 0, selected: 0, keys: 0 };
  /** Slots the state was restored with (or last `rebase`d at); the chunks among them whose columns are read, and changed. */
  let restoredSlots = slots;
  let loaded = new Uint8Array(chunkCountOf(restoredSlots));
  const dirtyChunks = new Set<number>();
  /** Read the columns of a restored slot's chunk before they are compared or rewritten. */
  const ensure = (slot: number): void => {
    if (slot >= restoredSlots || state === undefined) return;
    const c = Math.floor(slot / CHUNK_SLOTS);
    if (loaded[c] === 1) return;
    decodeColumns(state.columns(c), f, ints, restoredSlots, c, NF, NI);
    loaded[c] = 1;
  };

  /** Group set of a record with one group (all dimensions but tag); cached for the last key seen. */
  const singleGroupIds = new Map<string, number>(h?.single);
  let lastGroupKey: string | undefined;
  let lastGroupSet = -1;
  const singleGroupSet = (key: string): number => {
    if (key === lastGroupKey) return lastGroupSet;
    let id = singleGroupIds.get(key);
    if (id === undefined) {
      id = groupSets.length;
      groupSets.push([groups.id(key)]);
      singleGroupIds.set(key, id);
    }
    lastGroupKey = key;
    lastGroupSet = id;
    return id;
  };
  const tagGroupSet = (tags: readonly string[]): number => {
    const k = tags.join('\u0000');
    let id = groupSetIds.get(k);
    if (id === undefined) {
      id = groupSets.length;
      groupSets.push(tags.map((g) => groups.id(g)));
      groupSetIds.set(k, id);
    }
    return id;
  };

  const groupSetOf = (r: UsageRecord, ms: number): number => {
    switch (n.groupBy) {
      case undefined:
        return 0;
      case 'agent':
        return singleGroupSet(r.agent);
      case 'model':
        return singleGroupSet(r.model);
      case 'day':
        return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.dayKey(ms));
      case 'week':
        return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.weekKey(ms));
      case 'month':
        return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.monthKey(ms));
      case 'session':
        return singleGroupSet(sessions.values[sessionOf(r)] as string);
      case 'project':
        return singleGroupSet(r.cwd ?? UNKNOWN_GROUP);
      case 'tag': {
        const t = sel.tagsOf(r);
        return t.length > 0 ? tagGroupSet(t) : singleGroupSet(UNTAGGED_GROUP);
      }
    }
  };
  const timeGrouped = n.groupBy === 'day' || n.groupBy === 'week' || n.groupBy === 'month';

  // Records of one file arrive together: remember the last file and session instead of hashing them again.
  let lastFile: string | undefined;
  let lastFileId = -1;
  let lastAgent: string | undefined;
  let lastSessionId: string | undefined;
  let lastSession = -1;
  const fileOf = (r: UsageRecord): number => {
    if (r.file !== lastFile) {
      lastFile = r.file;
      lastFileId = files.id(r.file);
    }
    return lastFileId;
  };
  const sessionOf = (r: UsageRecord): number => {
    if (r.sessionId !== lastSessionId || r.agent !== lastAgent) {
      lastAgent = r.agent;
      lastSessionId = r.sessionId;
      lastSession = sessions.id(`${r.agent}:${r.sessionId}`);
    }
    return lastSession;
  };

  /** Count (`sign` 1) or uncount (-1) the copy in `slot` in the running totals (no object per event). */
  const account = (slot: number, sign: 1 | -1): void => {
    const i = slot * NI;
    totals.account(f, slot * NF, groupSets[ints[i + I_GROUPS] as number] as number[], ints[i + I_SESSION] as number, ints[i + I_FILE] as number, ints[i + I_UNPRICED] as number, sign);
  };

  /** Count `r` in `slot`: a new slot (`replace` false), or in place of the copy there. */
  const write = (slot: number, r: UsageRecord, ms: number, replace: boolean): void => {
    if (slot < restoredSlots) dirtyChunks.add(Math.floor(slot / CHUNK_SLOTS));
    if (replace) account(slot, -1);
    const usd = n.pricer.priceUsd(r, n.mode);
    const b = slot * NF;
    f[b + F_IN] = r.inputTokens;
    f[b + F_OUT] = r.outputTokens;
    f[b + F_REASONING] = r.reasoningTokens;
    f[b + F_CACHE_READ] = r.cacheReadTokens;
    f[b + F_CACHE_WRITE] = r.cacheWriteTokens;
    f[b + F_CACHE_WRITE_1H] = r.cacheWrite1hTokens;
    f[b + F_NANO_USD] = Number.isNaN(usd) ? 0 : Math.round(usd * 1e9);
    f[b + F_OFFSET] = r.offset;
    const i = slot * NI;
    ints[i + I_GROUPS] = groupSetOf(r, ms);
    ints[i + I_SESSION] = sessionOf(r);
    ints[i + I_FILE] = fileOf(r);
    ints[i + I_UNPRICED] = Number.isNaN(usd) ? unpricedModels.id(`${r.model}\u0000${r.provider ?? ''}`) : -1;
    account(slot, 1);
  };

  /** True when `r` should replace the copy in `slot`. */
  const beats = (r: UsageRecord, slot: number): boolean => {
    ensure(slot);
    const b = slot * NF;
    const out = f[b + F_OUT] as number;
    if (r.outputTokens !== out) return r.outputTokens > out;
    const total = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
    const old = (f[b + F_IN] as number) + out + (f[b + F_CACHE_READ] as number) + (f[b + F_CACHE_WRITE] as number);
    if (total !== old) return total > old;
    const oldFile = files.values[ints[slot * NI + I_FILE] as number] as string;
    if (r.file !== oldFile) return r.file < oldFile;
    return r.offset < (f[b + F_OFFSET] as number);
  };

  /** A new slot for a key not seen yet. */
  const insert = (hi: number, lo: number, r: UsageRecord, ms: number): void => {
    if (slots * NF >= f.length) {
      const nf = new Float64Array(f.length * 2);
      nf.set(f);
      f = nf;
      const ni = new Int32Array(ints.length * 2);
      ni.set(ints);
      ints = ni;
      const nh = new Uint32Array(hashes.length * 2);
      nh.set(hashes);
      hashes = nh;
    }
    hashes[2 * slots] = hi;
    hashes[2 * slots + 1] = lo;
    write(slots, r, ms, false);
    slots++;
    counts.keys = slots;
  };

  /** Fold a selected, hashed record against `keys` (NOT_FOUND marks a key without a slot yet). */
  const addHashed = (keys: KeyTable, r: UsageRecord, ms: number, hi: number, lo: number): void => {
    const existing = keys.getHash(hi, lo);
    if (existing >= 0 && existing !== NOT_FOUND) {
      if (beats(r, existing)) write(existing, r, ms, true);
      return;
    }
    insert(hi, lo, r, ms);
    keys.setHash(hi, lo, slots - 1);
  };

  /** Records a restored fold holds before its dedup table is needed (see `add`). */
  const pending: { r: UsageRecord; ms: number; hi: number; lo: number }[] = [];
  const flushPending = (): void => {
    if (pending.length === 0) return;
    if (keyTable !== undefined) {
      for (const p of pending.splice(0)) addHashed(keyTable, p.r, p.ms, p.hi, p.lo);
      return;
    }
    // Their keys in a small table, then one pass over every slot's hash finds the ones already counted.
    const want = new KeyTable(pending.length);
    for (const p of pending) want.setHash(p.hi, p.lo, NOT_FOUND);
    for (let i = 0; i < slots; i++) {
      const hi = hashes[2 * i] as number;
      const lo = hashes[2 * i + 1] as number;
      if (want.getHash(hi, lo) === NOT_FOUND) want.setHash(hi, lo, i);
    }
    for (const p of pending.splice(0)) addHashed(want, p.r, p.ms, p.hi, p.lo);
  };

  return {
    options: n,
    counts,
    add(r: UsageRecord): void {
      counts.records++;
      const ms = sel.needsTime || timeGrouped ? recordTime(r) : NaN;
      if (!sel.accepts(r, ms)) return;
      counts.selected++;
      hashRecordKey(r);
      const hi = HASH[0] as number;
      const lo = HASH[1] as number;
      if (keyTable === undefined && restoredSlots > 0) {
        // A restored fold given a few records (a warm run after an append): hold them, and find their
        // slots in one pass over the slots' hashes instead of rebuilding the whole dedup table.
        if (pending.length < MAX_PENDING) {
          pending.push({ r, ms, hi, lo });
          return;
        }
        flushPending();
      }
      addHashed(table(), r, ms, hi, lo);
    },
    holds(r: UsageRecord): boolean {
      flushPending();
      const ms = sel.needsTime || timeGrouped ? recordTime(r) : NaN;
      if (!sel.accepts(r, ms)) return false;
      hashRecordKey(r);
      const slot = table().getHash(HASH[0] as number, HASH[1] as number);
      if (slot < 0) return false;
      ensure(slot);
      const b = slot * NF;
      return (
        files.values[ints[slot * NI + I_FILE] as number] === r.file &&
        f[b + F_OFFSET] === r.offset &&
        f[b + F_IN] === r.inputTokens &&
        f[b + F_OUT] === r.outputTokens &&
        f[b + F_REASONING] === r.reasoningTokens &&
        f[b + F_CACHE_READ] === r.cacheReadTokens &&
        f[b + F_CACHE_WRITE] === r.cacheWriteTokens &&
        f[b + F_CACHE_WRITE_1H] === r.cacheWrite1hTokens
      );
    },
    exportState(changedOnly = false): ExportedFoldState {
      flushPending();
      const header: FoldStateHeader = {
        version: FOLD_STATE_VERSION,
        slots,
        counts,
        files: files.values,
        sessions: sessions.values,
        groups: groups.values,
        unpriced: unpricedModels.values,
        groupSets,
        single: [...singleGroupIds],
        tagSets: [...groupSetIds],
        totals: totals.toJSON(),
      };
      const chunkCount = chunkCountOf(slots);
      const pieces = new Map<number, () => Buffer>();
      // Chunks from the one the first new slot fell in are new or grew; before it, only rewritten slots.
      const firstGrown = changedOnly && slots === restoredSlots ? chunkCount : Math.floor(restoredSlots / CHUNK_SLOTS);
      for (let c = 0; c < chunkCount; c++) {
        const grown = !changedOnly || c >= firstGrown;
        if (!grown && !dirtyChunks.has(c)) continue;
        if (grown) pieces.set(hashSeq(c), () => encodeHashes(hashes, slots, c));
        pieces.set(columnSeq(c), () => {
          if (c * CHUNK_SLOTS < restoredSlots) ensure(c * CHUNK_SLOTS);
          return encodeColumns(f, ints, slots, c, NF, NI);
        });
      }
      return { header: JSON.stringify(header), pieces, seqCount: 2 * chunkCount };
    },
    rebase(): void {
      flushPending();
      // In memory: the chunks read so far, and every chunk made here whole (from the first one past the
      // restored slots). The chunk the restored slots ended in was read when its grown piece was written.
      const chunkCount = chunkCountOf(slots);
      const next = new Uint8Array(chunkCount);
      next.set(loaded.subarray(0, Math.min(loaded.length, chunkCount)));
      for (let c = Math.ceil(restoredSlots / CHUNK_SLOTS); c < chunkCount; c++) next[c] = 1;
      if (restoredSlots % CHUNK_SLOTS !== 0 && slots > restoredSlots) next[Math.floor(restoredSlots / CHUNK_SLOTS)] = 1;
      loaded = next;
      restoredSlots = slots;
      dirtyChunks.clear();
    },
    result(): CostSummary {
      flushPending();
      const fill = (rec: CostRecord, t: Float64Array): void => {
        rec.inputTokens = t[T_IN] as number;
        rec.outputTokens = t[T_OUT] as number;
        rec.thinkingTokens = t[T_REASONING] as number;
        rec.cacheReadTokens = t[T_CACHE_READ] as number;
        rec.cacheWriteTokens = t[T_CACHE_WRITE] as number;
        rec.cacheWrite1hTokens = t[T_CACHE_WRITE_1H] as number;
        rec.requestCount = t[T_REQUESTS] as number;
        rec.unpricedCount = t[T_UNPRICED] as number;
        rec.totalUsd = (t[T_NANO_USD] as number) / 1e9;
        rec.cachedTokens = rec.cacheReadTokens + rec.cacheWriteTokens;
      };
      const total = emptyCostSummary(n.groupBy !== undefined);
      fill(total, totals.total);
      total.sessionCount = totals.sessions.size;
      total.runCount = totals.files.size;
      const unpriced: UnpricedUsage[] = [];
      for (const [u, v] of totals.unpriced) {
        const [model, provider] = (unpricedModels.values[u] as string).split('\u0000') as [string, string];
        unpriced.push({ model, ...(provider !== '' && { provider }), count: v[0] as number, inputTokens: v[1] as number, outputTokens: v[2] as number, cacheReadTokens: v[3] as number, cacheWriteTokens: v[4] as number });
      }
      total.unpriced = unpriced.sort((a, b) => b.count - a.count || a.model.localeCompare(b.model));
      if (n.groupBy !== undefined) {
        const rows: CostBreakdown[] = [];
        for (const [g, e] of totals.groups) {
          const rec: CostBreakdown = { key: groups.values[g] as string, ...emptyCostRecord(), sessionCount: e.sessions.size };
          fill(rec, e.t);
          rows.push(rec);
        }
        const chronological = n.groupBy === 'day' || n.groupBy === 'week' || n.groupBy === 'month';
        rows.sort(chronological ? (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : (a, b) => b.totalUsd - a.totalUsd || (a.key < b.key ? -1 : 1));
        const breakdowns: Record<string, CostBreakdown> = {};
        for (const r of rows) breakdowns[r.key] = r;
        total.breakdowns = breakdowns;
      }
      return total;
    },
  };
}

/**
 * Fold usage records into a CostSummary: any iterable or async iterable of records or of record batches
 * (`scanUsage()`, `scanUsageBatches()`, an array).
 * @example
 * const summary = await foldCost(scanUsage({ agents: ['claude'] }), { groupBy: 'model', since: new Date('2026-01-01') });
 * console.log(summary.totalUsd, summary.breakdowns);
 */
export async function foldCost(records: AsyncIterable<UsageRecord | readonly UsageRecord[]> | Iterable<UsageRecord | readonly UsageRecord[]>, options: CostFoldOptions = {}): Promise<CostSummary> {
  const fold = createCostFold(options);
  for await (const r of records) {
    if (Array.isArray(r)) for (const x of r as readonly UsageRecord[]) fold.add(x);
    else fold.add(r as UsageRecord);
  }
  return fold.result();
}
