/** Where streamed text goes (stream-out.ts): stdout or a pager (pager.ts), with backpressure. */

/** Where the text goes: stdout, or a pager's stdin (pager.ts); `closed` once a pager has gone (q before the end). */
export interface Sink {
  /** Write a chunk, resolved once the stream can take more. */
  write(chunk: string): Promise<void>;
  closed(): boolean;
  /** End the text; throws a SessionfoldError when it could not be shown (a pager that failed). */
  done(): Promise<void>;
}

/** Write `chunk` to `out`; resolved at once, or when `out` drains or closes if it asks to wait. */
export function writeWaiting(out: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (out.write(chunk)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const go = () => {
      out.off('drain', go);
      out.off('close', go);
      resolve();
    };
    out.on('drain', go);
    out.on('close', go);
  });
}
