/**
 * The contract between the generic JSONL reader and a codec's pure engine. A LineCore is synchronous and
 * has no I/O: it gets one complete line at a time and emits events. All its mutable state lives in one plain
 * object from `init()` (csv-parse `init_state`), which `snapshot()` turns into the JSON a cursor carries.
 */
import type { NormalizedReadOptions } from './protocol/codec.js';
import type { EventKind } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';

import { RESTART, UNWALKED, type Emit, type LineCore, type WalkedLine } from './protocol/codec.js';

export { RESTART, UNWALKED, type CoreContext, type Emit, type LineCore, type LineResult, type WalkedLine } from './protocol/codec.js';

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

/**
 * The `line()` of a core that reads every line as one JSON object: a line that is not one is thrown as
 * MALFORMED_LINE (the reader counts and skips it), the others go to `record` with their byte offset.
 */
export function jsonObjectLine<S extends { file: string }>(agent: string, record: (state: S, rec: Record<string, unknown>, start: number, emit: Emit) => void) {
  return (state: S, line: Buffer, start: number, emit: Emit): void => record(state, parseJsonObject(line, start, agent, state.file), start, emit);
}

/** A JSON object line's handler: the state, the parsed record, its byte offset and the event sink. */
type RecordHandler<S> = (state: S, rec: Record<string, unknown>, start: number, emit: Emit) => void;

/** The kinds that carry the conversation: a read that wants none of them wants only a session's metadata and usage. */
export const CONVERSATION_KINDS = ['message', 'tool_call', 'tool_result'] as const satisfies readonly EventKind[];

/**
 * True when the read wants none of `needs` (by default the conversation) and no native records (`raw`): a
 * codec whose session and usage come from a few record types may then skip every other line unparsed. A codec
 * whose session or end state depends on every line adds `'session'` to `needs`.
 */
export function isLeanRead(options: NormalizedReadOptions, needs: readonly EventKind[] = CONVERSATION_KINDS): boolean {
  return !options.raw && !needs.some((k) => options.kinds.has(k));
}

/**
 * The `markers()` and `line()` of a core whose lean read (`state.lean`, from `isLeanRead`) parses only the lines
 * that hold one of `markers` and hands them to `lean`; every other read parses every line and hands it to
 * `record`. A line that is not a JSON object is thrown as MALFORMED_LINE, as in `jsonObjectLine`.
 */
export function usageGatedJsonLines<S extends { file: string; lean: boolean }>(agent: string, markers: readonly Buffer[], lean: RecordHandler<S>, record: RecordHandler<S>): Pick<LineCore<S>, 'markers' | 'line'> {
  return {
    markers: (s) => (s.lean ? markers : undefined),
    line(s, line, start, emit) {
      if (s.lean && !hasAnyMarker(line, markers)) return;
      const rec = parseJsonObject(line, start, agent, s.file);
      (s.lean ? lean : record)(s, rec, start, emit);
    },
  };
}

/** The `snapshot()` of a core whose state is plain JSON but for `file`, which `restore()` takes from its context. */
export function snapshotWithoutFile<S extends { file: string }>(state: S): Omit<S, 'file'> {
  const { file: _file, ...rest } = state;
  return rest;
}

/** For `restore()`: copy into a fresh state the fields of `keys` that the snapshot holds as strings. */
export function restoreStrings<S>(state: S, snapshot: Partial<S>, keys: readonly (keyof S)[]): void {
  for (const k of keys) if (typeof snapshot[k] === 'string') state[k] = snapshot[k] as S[keyof S];
}

/** For `restore()`: set in a fresh state the fields of `keys` that the snapshot holds as `true` (a flag is false when absent). */
export function restoreFlags<S>(state: S, snapshot: Partial<S>, keys: readonly (keyof S)[]): void {
  for (const k of keys) if (snapshot[k] === true) state[k] = true as S[keyof S];
}

/** JSON text (a column's value, a sidecar file's text) as an object, or undefined (not text, not JSON, not an object). */
export function jsonObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A value an agent may record either as JSON or as JSON text (a tool call's arguments): a string is parsed when
 * it parses and kept as it is otherwise; anything else is returned as it is (undefined as null).
 */
export function parseJsonText(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
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

/** Hand a walked line to the core (`lineWalked`, else `line()` of its bytes), as `feedLine` does. */
export function feedWalked<S>(
  core: LineCore<S>,
  state: S,
  walked: WalkedLine,
  start: number,
  emit: Emit,
  skip: (err: SessionfoldError) => void,
): boolean {
  let r;
  try {
    r = (core.lineWalked as NonNullable<LineCore<S>['lineWalked']>)(state, walked, start, emit);
  } catch (e) {
    if (e instanceof SessionfoldError && (e.code === 'MALFORMED_LINE' || e.code === 'PARSE_ERROR')) skip(e);
    else throw e;
    return false;
  }
  if (r === UNWALKED) return feedLine(core, state, walked.bytes.subarray(walked.lineAt, walked.lineEnd), start, emit, skip);
  return r === RESTART;
}
