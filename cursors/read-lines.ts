/**
 * `readLines`: the bare line reader over a file, for tools and benchmarks that want lines, not events.
 * Each line is copied out of the reused buffer only when the consumer asks (`copy: true`); otherwise the
 * Buffer is valid until the next iteration.
 */
import { open } from 'node:fs/promises';
import { DEFAULT_BUFFER_SIZE, DEFAULT_MAX_LINE_BYTES } from './protocol/codec.js';
import { LineSplitter } from './line-splitter.js';

export interface LineRecord {
  line: Buffer;
  start: number;
  next: number;
}

export async function* readLines(
  file: string,
  options: { bufferSize?: number; maxLineBytes?: number; start?: number; copy?: boolean } = {},
): AsyncGenerator<LineRecord> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(options.bufferSize ?? DEFAULT_BUFFER_SIZE);
    const out: LineRecord[] = [];
    const copy = options.copy ?? false;
    const splitter = new LineSplitter({
      startOffset: options.start ?? 0,
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      onLine: (line, start, next) => out.push({ line: copy ? Buffer.from(line) : line, start, next }),
      onLongLine: () => undefined,
    });
    let pos = options.start ?? 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      splitter.push(buf, bytesRead);
      for (const r of out) yield r;
      out.length = 0;
    }
  } finally {
    await fh.close();
  }
}
