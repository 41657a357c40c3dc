/**
 * A LineCore read through the WebAssembly kernel's walking pass, as a read without the N-API addon
 * (`SESSIONFOLD_NATIVE=0`) runs it, or all by `line()`: on a kernel instance of the test's own, so the
 * walk is taken whether or not the process has the addon loaded.
 */
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createLineFeed } from '../../cursors/line-feed.js';
import { newReadInfo, normalizeReadOptions, type LineCore } from '../../cursors/protocol/codec.js';
import { WASM_READ_BYTES, type WasmKernel } from '../../cursors/wasm.js';

/** `b` in pieces of `size` bytes (views, not copies). */
export const cut = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let at = 0; at < b.length; at += size) out.push(b.subarray(at, at + size));
  return out;
};

/** Copy `bytes` into one of `w`'s read buffers at `pad`, run `f` on it there, give the buffer back. */
export function inMemory<T>(w: WasmKernel, bytes: Uint8Array, pad: number, f: (b: Buffer) => T): T {
  const buf = w.takeReadBuffer(WASM_READ_BYTES);
  if (buf === undefined) throw new Error('no read buffer free');
  try {
    buf.set(bytes, pad);
    return f(buf.subarray(pad, pad + bytes.length));
  } finally {
    w.giveReadBuffer(buf);
  }
}

/**
 * A core's events and counts for `body` read as the file `file` (the cost scan's kinds: session and usage,
 * no titles), in chunks of `size`: through `w`'s walk, or all by line() when `w` is undefined. `walked`
 * counts the lines the core read from the walk.
 */
export function readCore<S>(core: LineCore<S>, file: string, body: Buffer, size: number, w: WasmKernel | undefined): { events: SessionfoldEvent[]; info: unknown; walked: number } {
  const info = newReadInfo();
  const options = normalizeReadOptions({ kinds: ['session', 'usage'], titles: false, info });
  const state = core.init({ file, options });
  const events: SessionfoldEvent[] = [];
  let walked = 0;
  const lineWalked = core.lineWalked;
  const counting: LineCore<S> = lineWalked === undefined ? core : { ...core, lineWalked: (s, wl, start, emit) => (walked++, lineWalked(s, wl, start, emit)) };
  const markers = core.markers as NonNullable<typeof core.markers>;
  const feed = createLineFeed(counting, state, options, file, (e) => events.push(e), {
    filter: {
      markers: () => markers(state),
      onFiltered: () => void info.filteredLines++,
      filteredLines: (n) => void (info.filteredLines += n),
      readAt: (b, position) => body.copy(b, 0, position, position + b.length),
      ...(w !== undefined && core.walk !== undefined && { walk: () => (core.walk as NonNullable<typeof core.walk>)(state) }),
    },
    wasm: w,
  });
  for (const c of cut(body, size)) {
    info.bytes += c.length;
    if (w !== undefined) inMemory(w, c, 0, (b) => feed.push(b, c.length));
    else feed.push(Buffer.from(c), c.length);
  }
  feed.end();
  return { events, info, walked };
}
