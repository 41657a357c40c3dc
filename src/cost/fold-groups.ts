/**
 * The totals fold's groups: each record belongs to a set of groups (one for every dimension but `tag`, any
 * number of tags), interned as a dense id so a ledger slot keeps one int. The function that names a record's
 * group set is chosen once for the fold's `groupBy`, not per record.
 */
import type { UsageRecord } from '../scan/types.js';
import type { NormalizedCostOptions, RecordSelector } from './filter.js';
import type { FoldStateHeader } from './fold-state.js';
import { Interner } from './fold-ledger.js';

/** Group key of records without a value for the dimension (no cwd, no tags, no timestamp). */
export const UNKNOWN_GROUP = '(unknown)';
/** Tag group of sessions without tags. */
export const UNTAGGED_GROUP = '(untagged)';
/** Between a group and a model in the key of a breakdown's row. */
export const MODEL_SEP = '\u0000';

export class GroupSets {
  readonly groups: Interner;
  /** Per group set, its groups; set 0 has none (an ungrouped fold). */
  readonly sets: number[][];
  readonly #single: Map<string, number>;
  readonly #tagSets: Map<string, number>;
  #lastKey: string | undefined;
  #lastSet = -1;

  constructor(h: FoldStateHeader | undefined) {
    this.groups = new Interner(h?.groups);
    this.sets = h?.groupSets ?? [[]];
    this.#single = new Map(h?.single);
    this.#tagSets = new Map(h?.tagSets);
  }

  /** The set of the one group `key`; cached for the last key asked (records of a day or model come together). */
  single(key: string): number {
    if (key === this.#lastKey) return this.#lastSet;
    let id = this.#single.get(key);
    if (id === undefined) {
      id = this.sets.length;
      this.sets.push([this.groups.id(key)]);
      this.#single.set(key, id);
    }
    this.#lastKey = key;
    this.#lastSet = id;
    return id;
  }

  /** The set of a session's tags. */
  tags(tags: readonly string[]): number {
    const k = tags.join('\u0000');
    let id = this.#tagSets.get(k);
    if (id === undefined) {
      id = this.sets.length;
      this.sets.push(tags.map((g) => this.groups.id(g)));
      this.#tagSets.set(k, id);
    }
    return id;
  }

  /**
   * The set of a group set's groups plus, for each, its `<group>\u0000<model>` group (a breakdown's rows).
   * Kept with the tag sets (a key no tag list can have: it starts with \u0001) so a restored fold has it.
   */
  withModel(base: number, model: string): number {
    const k = `\u0001${base}\u0000${model}`;
    let id = this.#tagSets.get(k);
    if (id === undefined) {
      id = this.sets.length;
      const groups = this.sets[base] as number[];
      this.sets.push([...groups, ...groups.map((g) => this.groups.id(`${this.groups.values[g] as string}${MODEL_SEP}${model}`))]);
      this.#tagSets.set(k, id);
    }
    return id;
  }

  /** The header fields that restore these sets, in the stored order (the unpriced models stand among them). */
  toHeader(unpriced: string[]): Pick<FoldStateHeader, 'groups' | 'unpriced' | 'groupSets' | 'single' | 'tagSets'> {
    return { groups: this.groups.values, unpriced, groupSets: this.sets, single: [...this.#single], tagSets: [...this.#tagSets] };
  }
}

/** A record's group set, given its time in ms (NaN when unknown or not needed). */
export type GroupSetOf = (r: UsageRecord, ms: number) => number;

/** The group-set function of `n.groupBy`; `session` names a record's session (`agent:id`). */
export function groupSetFor(n: NormalizedCostOptions, sel: RecordSelector, sets: GroupSets, session: (r: UsageRecord) => string): GroupSetOf {
  const base = baseGroupSetFor(n, sel, sets, session);
  return n.breakdown ? (r, ms) => sets.withModel(base(r, ms), r.model) : base;
}

function baseGroupSetFor(n: NormalizedCostOptions, sel: RecordSelector, sets: GroupSets, session: (r: UsageRecord) => string): GroupSetOf {
  const cal = n.calendar;
  const byTime = (key: (ms: number) => string): GroupSetOf => (_r, ms) => sets.single(Number.isNaN(ms) ? UNKNOWN_GROUP : key(ms));
  switch (n.groupBy) {
    case undefined:
      return () => 0;
    case 'agent':
      return (r) => sets.single(r.agent);
    case 'model':
      return (r) => sets.single(r.model);
    case 'day':
      return byTime((ms) => cal.dayKey(ms));
    case 'week':
      return byTime((ms) => cal.weekKey(ms));
    case 'month':
      return byTime((ms) => cal.monthKey(ms));
    case 'session':
      return (r) => sets.single(session(r));
    case 'project':
      return (r) => sets.single(r.cwd ?? UNKNOWN_GROUP);
    case 'tag':
      return (r) => {
        const t = sel.tagsOf(r);
        return t.length > 0 ? sets.tags(t) : sets.single(UNTAGGED_GROUP);
      };
  }
}
