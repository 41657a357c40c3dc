/**
 * Fold hints: what a producer may compute for the folds while it has the bytes at hand. Part of the protocol
 * because both sides use them: the native engines (cursors/native-engine.ts) set them, the folds
 * (src/cost/filter.ts) read them.
 */
/** The keys of the fold hints (symbols: not in `JSON.stringify`, `Object.keys` or a record's documented fields). */
export const KEY_HI: unique symbol = Symbol('sessionfold.keyHi');
export const KEY_LO: unique symbol = Symbol('sessionfold.keyLo');
export const KEY_OF: unique symbol = Symbol('sessionfold.keyOf');
export const TIME_MS: unique symbol = Symbol('sessionfold.timeMs');
export const TIME_OF: unique symbol = Symbol('sessionfold.timeOf');

/**
 * What a producer may compute for the folds when it has the bytes at hand (the native engines do, in C): the
 * xxh64 of `dedupKey` as src/key-table.ts `hashInto` halves it, and src/cost/filter.ts `eventTime` of
 * `timestamp`, each with the string it was computed from. A fold takes a hint only while the record still
 * holds that string (a copy with another key or time computes its own), and computes its own where a hint
 * is absent or NaN. test/native-engines.test.ts holds the engines' hints to what the fold computes.
 */
export interface FoldHints {
  [KEY_HI]?: number;
  [KEY_LO]?: number;
  [KEY_OF]?: string;
  [TIME_MS]?: number;
  [TIME_OF]?: string;
}

