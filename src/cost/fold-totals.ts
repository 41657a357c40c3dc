/**
 * The totals fold's running sums: every field of the summary, kept up to date as copies are counted and
 * replaced (a larger copy of a response takes its slot: the old one is taken away, the new one added). So
 * the summary never needs a pass over every slot, and a fold restored from a snapshot answers from these
 * sums after folding a few appended records. Token counts and nano-dollars are integers, so adding and taking
 * away is exact, in any order.
 */
import { SessionfoldError } from '../../cursors/protocol/errors.js';

/** The summed fields of a record, total or group. */
export const T_IN = 0;
export const T_OUT = 1;
export const T_REASONING = 2;
export const T_CACHE_READ = 3;
export const T_CACHE_WRITE = 4;
export const T_CACHE_WRITE_1H = 5;
export const T_NANO_USD = 6;
export const T_REQUESTS = 7;
export const T_UNPRICED = 8;
export const NT = 9;

/** Unpriced usage per model: count, input, output, cache read, cache write. */
const NU = 5;

interface GroupSums {
  t: Float64Array;
  /** Counted copies per session (the group's sessionCount is the number of keys). */
  sessions: Map<number, number>;
}

/**
 * One copy's fields into a record's sums. A sum past 2^53 would no longer be exact (nor the same in every
 * order): the fold stops with PARSE_ERROR instead (every record's values are bounded, cursors/sane.ts, so this
 * takes billions of records' worth of tokens, or millions of dollars).
 */
function addTo(t: Float64Array, f: Float64Array, at: number, unpriced: number, sign: 1 | -1): void {
  for (let k = 0; k <= T_NANO_USD; k++) {
    const v = (t[k] as number) + sign * (f[at + k] as number);
    if (v > Number.MAX_SAFE_INTEGER) throw new SessionfoldError('PARSE_ERROR', 'usage totals pass 2^53 (tokens or nano-dollars), where sums stop being exact: narrow the report (--since, --agent)');
    t[k] = v;
  }
  t[T_REQUESTS] = (t[T_REQUESTS] as number) + sign;
  if (unpriced >= 0) t[T_UNPRICED] = (t[T_UNPRICED] as number) + sign;
}

/**
 * Counts per dense id (the fold's interned sessions and files): a typed array instead of a Map, since every
 * counted copy bumps one of each. `size` is the number of ids with a non-zero count.
 */
export class DenseCounts {
  #c = new Int32Array(1024);
  size = 0;

  bump(k: number, by: number): void {
    if (k >= this.#c.length) {
      if (!(k < 1 << 28)) throw new RangeError(`fold totals: id ${k} out of range`);
      let n = this.#c.length * 2;
      while (n <= k) n *= 2;
      const c = new Int32Array(n);
      c.set(this.#c);
      this.#c = c;
    }
    const was = this.#c[k] as number;
    const v = was + by;
    this.#c[k] = v;
    if (was === 0 && v !== 0) this.size++;
    else if (was !== 0 && v === 0) this.size--;
  }

  get(k: number): number {
    return k < this.#c.length ? (this.#c[k] as number) : 0;
  }

  /** [id, count] of every non-zero count, ids ascending. */
  *[Symbol.iterator](): IterableIterator<[number, number]> {
    const c = this.#c;
    for (let k = 0; k < c.length; k++) if (c[k] !== 0) yield [k, c[k] as number];
  }
}

function bump(m: Map<number, number>, k: number, by: number): void {
  const v = (m.get(k) ?? 0) + by;
  if (v === 0) m.delete(k);
  else m.set(k, v);
}

/** An interned id of a stored state: an integer below the count the state's header interned. */
function denseId(k: unknown, count: number): number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= count) throw new RangeError('fold totals do not decode');
  return k;
}

export class FoldTotals {
  readonly total = new Float64Array(NT);
  /** Counted copies per session and per file (sessionCount and runCount are their sizes). */
  readonly sessions = new DenseCounts();
  readonly files = new DenseCounts();
  readonly unpriced = new Map<number, Float64Array>();
  readonly groups = new Map<number, GroupSums>();

  /**
   * Count (`sign` 1) or uncount (-1) one copy: its tokens (6) and nano-dollars at `f[at…]`, its group set,
   * session and file, and its interned unpriced model (-1 when priced).
   */
  account(f: Float64Array, at: number, groups: readonly number[], session: number, file: number, unpriced: number, sign: 1 | -1): void {
    addTo(this.total, f, at, unpriced, sign);
    this.sessions.bump(session, sign);
    this.files.bump(file, sign);
    if (unpriced >= 0) {
      let u = this.unpriced.get(unpriced);
      if (u === undefined) this.unpriced.set(unpriced, (u = new Float64Array(NU)));
      u[0] = (u[0] as number) + sign;
      u[1] = (u[1] as number) + sign * (f[at + T_IN] as number);
      u[2] = (u[2] as number) + sign * (f[at + T_OUT] as number);
      u[3] = (u[3] as number) + sign * (f[at + T_CACHE_READ] as number);
      u[4] = (u[4] as number) + sign * (f[at + T_CACHE_WRITE] as number);
      if (u[0] === 0) this.unpriced.delete(unpriced);
    }
    // Indexed: once per counted copy, mostly before the JIT compiles it, where a for-of allocates per step.
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] as number;
      let e = this.groups.get(g);
      if (e === undefined) this.groups.set(g, (e = { t: new Float64Array(NT), sessions: new Map() }));
      addTo(e.t, f, at, unpriced, sign);
      bump(e.sessions, session, sign);
      if (e.t[T_REQUESTS] === 0) this.groups.delete(g);
    }
  }

  toJSON(): unknown {
    return {
      total: [...this.total],
      sessions: [...this.sessions],
      files: [...this.files],
      unpriced: [...this.unpriced].map(([k, v]) => [k, [...v]]),
      groups: [...this.groups].map(([k, e]) => [k, [...e.t], [...e.sessions]]),
    };
  }

  /**
   * The sums `toJSON()` wrote; a RangeError for anything else. `interned`: how many sessions and files the
   * state's header interned (every stored id is below).
   */
  static fromJSON(v: unknown, interned: { sessions: number; files: number }): FoldTotals {
    const o = v as { total: number[]; sessions: [number, number][]; files: [number, number][]; unpriced: [number, number[]][]; groups: [number, number[], [number, number][]][] };
    if (o === null || typeof o !== 'object' || !Array.isArray(o.total) || o.total.length !== NT) throw new RangeError('fold totals do not decode');
    const t = new FoldTotals();
    t.total.set(o.total);
    for (const [k, n] of o.sessions) t.sessions.bump(denseId(k, interned.sessions), n);
    for (const [k, n] of o.files) t.files.bump(denseId(k, interned.files), n);
    for (const [k, u] of o.unpriced) t.unpriced.set(k, Float64Array.from(u));
    for (const [k, sums, sessions] of o.groups) t.groups.set(k, { t: Float64Array.from(sums), sessions: new Map(sessions) });
    return t;
  }
}
