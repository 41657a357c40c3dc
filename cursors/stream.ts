/**
 * A LineCore over a byte stream (stdin) through the one line feed (line-feed.ts). The stream's chunks are
 * pushed as bytes, never decoded, so offsets are byte offsets in the stream whatever it holds (invalid UTF-8,
 * CRLF), equal to a read of the same bytes from a file. No cursor: a stream cannot be re-read.
 */
import type { Readable } from 'node:stream';
import type { ReadOptions } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import type { LineCore } from './core.js';
import { createLineFeed } from './line-feed.js';

export async function* readStreamEvents<S>(core: LineCore<S>, input: Readable, options: Omit<ReadOptions, 'resume'> = {}): AsyncGenerator<SessionfoldEvent> {
  const opts = normalizeReadOptions(options);
  const out: SessionfoldEvent[] = [];
  const feed = createLineFeed(core, core.init({ file: '-', options: opts }), opts, '-', (e) => out.push(e));
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    opts.info.bytes += b.length;
    if (feed.push(b, b.length)) throw new Error('unreachable: RESTART in a fresh state');
    yield* out;
    out.length = 0;
  }
  feed.end();
  yield* out;
}
