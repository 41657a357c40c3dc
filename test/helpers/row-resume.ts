/**
 * Resumed reads of a database codec as the event cache applies them: the rows each read took (its
 * `info.lines`), and the events held after a read (the `replaced` last events of each kind dropped, the
 * rest appended; everything replaced when the read restarted).
 */
import type { Codec, ReadCursor, ReadInfo, ReadOptions, ResumeStart } from '../../cursors/protocol/codec.js';
import { newReadInfo } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';

export interface Read {
  events: SessionfoldEvent[];
  start: ResumeStart | undefined;
  cursor: ReadCursor | undefined;
  /** Rows the read took. */
  rows: number;
}

/** A read before it starts: no events, start, cursor or rows yet. */
export const emptyRead = (): Read => ({ events: [], start: undefined, cursor: undefined, rows: 0 });

/**
 * The read options that resume from `from` (from the start without one) and note the start and the cursor in
 * `r`; `info` counts the rows, for `r.rows` once the read is done. For a caller that reads some other way
 * than `readCounted` (a batch).
 */
export function resumeOptions(r: Read, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): { info: ReadInfo; options: ReadOptions } {
  const info = newReadInfo();
  const resume = { ...(from && { from }), onStart: (s: ResumeStart) => (r.start = s), onCursor: (u: { cursor: ReadCursor }) => (r.cursor = u.cursor) };
  return { info, options: { ...(kinds && { kinds }), info, resume } };
}

/** Read `path` with `codec` from `from` (a full read without one): its events, start, cursor and rows taken. */
export async function readCounted(codec: Codec, path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Read> {
  const r = emptyRead();
  const { info, options } = resumeOptions(r, from, kinds);
  for await (const e of codec.read(path, options)) r.events.push(e);
  r.rows = info.lines;
  return r;
}

/** What a reader holds after applying `next` to `held` as the event cache does. */
export function applyRead(held: readonly SessionfoldEvent[], next: Read): SessionfoldEvent[] {
  if (next.start?.restarted !== false) return [...next.events];
  const drop: Record<string, number> = { ...next.start.replaced };
  const kept: SessionfoldEvent[] = [];
  for (let i = held.length - 1; i >= 0; i--) {
    const e = held[i]!;
    if ((drop[e.type] ?? 0) > 0) {
      drop[e.type]!--;
      continue;
    }
    kept.unshift(e);
  }
  return [...kept, ...next.events];
}
