/**
 * Text written as it is made: pieces (a streamed session's sections or lines) gathered into chunks of about
 * 64 KiB, each written with backpressure (a write that returns false waits for `drain`), to stdout or to a
 * pager's stdin on a terminal (pager.ts). A pager that has gone (q before the end) stops the writing.
 */
import type { CommandContext } from './command.js';
import { openPager } from './pager.js';
import { writeWaiting, type Sink } from './sink.js';

export type { Sink };

/** Text out in chunks of about CHUNK characters, each write waiting for `drain` when the stream asks. */
const CHUNK = 1 << 16;

/** A pager on a terminal (unless --no-pager); stdout when the shell that runs it cannot be spawned. */
export async function openSink(ctx: CommandContext, page = true): Promise<Sink> {
  const plain: Sink = { write: (chunk) => writeWaiting(ctx.stdout, chunk), closed: () => false, done: async () => undefined };
  const tty = (ctx.stdout as { isTTY?: boolean }).isTTY === true;
  if (!page || !tty || ctx.values.pager === false) return plain;
  return (await openPager(ctx)) ?? plain;
}

/** Buffers text and writes it in CHUNK-sized pieces with backpressure; stops writing once the sink closed. */
class ChunkWriter {
  #parts: string[] = [];
  #size = 0;
  constructor(readonly sink: Sink) {}
  async add(text: string): Promise<void> {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= CHUNK) await this.flush();
  }
  async flush(): Promise<void> {
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    if (chunk === '' || this.sink.closed()) return;
    await this.sink.write(chunk);
  }
}

/** Write every piece to the sink (see the file header); stops reading once the sink has closed, and ends it. */
export async function writePieces(sink: Sink, pieces: AsyncIterable<string>): Promise<void> {
  const w = new ChunkWriter(sink);
  try {
    for await (const piece of pieces) {
      if (sink.closed()) return;
      await w.add(piece);
    }
    await w.flush();
  } finally {
    await sink.done();
  }
}
