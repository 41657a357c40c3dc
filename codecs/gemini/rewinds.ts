/**
 * The lookahead of a conversation read: where a chat rewinds, found before the read by one pass over its
 * bytes that parses only the lines holding `"$rewindTo"` (the LineSplitter's marker filter: the other lines
 * are searched, never copied). With it the core (parse.ts) keeps a message that a later line rewinds to open
 * until that rewind, so the rewind drops it and everything after it however many turns back it reaches.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES } from '../../cursors/protocol/codec.js';
import { LineSplitter } from '../../cursors/line-splitter.js';
import { isRecord } from './schema.js';

const REWIND_MARKERS: readonly Buffer[] = [Buffer.from('"$rewindTo"')];
const CHUNK = 1 << 20;

/**
 * Fill `into` with each rewind target of `file` from byte `from` on (message id → offset of the last line
 * that rewinds to it). A file that cannot be read adds nothing (the read that follows reports it).
 */
export function findRewinds(file: string, from: number, into: Map<string, number>): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return;
    const size = st.size;
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size - from + 1)));
    const splitter = new LineSplitter({
      startOffset: from,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      filter: { markers: () => REWIND_MARKERS, onFiltered: () => undefined, readAt: (b, position) => readSync(fd, b, 0, b.length, position) },
      onLine(line, start) {
        if (line.indexOf(REWIND_MARKERS[0] as Buffer) === -1) return;
        let rec: unknown;
        try {
          rec = JSON.parse(line.toString('utf8'));
        } catch {
          return;
        }
        if (isRecord(rec) && typeof rec.$rewindTo === 'string') into.set(rec.$rewindTo, start);
      },
      onLongLine: () => undefined,
    });
    for (let pos = from; pos < size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (n === 0) break;
      splitter.push(buf, n);
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}
