/**
 * `read()` for a codec whose parse is synchronous and whole (a database snapshot, a JSON document): the
 * codec's parse fills an array, and this turns it into the `read()` contract: options normalized once, the
 * kinds filter handed to the parse, `onStart`/`onCursor` for a RowCursor, `info` counts, and skipped
 * records reported through `onSkip` (or a PARSE_ERROR when strict).
 */
import type { NormalizedReadOptions, ReadOptions, RowCursor } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import { SessionfoldError } from './protocol/errors.js';
import type { KindCounts, SessionfoldEvent } from './protocol/events.js';
import type { RowRestartReason } from './sqlite-rows.js';

/** What one parse reports. */
export interface CollectedRead {
  /**
   * How a RowCursor read started; absent for a source read whole (restarted, `no-cursor`). `replaced`: per
   * kind, how many of the last events the previous read yielded this one yields again.
   */
  start?: { restarted: boolean; reason: RowRestartReason | undefined; replaced?: KindCounts };
  /** The cursor after the read; absent for a source read whole (no cursor to resume from). */
  cursor?: RowCursor;
  /** Records (rows, files, array items) and bytes of text read. */
  records: number;
  bytes: number;
  /** Records skipped as malformed. */
  skipped: number;
}

/**
 * Yield what `parse` emits. `parse` gets the normalized options (their `resume.from` included) and an emit
 * function; it must honour `options.kinds`.
 */
export async function* readCollected(
  agent: string,
  file: string,
  user: ReadOptions | undefined,
  parse: (options: NormalizedReadOptions, emit: (e: SessionfoldEvent) => void) => CollectedRead | Promise<CollectedRead>,
): AsyncGenerator<SessionfoldEvent> {
  const o = normalizeReadOptions(user);
  const events: SessionfoldEvent[] = [];
  const r = await parse(o, (e) => events.push(e));
  const start = r.start ?? { restarted: true, reason: 'no-cursor' as const };
  o.resume?.onStart?.({ restarted: start.restarted, ...(start.reason !== undefined && { reason: start.reason }), replaced: start.restarted ? {} : (start.replaced ?? {}) });
  o.info.bytes += r.bytes;
  o.info.lines += r.records;
  if (r.skipped > 0) {
    const message = `${r.skipped} malformed record(s) in ${file}`;
    if (o.strict) throw new SessionfoldError('PARSE_ERROR', message, { agent, file });
    o.info.skippedLines += r.skipped;
    const err = new SessionfoldError('MALFORMED_LINE', message, { agent, file });
    for (let i = 0; i < r.skipped; i++) o.onSkip?.(err);
  }
  for (const e of events) {
    o.info.events++;
    yield e;
  }
  if (r.cursor !== undefined) o.resume?.onCursor?.({ cursor: r.cursor, partialLine: false, info: o.info });
}
