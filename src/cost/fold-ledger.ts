/**
 * The totals fold's columnar ledger: one slot per dedup key, each a row of typed-array columns (~90 bytes,
 * no per-event object kept alive) holding the copy of the response that counts. A restored ledger reads a
 * chunk of columns from the stored state only when one of its slots is compared or rewritten, and tracks the
 * chunks it changed so an export writes only those (fold-state.ts has the stored layout).
 */
import type { UsageRecord } from '../scan/types.js';
import { CHUNK_SLOTS, chunkCountOf, columnSeq, decodeColumns, encodeColumns, encodeHashes, hashSeq, type StoredFoldState } from './fold-state.js';

export const F_IN = 0;
export const F_OUT = 1;
export const F_REASONING = 2;
export const F_CACHE_READ = 3;
export const F_CACHE_WRITE = 4;
export const F_CACHE_WRITE_1H = 5;
export const F_NANO_USD = 6;
export const F_OFFSET = 7;
export const NF = 8;
export const I_GROUPS = 0;
export const I_SESSION = 1;
export const I_FILE = 2;
/** Interned unpriced (model, provider), or -1 when priced. */
export const I_UNPRICED = 3;
/** The copy's rank (`copyRank`), with TIED when another copy seen ties it in tokens. */
export const I_RANK = 4;
export const NI = 5;

/** In `copyRank`: the copy was made in another session (UsageEvent.copied). */
export const RANK_COPIED = 1;
/** In `copyRank`: the copy is no longer in its file (UsageRecord.retained): any live copy beats it first. */
export const RANK_RETAINED = 2;
/**
 * In the rank column: another copy seen ties the kept one in tokens, so a change of what the kept one is
 * (retained since) could change which copy counts (`retain`).
 */
export const TIED = 4;

/**
 * The fewest slots a ledger has room for. Growing copies every column (and the fold's dedup table rehashes
 * every key, KeyTable's `#grow`), mostly in code the JIT has not compiled yet: from 1,024 slots, the 49k keys
 * of an 858 MB history took six doublings: starting at 16,384 folded them in 156 against 162 ms of the thread's
 * CPU (about 4%, medians of 9 interleaved runs in a fresh process). The columns of 16,384 slots are
 * about 1.6 MB, mapped but not resident until written (the slots are written in order).
 */
export const MIN_SLOTS = 16_384;

/** Slots the columns hold room for before they grow. */
export const ledgerCapacity = (slots: number): number => Math.max(MIN_SLOTS, slots * 2);

/** A copy's tokens in all: the second criterion of `beatsCopy`. */
export const copyTotal = (r: UsageRecord): number => r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;

/**
 * A copy's rank, the third criterion of `beatsCopy` (lower wins). A copy still in its file before one the
 * event cache retained from a file that was truncated, deleted or moved (a `cache: false` run, which sees only
 * the live one, counts that one too); then the copy its own session made before one a file copied from another
 * session (a resumed or forked copy: the response counts in its origin's session, as ccusage, reading files
 * oldest first, counts it).
 */
export const copyRank = (r: UsageRecord): number => (r.retained === true ? RANK_RETAINED : 0) | (r.copied === true ? RANK_COPIED : 0);

/**
 * True when the copy `r` of a response should replace the kept one (its output tokens, tokens in all, rank,
 * file id and offset): most output tokens, then most tokens, then the lowest rank (`copyRank`), then the
 * smallest (file, offset), a total order, so the copy kept never depends on the order records arrive in. The
 * one rule of the totals fold and the export. The file name is looked up only on a tie of tokens and rank.
 */
export function beatsCopy(r: UsageRecord, out: number, total: number, rank: number, fileId: number, offset: number, fileName: (fileId: number) => string): boolean {
  if (r.outputTokens !== out) return r.outputTokens > out;
  const t = copyTotal(r);
  if (t !== total) return t > total;
  const k = copyRank(r);
  if (k !== rank) return k < rank;
  const file = fileName(fileId);
  if (r.file !== file) return r.file < file;
  return r.offset < offset;
}

/** Interns strings to dense ints. */
export class Interner {
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

export class Ledger {
  /** Float columns (tokens, nano-USD, offset), NF per slot. */
  f: Float64Array;
  /** Int columns (group set, session, file, unpriced model), NI per slot. */
  ints: Int32Array;
  /** Each slot's key hash (hi, lo): what the stored state keeps instead of the hash table. */
  hashes: Uint32Array;
  slots: number;
  readonly #state: StoredFoldState | undefined;
  /** Slots the ledger was restored with (or last `rebase`d at). */
  #restoredSlots: number;
  /** Per chunk of the restored slots: its columns were read from the state. */
  #loaded: Uint8Array;
  readonly #dirty = new Set<number>();

  constructor(slots: number, hashes: Uint32Array | undefined, state: StoredFoldState | undefined) {
    this.slots = slots;
    this.f = new Float64Array(ledgerCapacity(slots) * NF);
    this.ints = new Int32Array(ledgerCapacity(slots) * NI);
    this.hashes = hashes ?? new Uint32Array(ledgerCapacity(slots) * 2);
    this.#state = state;
    this.#restoredSlots = slots;
    this.#loaded = new Uint8Array(chunkCountOf(slots));
  }

  get restoredSlots(): number {
    return this.#restoredSlots;
  }

  /** Read the columns of a restored slot's chunk before they are compared or rewritten. */
  ensure(slot: number): void {
    if (slot >= this.#restoredSlots || this.#state === undefined) return;
    const c = Math.floor(slot / CHUNK_SLOTS);
    if (this.#loaded[c] === 1) return;
    decodeColumns(this.#state.columns(c), this.f, this.ints, this.#restoredSlots, c, NF, NI);
    this.#loaded[c] = 1;
  }

  /** `slot` is about to be rewritten: its chunk goes into the next export. */
  touch(slot: number): void {
    if (slot < this.#restoredSlots) this.#dirty.add(Math.floor(slot / CHUNK_SLOTS));
  }

  /** A new slot with the key hash (hi, lo); its columns are the caller's to write. */
  append(hi: number, lo: number): number {
    if (this.slots * NF >= this.f.length) {
      // Four times the room (see MIN_SLOTS): fewer copies; the room not written yet is not resident.
      this.f = grown(this.f, new Float64Array(this.f.length * 4));
      this.ints = grown(this.ints, new Int32Array(this.ints.length * 4));
      this.hashes = grown(this.hashes, new Uint32Array(this.hashes.length * 4));
    }
    const slot = this.slots++;
    this.hashes[2 * slot] = hi;
    this.hashes[2 * slot + 1] = lo;
    return slot;
  }

  /**
   * The token, offset, price and rank columns of `slot` from `r`; `replace`: in place of the copy there, whose
   * TIED mark `r` keeps when it ties that copy in tokens (the copies that tied it tie `r`).
   */
  writeRecord(slot: number, r: UsageRecord, nanoUsd: number, replace: boolean): void {
    const f = this.f;
    const b = slot * NF;
    const at = slot * NI + I_RANK;
    const tied = replace && f[b + F_OUT] === r.outputTokens && this.#total(b) === copyTotal(r) ? (this.ints[at] as number) & TIED : 0;
    this.ints[at] = copyRank(r) | tied;
    f[b + F_IN] = r.inputTokens;
    f[b + F_OUT] = r.outputTokens;
    f[b + F_REASONING] = r.reasoningTokens;
    f[b + F_CACHE_READ] = r.cacheReadTokens;
    f[b + F_CACHE_WRITE] = r.cacheWriteTokens;
    f[b + F_CACHE_WRITE_1H] = r.cacheWrite1hTokens;
    f[b + F_NANO_USD] = nanoUsd;
    f[b + F_OFFSET] = r.offset;
  }

  /**
   * True when `r` should replace the copy in `slot` (`beatsCopy`). Another copy that ties it in tokens marks
   * the slot TIED (see `retain`).
   */
  beats(r: UsageRecord, slot: number, slotFile: (fileId: number) => string): boolean {
    this.ensure(slot);
    const f = this.f;
    const b = slot * NF;
    const out = f[b + F_OUT] as number;
    const total = this.#total(b);
    const ints = this.ints;
    const file = ints[slot * NI + I_FILE] as number;
    const at = slot * NI + I_RANK;
    const rank = ints[at] as number;
    if (r.outputTokens === out && copyTotal(r) === total && (rank & TIED) === 0 && (r.offset !== f[b + F_OFFSET] || r.file !== slotFile(file))) {
      this.touch(slot);
      ints[at] = rank | TIED;
    }
    return beatsCopy(r, out, total, rank & ~TIED, file, f[b + F_OFFSET] as number, slotFile);
  }

  /**
   * The copy in `slot` left its file (the event cache retained it): its rank says so. 0 when it said so
   * already, 1 when marked now, -1 when another copy tied it in tokens (nothing marked): a live one may beat
   * it now, which only a fold of every copy can tell.
   */
  retain(slot: number): -1 | 0 | 1 {
    this.ensure(slot);
    const at = slot * NI + I_RANK;
    const rank = this.ints[at] as number;
    if ((rank & RANK_RETAINED) !== 0) return 0;
    if ((rank & TIED) !== 0) return -1;
    this.touch(slot);
    this.ints[at] = rank | RANK_RETAINED;
    return 1;
  }

  #total(b: number): number {
    const f = this.f;
    return (f[b + F_IN] as number) + (f[b + F_OUT] as number) + (f[b + F_CACHE_READ] as number) + (f[b + F_CACHE_WRITE] as number);
  }

  /** True when `slot` holds exactly `r`'s copy: the same file, offset and tokens. */
  holdsCopy(slot: number, r: UsageRecord, slotFile: (fileId: number) => string): boolean {
    this.ensure(slot);
    const f = this.f;
    const b = slot * NF;
    return (
      slotFile(this.ints[slot * NI + I_FILE] as number) === r.file &&
      f[b + F_OFFSET] === r.offset &&
      f[b + F_IN] === r.inputTokens &&
      f[b + F_OUT] === r.outputTokens &&
      f[b + F_REASONING] === r.reasoningTokens &&
      f[b + F_CACHE_READ] === r.cacheReadTokens &&
      f[b + F_CACHE_WRITE] === r.cacheWriteTokens &&
      f[b + F_CACHE_WRITE_1H] === r.cacheWrite1hTokens
    );
  }

  /** The stored pieces to write: every chunk, or (`changedOnly`) those that grew or were rewritten. */
  pieces(changedOnly: boolean): { pieces: Map<number, () => Buffer>; seqCount: number } {
    const slots = this.slots;
    const restored = this.#restoredSlots;
    const chunkCount = chunkCountOf(slots);
    const pieces = new Map<number, () => Buffer>();
    // Chunks from the one the first new slot fell in are new or grew; before it, only rewritten slots.
    const firstGrown = changedOnly && slots === restored ? chunkCount : Math.floor(restored / CHUNK_SLOTS);
    for (let c = 0; c < chunkCount; c++) {
      const grew = !changedOnly || c >= firstGrown;
      if (!grew && !this.#dirty.has(c)) continue;
      if (grew) pieces.set(hashSeq(c), () => encodeHashes(this.hashes, slots, c));
      pieces.set(columnSeq(c), () => {
        if (c * CHUNK_SLOTS < restored) this.ensure(c * CHUNK_SLOTS);
        return encodeColumns(this.f, this.ints, slots, c, NF, NI);
      });
    }
    return { pieces, seqCount: 2 * chunkCount };
  }

  /** The state last exported is now the stored one: later exports name only what changes after this. */
  rebase(): void {
    // In memory: the chunks read so far, and every chunk made here whole (from the first one past the
    // restored slots). The chunk the restored slots ended in was read when its grown piece was written.
    const slots = this.slots;
    const restored = this.#restoredSlots;
    const chunkCount = chunkCountOf(slots);
    const next = new Uint8Array(chunkCount);
    next.set(this.#loaded.subarray(0, Math.min(this.#loaded.length, chunkCount)));
    for (let c = Math.ceil(restored / CHUNK_SLOTS); c < chunkCount; c++) next[c] = 1;
    if (restored % CHUNK_SLOTS !== 0 && slots > restored) next[Math.floor(restored / CHUNK_SLOTS)] = 1;
    this.#loaded = next;
    this.#restoredSlots = slots;
    this.#dirty.clear();
  }
}

function grown<T extends Float64Array | Int32Array | Uint32Array>(old: T, bigger: T): T {
  bigger.set(old);
  return bigger;
}
