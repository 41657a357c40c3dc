/**
 * The line-core contract: between the generic JSONL reader (cursors/read-jsonl.ts) and a codec's pure engine
 * (a codec's `lineCore`; codec.ts re-exports all of this). Kept apart from the codec object: an engine is
 * written against this contract alone, and cursors/core.ts holds the helpers engines share.
 */
import type { KindCounts, SessionfoldEvent } from './events.js';
import type { NormalizedReadOptions } from './read.js';

export type Emit = (event: SessionfoldEvent) => void;

/** Returned by `line()` when an id's 32-bit hash was already seen in a resumed state: re-read from byte 0. */
export const RESTART = Symbol('sessionfold.restart');
export type LineResult = void | typeof RESTART;

/** Returned by `lineWalked()` for a line it leaves to `line()` (which then gets the line's bytes). */
export const UNWALKED = Symbol('sessionfold.unwalked');

/**
 * A line the WebAssembly kernel walked with the core's projection (`LineCore.walk`, cursors/wasm.ts `walk`):
 * its projected fields read in place, without a call or an object per line. The reader reuses one such
 * object; it is valid only during the `lineWalked` call. cursors/scan-fields.ts `walkedValue` decodes a slot
 * as `scanFields` would (slots are the projection's fields in pre-order).
 */
export interface WalkedLine {
  /** The kernel's whole memory: the spans are offsets in it. */
  readonly bytes: Buffer;
  /** Per slot, at `at + 3 slot`: start, end, flags (0 absent; 1 a value, | 2 an escaped string; 4 an object collected). */
  readonly spans: Int32Array;
  readonly at: number;
  /** Per slot, at `numAt + slot`: the value of a plain integer (under 16 digits), NaN elsewhere. */
  readonly nums: Float64Array;
  readonly numAt: number;
  /** The line's bytes: `bytes[lineAt, lineEnd)` (without its LF and a trailing CR). */
  readonly lineAt: number;
  readonly lineEnd: number;
}

export interface CoreContext {
  /** The file path (or `-` for stdin). */
  file: string;
  options: NormalizedReadOptions;
}

export interface LineCore<S> {
  /** Fresh state for a read from byte 0. */
  init(ctx: CoreContext): S;
  /** State restored from a cursor's `state.core`. Throw CURSOR_INVALID for a shape it cannot use. */
  restore(snapshot: unknown, ctx: CoreContext): S;
  /** JSON for the cursor: everything the lines after the committed offset need. */
  snapshot(state: S): unknown;
  /**
   * One complete line (no LF, no trailing CR), `start` its byte offset. Throw a SessionfoldError
   * (MALFORMED_LINE) for a line it cannot use: the reader counts and skips it (or rethrows when strict).
   */
  line(state: S, line: Buffer, start: number, emit: Emit): LineResult;
  /**
   * End of the bytes available now. Emit what is still pending (it stays pending in the state), and return,
   * per kind, how many of the events emitted last are still open: a later line can replace them.
   */
  end(state: S, emit: Emit): KindCounts;
  /**
   * Optional: byte markers a line must contain to matter to `line()` in this state (undefined: every line
   * may). A line holding none of them must be one `line()` only counts as filtered (`info.filteredLines`),
   * changing nothing else: the file reader then counts it without calling `line()` — found by one marker
   * search per stretch of such lines, and never copied when it spans read chunks (megabytes of a tool result
   * a usage read would skip anyway). `line()` keeps its own check: the other readers do not filter.
   * Once it returns markers it must return the same ones for the rest of the read: the native line source
   * filters a batch of lines at a time.
   */
  markers?(state: S): readonly Buffer[] | undefined;
  /**
   * Optional, with `markers`: a stricter byte rule the native line source (cursors/native-lines.ts) applies on
   * top of the markers. `codex-rollout` is codecs/codex/prefilter.ts `mayHoldUsage`. A line it drops must be
   * one `line()` only counts as filtered, as for the markers.
   */
  readonly headRule?: 'codex-rollout';
  /**
   * Optional, with `markers` and `lineWalked`: a projection (cursors/scan-fields.ts `compileProjection`) the
   * WebAssembly kernel's pass walks on every line holding a marker, in the same call that finds the lines, so
   * that `lineWalked` reads the fields of a chunk's lines straight from the kernel's memory. Undefined: no walk.
   * Asked when the markers are; it must not change while they do not.
   */
  walk?(state: S): object | undefined;
  /**
   * A line holding a marker, walked with `walk(state)`'s projection: the same as `line()` of its bytes, or
   * UNWALKED to have `line()` take it. Lines the walk refused (only JSON.parse can read them) go to `line()`.
   */
  lineWalked?(state: S, walked: WalkedLine, start: number, emit: Emit): LineResult | typeof UNWALKED;
  /**
   * Optional: true when the core wants this read's lines twice (`bytes` of them lie ahead). The file reader
   * then feeds every line of the read once (no hash, no counts, malformed lines passed over silently), calls
   * `rewind`, and feeds the same lines again as a normal read; `end` comes once, after the second pass.
   * Events emitted in the first pass are the read's, before those of the second. RESTART may come only in the
   * first pass. A core that must see a whole file before it knows what its lines mean (pi's branch) can then
   * stream instead of holding every event. Readers that cannot read twice (stdin, windows) never ask.
   */
  twoPass?(state: S, bytes: number): boolean;
  /** With `twoPass`: the first pass is over; the same lines come again. */
  rewind?(state: S): void;
}
