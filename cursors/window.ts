/**
 * A LineCore over a window of a file's bytes already in memory (a session list's head and tail), through the
 * one line feed (line-feed.ts), tolerant as a default read is: a fresh state, every kind, malformed lines
 * skipped. A core that cannot end in the middle of a file (a tail window) gives what it emitted so far.
 */
import { normalizeReadOptions, type Emit, type LineCore } from './protocol/codec.js';
import { createLineFeed } from './line-feed.js';

/** Feed `buf[0, len)`, which starts at file offset `offset`, until `stop()` says the caller has enough. */
export function feedWindow(core: LineCore<unknown>, file: string, buf: Buffer, len: number, offset: number, emit: Emit, stop?: () => boolean): void {
  const options = normalizeReadOptions({});
  const feed = createLineFeed(core, core.init({ file, options }), options, file, emit, { offset, ...(stop !== undefined && { stop }) });
  feed.push(buf, len);
  try {
    feed.end();
  } catch {
    // see the header: a tail window's core may refuse to end
  }
}
