/**
 * Text written as it is made: pieces (a streamed session's sections or lines) gathered into chunks of about
 * 64 KiB, each written with backpressure (a write that returns false waits for `drain`), to stdout or to a
 * pager's stdin on a terminal. A pager that has gone (q before the end) stops the writing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CommandContext } from './command.js';

/** Text out in chunks of about CHUNK characters, each write waiting for `drain` when the stream asks. */
const CHUNK = 1 << 16;

/** Where the text goes: stdout, or a pager's stdin; `closed` once a pager has gone (q before the end). */
export interface Sink {
  out: NodeJS.WritableStream;
  closed: () => boolean;
  done: () => Promise<void>;
}

/** A pager started on a terminal (unless --no-pager); stdout when it cannot start. */
export async function openSink(ctx: CommandContext, page = true): Promise<Sink> {
  const plain: Sink = { out: ctx.stdout, closed: () => false, done: async () => undefined };
  const tty = (ctx.stdout as { isTTY?: boolean }).isTTY === true;
  if (!page || !tty || ctx.values.pager === false) return plain;
  const pager = ctx.env.PAGER || 'less -FRX';
  const child: ChildProcess = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...ctx.env } });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  const stdin = child.stdin;
  if (!started || stdin === null) return plain;
  let gone = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void closed.then(() => (gone = true));
  stdin.on('error', () => (gone = true));
  return {
    out: stdin,
    closed: () => gone,
    done: async () => {
      if (!gone) stdin.end();
      await closed;
    },
  };
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
    const out = this.sink.out;
    if (!out.write(chunk)) await new Promise<void>((resolve) => {
      const go = () => {
        out.off('drain', go);
        out.off('close', go);
        resolve();
      };
      out.on('drain', go);
      out.on('close', go);
    });
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
