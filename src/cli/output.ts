/** Buffered NDJSON / text output that respects backpressure: one write per ~64 KiB, not one per event. */
export class LineWriter {
  #parts: string[] = [];
  #size = 0;
  readonly #out: NodeJS.WritableStream;
  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }
  async line(text: string): Promise<void> {
    this.#parts.push(text, '\n');
    this.#size += text.length + 1;
    if (this.#size >= 65536) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#parts.length === 0) return;
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    if (!this.#out.write(chunk)) await new Promise<void>((resolve) => this.#out.once('drain', () => resolve()));
  }
}
