/**
 * `parseSync`: the same LineCore over an in-memory string or Buffer, fed in chunks of any size. Tests use it
 * for chunk invariance; it is also handy for parsing a session held in memory.
 */
import type { ReadOptions } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import { RESTART, type LineCore } from './core.js';
import { LineSplitter } from './line-splitter.js';

export interface ParseSyncOptions extends Omit<ReadOptions, 'resume' | 'bufferSize'> {
  /** Feed the input in chunks of this many bytes (default: all at once). */
  chunkSize?: number;
  /** Name used for the file in errors and events that carry it. */
  file?: string;
}

export function parseSync<S>(core: LineCore<S>, input: string | Uint8Array, options: ParseSyncOptions = {}): SessionfoldEvent[] {
  const opts = normalizeReadOptions(options);
  const file = options.file ?? '<memory>';
  const state = core.init({ file, options: opts });
  const out: SessionfoldEvent[] = [];
  const emit = (e: SessionfoldEvent) => {
    if (opts.kinds.has(e.type)) {
      opts.info.events++;
      out.push(e);
    }
  };
  const skip = (err: SessionfoldError) => {
    if (opts.strict) throw new SessionfoldError('PARSE_ERROR', err.message, { file, byteOffset: err.byteOffset, cause: err });
    opts.info.skippedLines++;
    opts.onSkip?.(err);
  };
  const splitter = new LineSplitter({
    startOffset: 0,
    maxLineBytes: opts.maxLineBytes,
    onLine(line, start) {
      if (line.length === 0) return;
      try {
        if (core.line(state, line, start, emit) === RESTART) throw new Error('unreachable: RESTART in a fresh state');
      } catch (e) {
        if (e instanceof SessionfoldError && (e.code === 'MALFORMED_LINE' || e.code === 'PARSE_ERROR')) skip(e);
        else throw e;
      }
    },
    onLongLine(start, _next, length) {
      skip(new SessionfoldError('LINE_TOO_LONG', `Line at byte ${start} is ${length} bytes, over maxLineBytes ${opts.maxLineBytes}`, { file, byteOffset: start }));
    },
  });
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const size = options.chunkSize ?? Math.max(1, bytes.length);
  // Copy each chunk into a reused buffer, like the file reader, so a core that keeps a slice is caught.
  const scratch = Buffer.alloc(size);
  for (let i = 0; i < bytes.length; i += size) {
    const n = bytes.copy(scratch, 0, i, Math.min(bytes.length, i + size));
    splitter.push(scratch, n);
    scratch.fill(0);
  }
  core.end(state, emit);
  opts.info.lines += splitter.lines;
  opts.info.bytesCommitted = splitter.committed;
  opts.info.bytes = bytes.length;
  return out;
}
