/**
 * The totals fold: usage records in, one CostSummary out (the spec's, extended with cache reads/writes,
 * request and unpriced counts, and `unpriced` usage listed by model).
 *
 * Why a columnar ledger: the same response appears in several files (resumed and forked sessions copy
 * history), and which copy counts (the one with most output tokens, then most tokens, then the lowest rank:
 * a live copy before a retained one, the copy its own session made before one copied from another session,
 * then the smallest (file, offset), so the answer never depends on scan order) is known only when the stream ends. So each
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
import { blankBlockRecord, blockRecords, type UsageRecord, type UsageRecordBlock } from '../scan/types.js';
import { createRecordSelector, hashRecordKey, normalizeCostOptions, recordTime, type CostFoldOptions, type NormalizedCostOptions } from './filter.js';
import { GroupSets, groupSetFor, MODEL_SEP } from './fold-groups.js';
import { Interner, Ledger, I_FILE, I_GROUPS, I_SESSION, I_UNPRICED, ledgerCapacity, MIN_SLOTS, NF, NI } from './fold-ledger.js';
import { FOLD_STATE_VERSION, decodeHeaderAndHashes, type ExportedFoldState, type FoldStateHeader, type StoredFoldState } from './fold-state.js';
import { FoldTotals, T_CACHE_READ, T_CACHE_WRITE, T_CACHE_WRITE_1H, T_IN, T_NANO_USD, T_OUT, T_REASONING, T_REQUESTS, T_UNPRICED } from './fold-totals.js';
import { HASH, KeyTable } from '../key-table.js';
import { emptyCostRecord, emptyCostSummary, type CostBreakdown, type CostRecord, type CostSummary, type UnpricedUsage } from './types.js';

export { UNKNOWN_GROUP, UNTAGGED_GROUP } from './fold-groups.js';

/** Records a restored fold holds back before it rebuilds its dedup table (see `add`). */
const MAX_PENDING = 4096;
/** In the small key table of held-back records: a key no slot has yet. */
const NOT_FOUND = 0x7ffffffe;

/** The synchronous totals fold (`createCostFold`). */
export interface CostFold {
  readonly options: NormalizedCostOptions;
  /** Fold one record (records the selection rejects are ignored). */
  add(record: UsageRecord): void;
  /**
   * Fold every record of a block (`add` of each, in order), decoded onto one object the fold reuses: no
   * object per record (a fold keeps nothing of a record past its `add`, but a restored one's held-back records,
   * which get objects of their own).
   */
  addBlock(block: UsageRecordBlock): void;
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
   * Take `records`, the event cache's retained records now (src/cost/retained.ts), for the retained ones. A
   * copy's being retained weighs in which copy counts (`copyRank`), and a restored fold never sees a record
   * turn retained, or live again (the scan's deltas compare records without the flag). A copy the fold counts
   * that turned retained is marked so, unless another copy tied it; then, or when `records` differ from the
   * retained ones the fold was given in any other way, the fold weighed copies by what they were: false, and
   * it must start over. `adopt`: a fold of the whole scan, exact whatever the answer, just takes them (the
   * scan and the cache's rows could disagree on the edges of a selection, and every later run start over).
   */
  retain(records: readonly UsageRecord[], adopt: boolean): boolean;
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
  const restored = state === undefined ? undefined : decodeHeaderAndHashes(state.header, state.hashes, ledgerCapacity);
  const h = restored?.header;
  const files = new Interner(h?.files);
  const sessions = new Interner(h?.sessions);
  const unpricedModels = new Interner(h?.unpriced);
  const sets = new GroupSets(h);
  const totals = h === undefined ? new FoldTotals() : FoldTotals.fromJSON(h.totals, { sessions: h.sessions.length, files: h.files.length });
  const ledger = new Ledger(h?.slots ?? 0, restored?.hashes, state);
  const counts = h?.counts ?? { records: 0, selected: 0, keys: 0 };
  /** The retained records folded, as `noteRetained` sums them. */
  const retained = h?.retained ?? [0, 0, 0];
  const needsTime = sel.needsTime || n.groupBy === 'day' || n.groupBy === 'week' || n.groupBy === 'month';
  const fileName = (id: number): string => files.values[id] as string;

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
  const groupSetOf = groupSetFor(n, sel, sets, (r) => sessions.values[sessionOf(r)] as string);

  /** Count (`sign` 1) or uncount (-1) the copy in `slot` in the running totals (no object per event). */
  const account = (slot: number, sign: 1 | -1): void => {
    const ints = ledger.ints;
    const i = slot * NI;
    totals.account(ledger.f, slot * NF, sets.sets[ints[i + I_GROUPS] as number] as number[], ints[i + I_SESSION] as number, ints[i + I_FILE] as number, ints[i + I_UNPRICED] as number, sign);
  };

  /** Count `r` in `slot`: a new slot (`replace` false), or in place of the copy there. */
  const write = (slot: number, r: UsageRecord, ms: number, replace: boolean): void => {
    ledger.touch(slot);
    if (replace) account(slot, -1);
    const usd = n.pricer.priceUsd(r, n.mode);
    ledger.writeRecord(slot, r, Number.isNaN(usd) ? 0 : Math.round(usd * 1e9), replace);
    const ints = ledger.ints;
    const i = slot * NI;
    ints[i + I_GROUPS] = groupSetOf(r, ms);
    ints[i + I_SESSION] = sessionOf(r);
    ints[i + I_FILE] = fileOf(r);
    ints[i + I_UNPRICED] = Number.isNaN(usd) ? unpricedModels.id(`${r.model}\u0000${r.provider ?? ''}`) : -1;
    account(slot, 1);
  };

  // The dedup table of a restored fold is rebuilt from the slots' hashes only when many records come.
  let keyTable: KeyTable | undefined;
  const table = (): KeyTable => {
    if (keyTable === undefined) {
      // Grows fourfold, as the ledger's columns do (fold-ledger.ts `append`).
      keyTable = new KeyTable(Math.max(MIN_SLOTS, ledger.slots), 4);
      const hashes = ledger.hashes;
      for (let i = 0; i < ledger.slots; i++) keyTable.setHash(hashes[2 * i] as number, hashes[2 * i + 1] as number, i);
    }
    return keyTable;
  };

  /** Fold a selected, hashed record against `keys` (NOT_FOUND marks a key without a slot yet). */
  const addHashed = (keys: KeyTable, r: UsageRecord, ms: number, hi: number, lo: number): void => {
    const existing = keys.getHash(hi, lo);
    if (existing >= 0 && existing !== NOT_FOUND) {
      if (ledger.beats(r, existing, fileName)) write(existing, r, ms, true);
      return;
    }
    const slot = ledger.append(hi, lo);
    write(slot, r, ms, false);
    counts.keys = ledger.slots;
    keys.setHash(hi, lo, slot);
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
    const hashes = ledger.hashes;
    for (let i = 0; i < ledger.slots; i++) {
      const hi = hashes[2 * i] as number;
      const lo = hashes[2 * i + 1] as number;
      if (want.getHash(hi, lo) === NOT_FOUND) want.setHash(hi, lo, i);
    }
    for (const p of pending.splice(0)) addHashed(want, p.r, p.ms, p.hi, p.lo);
  };

  const add = (r: UsageRecord): void => {
    counts.records++;
    const ms = needsTime ? recordTime(r) : NaN;
    if (!sel.accepts(r, ms)) return;
    counts.selected++;
    hashRecordKey(r);
    const hi = HASH[0] as number;
    const lo = HASH[1] as number;
    if (r.retained === true) noteRetained(retained, r, hi, lo);
    if (keyTable === undefined && ledger.restoredSlots > 0) {
      // A restored fold given a few records (a warm run after an append): hold them, and find their
      // slots in one pass over the slots' hashes instead of rebuilding the whole dedup table.
      if (pending.length < MAX_PENDING) {
        pending.push({ r, ms, hi, lo });
        return;
      }
      flushPending();
    }
    addHashed(table(), r, ms, hi, lo);
  };

  // What `addBlock` decodes onto: nothing of it outlives an `add` (the interned file, session and group keys
  // are its strings, not it), but for the held-back records of a restored fold.
  const scratch = blankBlockRecord();

  return {
    options: n,
    counts,
    add,
    addBlock(u: UsageRecordBlock): void {
      if (keyTable === undefined && ledger.restoredSlots > 0) {
        for (const r of blockRecords(u)) add(r);
        return;
      }
      const r = scratch;
      r.file = u.file;
      r.cwd = u.cwd;
      const block = u.block;
      const count = block.count;
      for (let k = 0; k < count; k++) add(block.decode(k, r) as UsageRecord);
    },
    holds(r: UsageRecord): boolean {
      flushPending();
      const ms = needsTime ? recordTime(r) : NaN;
      if (!sel.accepts(r, ms)) return false;
      hashRecordKey(r);
      const slot = table().getHash(HASH[0] as number, HASH[1] as number);
      return slot >= 0 && ledger.holdsCopy(slot, r, fileName);
    },
    retain(records: readonly UsageRecord[], adopt: boolean): boolean {
      flushPending();
      const now = [0, 0, 0];
      let exact = true;
      for (const r of records) {
        if (!sel.accepts(r, needsTime ? recordTime(r) : NaN)) continue;
        hashRecordKey(r);
        const hi = HASH[0] as number;
        const lo = HASH[1] as number;
        noteRetained(now, r, hi, lo);
        if (adopt || !exact) continue;
        const slot = table().getHash(hi, lo);
        if (slot < 0 || !ledger.holdsCopy(slot, r, fileName)) continue;
        const marked = ledger.retain(slot);
        if (marked === -1) exact = false;
        else if (marked === 1) noteRetained(retained, r, hi, lo);
      }
      if (adopt) retained.splice(0, 3, ...now);
      return adopt || (exact && now[0] === retained[0] && now[1] === retained[1] && now[2] === retained[2]);
    },
    exportState(changedOnly = false): ExportedFoldState {
      flushPending();
      const header: FoldStateHeader = {
        version: FOLD_STATE_VERSION,
        slots: ledger.slots,
        counts,
        files: files.values,
        sessions: sessions.values,
        retained,
        ...sets.toHeader(unpricedModels.values),
        totals: totals.toJSON(),
      };
      return { header: JSON.stringify(header), ...ledger.pieces(changedOnly) };
    },
    rebase(): void {
      flushPending();
      ledger.rebase();
    },
    result(): CostSummary {
      flushPending();
      return summarize(n, totals, sets, unpricedModels);
    },
  };
}

/**
 * Add the retained record `r` (its key hashed to `hi`, `lo`) to `sum`: a count and two 32-bit sums of the key
 * hash mixed with the offset and the output tokens, which tell one set of retained records from another
 * without a string kept per record (`CostFold.sameRetained`).
 */
function noteRetained(sum: number[], r: UsageRecord, hi: number, lo: number): void {
  sum[0] = (sum[0] as number) + 1;
  sum[1] = ((sum[1] as number) + ((hi ^ r.offset) >>> 0)) >>> 0;
  sum[2] = ((sum[2] as number) + ((lo ^ r.outputTokens) >>> 0)) >>> 0;
}

/** A CostRecord's fields from a totals row (fold-totals.ts). */
function fillRecord(rec: CostRecord, t: Float64Array): void {
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
}

/** The summary of the running totals: the whole, unpriced usage by model, and the groups in report order. */
function summarize(n: NormalizedCostOptions, totals: FoldTotals, sets: GroupSets, unpricedModels: Interner): CostSummary {
  const total = emptyCostSummary(n.groupBy !== undefined);
  fillRecord(total, totals.total);
  total.sessionCount = totals.sessions.size;
  total.runCount = totals.files.size;
  const unpriced: UnpricedUsage[] = [];
  for (const [u, v] of totals.unpriced) {
    const [model, provider] = (unpricedModels.values[u] as string).split('\u0000') as [string, string];
    unpriced.push({ model, ...(provider !== '' && { provider }), count: v[0] as number, inputTokens: v[1] as number, outputTokens: v[2] as number, cacheReadTokens: v[3] as number, cacheWriteTokens: v[4] as number });
  }
  total.unpriced = unpriced.sort((a, b) => b.count - a.count || a.model.localeCompare(b.model));
  if (n.groupBy === undefined) return total;
  const rows: CostBreakdown[] = [];
  const models = new Map<string, CostBreakdown[]>();
  for (const [g, e] of totals.groups) {
    const key = sets.groups.values[g] as string;
    const rec: CostBreakdown = { key, ...emptyCostRecord(), sessionCount: e.sessions.size };
    fillRecord(rec, e.t);
    const sep = n.breakdown ? key.indexOf(MODEL_SEP) : -1;
    if (sep < 0) {
      rows.push(rec);
      continue;
    }
    const parent = key.slice(0, sep);
    rec.key = key.slice(sep + 1);
    let list = models.get(parent);
    if (list === undefined) models.set(parent, (list = []));
    list.push(rec);
  }
  const byCost = (a: CostBreakdown, b: CostBreakdown): number => b.totalUsd - a.totalUsd || (a.key < b.key ? -1 : 1);
  if (n.breakdown) for (const r of rows) r.modelBreakdowns = (models.get(r.key) ?? []).sort(byCost);
  const chronological = n.groupBy === 'day' || n.groupBy === 'week' || n.groupBy === 'month';
  rows.sort(chronological ? (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : byCost);
  const breakdowns: Record<string, CostBreakdown> = {};
  for (const r of rows) breakdowns[r.key] = r;
  total.breakdowns = breakdowns;
  return total;
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
  await drainRecords(records, fold.add);
  return fold.result();
}

/**
 * Fold a stream of record batches and blocks (`scanUsageBlocks`): each batch's records through `add`, each
 * block through `addBlock`.
 */
export async function drainBlocks(units: AsyncIterable<UsageRecord[] | UsageRecordBlock>, fold: CostFold): Promise<void> {
  for await (const u of units) {
    if (Array.isArray(u)) for (const r of u) fold.add(r);
    else fold.addBlock(u as UsageRecordBlock);
  }
}

/** Hand every record of a stream of records or record batches to `add`, in order. */
export async function drainRecords(records: AsyncIterable<UsageRecord | readonly UsageRecord[]> | Iterable<UsageRecord | readonly UsageRecord[]>, add: (r: UsageRecord) => void): Promise<void> {
  for await (const r of records) {
    if (Array.isArray(r)) for (const x of r as readonly UsageRecord[]) add(x);
    else add(r as UsageRecord);
  }
}
