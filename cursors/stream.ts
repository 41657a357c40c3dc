/**
 * A LineCore over a text stream (stdin): split2 splits it, each line goes to the core. No cursor: a stream
 * cannot be re-read. Offsets are byte offsets in the stream.
 */
import split2 from 'split2';
import type { Readable } from 'node:stream';
import type { ReadOptions } from './protocol/codec.js';
import { normalizeReadOptions } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import type { LineCore } from './core.js';

export async function* readStreamEvents<S>(core: LineCore<S>, input: Readable, options: Omit<ReadOptions, 'resume'> = {}): AsyncGenerator<SessionfoldEvent> {
  const opts = normalizeReadOptions(options);
  const state = core.init({ file: '-', options: opts });
  const out: SessionfoldEvent[] = [];
  const emit = (e: SessionfoldEvent) => {
    if (opts.kinds.has(e.type)) {
      opts.info.events++;
      out.push(e);
    }
  };
  let offset = 0;
  let lastByte = -1;
  input.on('data', (chunk: Buffer | string) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (b.length > 0) lastByte = b[b.length - 1] as number;
  });
  // split2 keeps an unterminated last line and emits it at the end; we drop it, as the file reader does.
  const lines = input.pipe(split2('\n', { maxLength: opts.maxLineBytes, skipOverflow: true } as never)) as AsyncIterable<string>;
  let pendingLine: string | undefined;
  for await (const text of lines) {
    if (pendingLine !== undefined) {
      yield* handle(pendingLine);
    }
    pendingLine = text;
  }
  // The last piece split2 gives is complete only if the stream ended in LF; otherwise it is held back.
  if (pendingLine !== undefined && lastByte === 10) yield* handle(pendingLine);
  core.end(state, emit);
  for (const e of out) yield e;
  out.length = 0;

  function* handle(text: string): Generator<SessionfoldEvent> {
    const bytes = Buffer.from(text, 'utf8');
    const start = offset;
    offset += bytes.length + 1;
    opts.info.lines++;
    const line = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
    if (line.length > 0) {
      try {
        core.line(state, line, start, emit);
      } catch (e) {
        if (e instanceof SessionfoldError && (e.code === 'MALFORMED_LINE' || e.code === 'PARSE_ERROR')) {
          // The same code as a strict file read (read-jsonl.ts, sync.ts): PARSE_ERROR wraps the line's error.
          if (opts.strict) throw new SessionfoldError('PARSE_ERROR', e.message, { agent: e.agent, file: '-', byteOffset: e.byteOffset, cause: e });
          opts.info.skippedLines++;
          opts.onSkip?.(e);
        } else throw e;
      }
    }
    for (const e of out) yield e;
    out.length = 0;
  }
}
