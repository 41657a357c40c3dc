/**
 * Resumed reads of a database codec as the event cache applies them: the rows each read took (its
 * `info.lines`), and the events held after a read (the `replaced` last events of each kind dropped, the
 * rest appended; everything replaced when the read restarted).
 */
import type { Codec, ReadCursor, ResumeStart } from '../../cursors/protocol/codec.js';
import { newReadInfo } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';

export interface Read {
  events: SessionfoldEvent[];
  start: ResumeStart | undefined;
  cursor: ReadCursor | undefined;
  /** Rows the read took. */
  rows: number;
}

export async function readCounted(codec: Codec, path: string, from?: ReadCursor, kinds?: SessionfoldEvent['type'][]): Promise<Read> {
  const info = newReadInfo();
  const r: Read = { events: [], start: undefined, cursor: undefined, rows: 0 };
  for await (const e of codec.read(path, { ...(kinds && { kinds }), info, resume: { ...(from && { from }), onStart: (s) => (r.start = s), onCursor: (u) => (r.cursor = u.cursor) } })) r.events.push(e);
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
