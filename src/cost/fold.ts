/**
 * The totals fold: usage records in, one CostSummary out (the spec's, extended with cache reads/writes,
 * request and unpriced counts, and `unpriced` usage listed by model).
 *
 * Why a columnar ledger: the same response appears in several files (resumed and forked sessions copy
 * history), and which copy counts (the one with most output tokens, then most tokens, then the smallest
 * (file, offset), so the answer never depends on scan order) is known only when the stream ends. So each
 * dedup key gets a slot of typed-array columns (~90 bytes, no per-event object kept alive) that a larger
 * copy overwrites; totals and breakdowns are summed from the slots at the end. Money is summed in integer
 * nano-dollars, so totals are exact sums of the rounded event prices, independent of the order events
 * arrive in (the worker pool's order varies run to run).
 *
 * `createCostFold()` is the pure, synchronous core; `foldCost()` is its async wrapper.
 */
import type { UsageRecord } from '../scan/types.js';
import { createRecordSelector, eventTime, normalizeCostOptions, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import { CHUNK_SLOTS, FOLD_STATE_VERSION, chunkCountOf, decodeFoldState, encodeChunk, type ExportedFoldState, type FoldStateHeader } from './fold-state.js';
import { HASH, KeyTable, hashInto } from './key-table.js';
import type { CostBreakdown, CostRecord, CostSummary, UnpricedUsage } from './types.js';

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
   * The fold's state: `createCostFold(sameOptions, { header, chunks })` goes on from here. `changedOnly`:
   * only the chunks that changed since this fold was restored (all of them for a fresh fold).
   */
  exportState(changedOnly?: boolean): ExportedFoldState;
}

/** A stored fold state: its header and all its chunks, in order (src/cost/fold-state.ts). */
export interface StoredFoldState {
  header: string;
  chunks: readonly Uint8Array[];
}

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
  const restored = state === undefined ? undefined : decodeFoldState(state.header, state.chunks, NF, NI, (slots) => Math.max(1024, slots * 2));
  const h = restored?.header;
  const files = new Interner(h?.files);
  const sessions = new Interner(h?.sessions);
  const groups = new Interner(h?.groups);
  const groupSets: number[][] = h?.groupSets ?? [[]]; // 0: no groups (ungrouped fold)
  const groupSetIds = new Map<string, number>(h?.tagSets);
  const unpricedModels = new Interner(h?.unpriced);
  let slots = h?.slots ?? 0;
  let f = restored?.floats ?? new Float64Array(1024 * NF);
  let ints = restored?.ints ?? new Int32Array(1024 * NI);
  /** Each slot's key hash (hi, lo): what the stored state keeps instead of the hash table. */
  let hashes = restored?.hashes ?? new Uint32Array(1024 * 2);
  // The dedup table of a restored fold is rebuilt from the slots' hashes on first use (a fold that only
  // answers `result()` never needs it).
  let keyTable: KeyTable | undefined;
  const table = (): KeyTable => {
    if (keyTable === undefined) {
      keyTable = new KeyTable(Math.max(1 << 16, slots));
      for (let i = 0; i < slots; i++) keyTable.setHash(hashes[2 * i] as number, hashes[2 * i + 1] as number, i);
    }
    return keyTable;
  };
  const counts = h?.counts ?? { records: 0, selected: 0, keys: 0 };
  /** Slots the state was restored with, and the chunks among them that changed since. */
  const restoredSlots = slots;
  const dirtyChunks = new Set<number>();

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

  const write = (slot: number, r: UsageRecord, ms: number): void => {
    if (slot < restoredSlots) dirtyChunks.add(Math.floor(slot / CHUNK_SLOTS));
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
  };

  /** True when `r` should replace the copy in `slot`. */
  const beats = (r: UsageRecord, slot: number): boolean => {
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

  return {
    options: n,
    counts,
    add(r: UsageRecord): void {
      counts.records++;
      const ms = sel.needsTime || timeGrouped ? eventTime(r.timestamp) : NaN;
      if (!sel.accepts(r, ms)) return;
      counts.selected++;
      hashInto(r.dedupKey);
      const hi = HASH[0] as number;
      const lo = HASH[1] as number;
      const keys = table();
      const existing = keys.getHash(hi, lo);
      if (existing >= 0) {
        if (beats(r, existing)) write(existing, r, ms);
        return;
      }
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
      keys.setHash(hi, lo, slots);
      hashes[2 * slots] = hi;
      hashes[2 * slots + 1] = lo;
      write(slots, r, ms);
      slots++;
      counts.keys = slots;
    },
    holds(r: UsageRecord): boolean {
      const ms = sel.needsTime || timeGrouped ? eventTime(r.timestamp) : NaN;
      if (!sel.accepts(r, ms)) return false;
      hashInto(r.dedupKey);
      const slot = table().getHash(HASH[0] as number, HASH[1] as number);
      if (slot < 0) return false;
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
      };
      const chunkCount = chunkCountOf(slots);
      const chunks = new Map<number, Buffer>();
      // Chunks from the one the first new slot fell in are new or grew; before it, only rewritten slots.
      const firstGrown = changedOnly && slots === restoredSlots ? chunkCount : Math.floor(restoredSlots / CHUNK_SLOTS);
      for (let c = 0; c < chunkCount; c++) {
        if (changedOnly && c < firstGrown && !dirtyChunks.has(c)) continue;
        chunks.set(c, encodeChunk({ hashes, floats: f, ints }, slots, c, NF, NI));
      }
      return { header: JSON.stringify(header), chunks, chunkCount };
    },
    result(): CostSummary {
      const total = emptyCostSummary(n.groupBy !== undefined);
      let nano = 0;
      const seenSessions = new Uint8Array(sessions.values.length);
      const seenFiles = new Uint8Array(files.values.length);
      const byGroup = new Map<number, { rec: CostBreakdown; nano: number; sessions: Set<number> }>();
      const unpriced = new Map<number, UnpricedUsage>();
      const addTo = (rec: CostRecord, b: number, isUnpriced: boolean) => {
        rec.inputTokens += f[b + F_IN] as number;
        rec.outputTokens += f[b + F_OUT] as number;
        rec.thinkingTokens += f[b + F_REASONING] as number;
        rec.cacheReadTokens += f[b + F_CACHE_READ] as number;
        rec.cacheWriteTokens += f[b + F_CACHE_WRITE] as number;
        rec.cacheWrite1hTokens += f[b + F_CACHE_WRITE_1H] as number;
        rec.requestCount++;
        if (isUnpriced) rec.unpricedCount++;
      };
      for (let s = 0; s < slots; s++) {
        const b = s * NF;
        const i = s * NI;
        const u = ints[i + I_UNPRICED] as number;
        const sessionId = ints[i + I_SESSION] as number;
        addTo(total, b, u >= 0);
        nano += f[b + F_NANO_USD] as number;
        seenSessions[sessionId] = 1;
        seenFiles[ints[i + I_FILE] as number] = 1;
        if (u >= 0) {
          let x = unpriced.get(u);
          if (!x) {
            const [model, provider] = (unpricedModels.values[u] as string).split('\u0000') as [string, string];
            x = { model, ...(provider !== '' && { provider }), count: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
            unpriced.set(u, x);
          }
          x.count++;
          x.inputTokens += f[b + F_IN] as number;
          x.outputTokens += f[b + F_OUT] as number;
          x.cacheReadTokens += f[b + F_CACHE_READ] as number;
          x.cacheWriteTokens += f[b + F_CACHE_WRITE] as number;
        }
        if (n.groupBy === undefined) continue;
        for (const g of groupSets[ints[i + I_GROUPS] as number] as number[]) {
          let e = byGroup.get(g);
          if (!e) {
            e = { rec: { key: groups.values[g] as string, ...emptyCostRecord(), sessionCount: 0 }, nano: 0, sessions: new Set() };
            byGroup.set(g, e);
          }
          addTo(e.rec, b, u >= 0);
          e.nano += f[b + F_NANO_USD] as number;
          e.sessions.add(sessionId);
        }
      }
      total.totalUsd = nano / 1e9;
      total.cachedTokens = total.cacheReadTokens + total.cacheWriteTokens;
      total.sessionCount = seenSessions.reduce((a, x) => a + x, 0);
      total.runCount = seenFiles.reduce((a, x) => a + x, 0);
      total.unpriced = [...unpriced.values()].sort((a, b) => b.count - a.count || a.model.localeCompare(b.model));
      if (n.groupBy !== undefined) {
        const rows = [...byGroup.values()].map((e) => {
          e.rec.totalUsd = e.nano / 1e9;
          e.rec.cachedTokens = e.rec.cacheReadTokens + e.rec.cacheWriteTokens;
          e.rec.sessionCount = e.sessions.size;
          return e.rec;
        });
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
