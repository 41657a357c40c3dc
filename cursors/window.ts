/**
 * A LineCore over a window of a file's bytes already in memory (a session list's head and tail), through the
 * one line feed (line-feed.ts), tolerant as a default read is: a fresh state, every kind, malformed lines
 * skipped. A core that cannot end in the middle of a file (a tail window) gives what it emitted so far.
 */
import { normalizeReadOptions, type Emit, type LineCore } from './protocol/codec.js';
import { createLineFeed } from './line-feed.js';

/** A window fed in chunks (a head read that goes on until the caller has enough). */
export interface WindowFeed {
  /** Push `chunk[0, n)`, the next bytes of the window; true once `stop()` said the caller has enough. */
  push(chunk: Buffer, n: number): boolean;
  /** End the window (see the header: a core that refuses to end gives what it emitted). */
  end(): void;
}

/** A feed of a window that starts at file offset `offset`, until `stop()` says the caller has enough. */
export function openWindowFeed(core: LineCore<unknown>, file: string, offset: number, emit: Emit, stop?: () => boolean): WindowFeed {
  const options = normalizeReadOptions({});
  const feed = createLineFeed(core, core.init({ file, options }), options, file, emit, { offset, ...(stop !== undefined && { stop }) });
  return {
    push: (chunk, n) => feed.push(chunk, n),
    end() {
      try {
        feed.end();
      } catch {
        // see the header: a tail window's core may refuse to end
      }
    },
  };
}

/** Feed `buf[0, len)`, which starts at file offset `offset`, until `stop()` says the caller has enough. */
export function feedWindow(core: LineCore<unknown>, file: string, buf: Buffer, len: number, offset: number, emit: Emit, stop?: () => boolean): void {
  const feed = openWindowFeed(core, file, offset, emit, stop);
  feed.push(buf, len);
  feed.end();
}
