/**
 * The contract between the generic JSONL reader and a codec's pure engine. A LineCore is synchronous and
 * has no I/O: it gets one complete line at a time and emits events. All its mutable state lives in one plain
 * object from `init()` (csv-parse `init_state`), which `snapshot()` turns into the JSON a cursor carries.
 */
import type { KindCounts, SessionfoldEvent } from '../src/events.js';
import type { NormalizedReadOptions } from '../src/codec.js';
import { SessionfoldError } from '../src/errors.js';

export type Emit = (event: SessionfoldEvent) => void;

/** Returned by `line()` when an id's 32-bit hash was already seen in a resumed state: re-read from byte 0. */
export const RESTART = Symbol('sessionfold.restart');
export type LineResult = void | typeof RESTART;

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
}

/** Parse a line as a JSON object, or throw MALFORMED_LINE. */
export function parseJsonObject(line: Buffer, start: number, agent: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch (cause) {
    throw new SessionfoldError('MALFORMED_LINE', `Malformed JSON line at byte ${start} of ${file}`, {
      agent,
      file,
      byteOffset: start,
      raw: line.subarray(0, 200).toString('utf8'),
      cause,
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SessionfoldError('MALFORMED_LINE', `Line at byte ${start} of ${file} is not a JSON object`, {
      agent,
      file,
      byteOffset: start,
      raw: line.subarray(0, 200).toString('utf8'),
    });
  }
  return value as Record<string, unknown>;
}

/** True when the line holds any of the markers (a byte-level pre-filter before JSON.parse). */
export function hasAnyMarker(line: Buffer, markers: readonly Buffer[]): boolean {
  for (const m of markers) if (line.indexOf(m) !== -1) return true;
  return false;
}

/** The reader's side of `emit`: only the kinds the read wants, counted in `info.events`. */
export function kindFilter(options: NormalizedReadOptions, emit: Emit): Emit {
  const info = options.info;
  const kinds = options.kinds;
  if (options.allKinds) {
    return (e) => {
      info.events++;
      emit(e);
    };
  }
  return (e) => {
    if (kinds.has(e.type)) {
      info.events++;
      emit(e);
    }
  };
}

/** How a reader skips a line the core refused (counted; PARSE_ERROR when the read is strict). */
export function lineSkipper(options: NormalizedReadOptions, file: string): (err: SessionfoldError) => void {
  return (err) => {
    if (options.strict) throw new SessionfoldError('PARSE_ERROR', err.message, { agent: err.agent, file, byteOffset: err.byteOffset, cause: err });
    options.info.skippedLines++;
    options.onSkip?.(err);
  };
}

/** Hand a line to the core as a reader does: true for RESTART; a malformed line is skipped through `skip`. */
export function feedLine<S>(core: LineCore<S>, state: S, line: Buffer, start: number, emit: Emit, skip: (err: SessionfoldError) => void): boolean {
  try {
    return core.line(state, line, start, emit) === RESTART;
  } catch (e) {
    if (e instanceof SessionfoldError && (e.code === 'MALFORMED_LINE' || e.code === 'PARSE_ERROR')) skip(e);
    else throw e;
    return false;
  }
}
