/**
 * `parseSync`: a LineCore over an in-memory string or Buffer, fed in chunks of any size through the one line
 * feed (line-feed.ts). Tests use it for chunk invariance; it also parses a session held in memory.
 */
import type { ReadOptions } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import type { LineCore } from './core.js';
import { createLineFeed } from './line-feed.js';

export interface ParseSyncOptions extends Omit<ReadOptions, 'resume' | 'bufferSize'> {
  /** Feed the input in chunks of this many bytes (default: all at once). */
  chunkSize?: number;
  /** Name used for the file in errors and events that carry it. */
  file?: string;
}

export function parseSync<S>(core: LineCore<S>, input: string | Uint8Array, options: ParseSyncOptions = {}): SessionfoldEvent[] {
  const opts = normalizeReadOptions(options);
  const file = options.file ?? '<memory>';
  const out: SessionfoldEvent[] = [];
  const feed = createLineFeed(core, core.init({ file, options: opts }), opts, file, (e) => out.push(e));
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const size = options.chunkSize ?? Math.max(1, bytes.length);
  // Copy each chunk into a reused buffer, like the file reader, so a core that keeps a slice is caught.
  const scratch = Buffer.alloc(size);
  for (let i = 0; i < bytes.length; i += size) {
    const n = bytes.copy(scratch, 0, i, Math.min(bytes.length, i + size));
    if (feed.push(scratch, n)) throw new Error('unreachable: RESTART in a fresh state');
    scratch.fill(0);
  }
  feed.end();
  opts.info.bytes = bytes.length;
  return out;
}
