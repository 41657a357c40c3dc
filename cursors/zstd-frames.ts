/**
 * The frames of a file of concatenated zstd frames, found from their structure without decoding a block: a
 * frame is its magic, a header whose length its descriptor byte gives, blocks that each say their size, and
 * the content checksum its descriptor announces (RFC 8878, section 3.1.1). A writer that appends one frame per
 * batch (DeepSeek Harness's session logs, codecs/dsh/README.md) makes every frame end a point to resume from,
 * and a frame cut by the end of the file the one still being written.
 *
 * Pure and synchronous: `push` takes the file's bytes in any chunks and hands each complete frame over with
 * its bytes (copied: the caller reuses its read buffer) and its file offsets. A frame holds its bytes until it
 * ends, up to `maxFrameBytes`; one larger is walked to its end without them, and handed over as oversized.
 */

/** A zstd frame's magic number, little-endian at its first byte. */
export const ZSTD_MAGIC = 0xfd2fb528;

/** One complete frame of the input. */
export interface ZstdFrame {
  /** File offset of its first byte. */
  start: number;
  /** File offset just past its last byte. */
  end: number;
  /** Its bytes, or undefined when it was over `maxFrameBytes`. */
  bytes: Buffer | undefined;
  /** The content checksum it carries (the low 32 bits of XXH64 of its content), or undefined when none. */
  checksum: number | undefined;
}

/** The input is not a sequence of zstd frames from `offset` on (a bad magic, a reserved bit or block type). */
export class ZstdFrameError extends Error {
  override readonly name = 'ZstdFrameError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Where in a frame the next bytes are. */
const Phase = { Magic: 0, Descriptor: 1, HeaderRest: 2, BlockHeader: 3, BlockBody: 4, Checksum: 5 } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** Bytes of the frame header after the descriptor, as its descriptor byte says (window, dictionary id, content size). */
function headerRest(descriptor: number): number {
  const sizeFlag = descriptor >>> 6;
  const single = (descriptor & 0x20) !== 0;
  const dict = descriptor & 0x03;
  return (single ? 0 : 1) + (dict === 3 ? 4 : dict) + (sizeFlag === 0 ? (single ? 1 : 0) : 1 << sizeFlag);
}

export class ZstdFrameSplitter {
  readonly #maxFrameBytes: number;
  #frameStart: number;
  #phase: Phase = Phase.Magic;
  #need = 4;
  readonly #small = Buffer.alloc(8);
  #fill = 0;
  #parts: Buffer[] = [];
  #frameBytes = 0;
  #oversized = false;
  #checksumFlag = false;
  #lastBlock = false;

  /** `offset`: the file offset of the first byte pushed, a frame's start. */
  constructor(offset = 0, maxFrameBytes = 256 * (1 << 20)) {
    this.#frameStart = offset;
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** File offset of the frame being read: the end of the last complete frame. */
  get frameStart(): number {
    return this.#frameStart;
  }

  /** The bytes of the frame cut by the end of the input so far (empty when none was begun); undefined when too large to hold. */
  tail(): Buffer | undefined {
    return this.#oversized ? undefined : Buffer.concat(this.#parts, this.#frameBytes);
  }

  /** Push `chunk[0, n)`; each frame it completes goes to `onFrame`. Throws ZstdFrameError where the structure breaks. */
  push(chunk: Uint8Array, n: number, onFrame: (frame: ZstdFrame) => void): void {
    let i = 0;
    while (i < n) {
      const take = Math.min(this.#phase === Phase.BlockBody ? this.#need : this.#need - this.#fill, n - i);
      this.#keep(chunk, i, take);
      if (this.#phase === Phase.BlockBody) {
        this.#need -= take;
        i += take;
        if (this.#need === 0) this.#afterBlock(onFrame);
        continue;
      }
      this.#small.set(chunk.subarray(i, i + take), this.#fill);
      this.#fill += take;
      i += take;
      if (this.#fill < this.#need) continue;
      this.#fill = 0;
      this.#field(onFrame);
    }
  }

  #keep(chunk: Uint8Array, at: number, take: number): void {
    this.#frameBytes += take;
    if (this.#oversized) return;
    if (this.#frameBytes > this.#maxFrameBytes) {
      this.#oversized = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(Buffer.from(chunk.subarray(at, at + take)));
  }

  /** A complete field in `#small` (#need bytes of it): check it and move to what follows. */
  #field(onFrame: (frame: ZstdFrame) => void): void {
    const s = this.#small;
    switch (this.#phase) {
      case Phase.Magic:
        if (s.readUInt32LE(0) !== ZSTD_MAGIC) throw new ZstdFrameError(`no zstd frame magic at byte ${this.#frameStart}`, this.#frameStart);
        return this.#to(Phase.Descriptor, 1);
      case Phase.Descriptor: {
        const d = s[0] as number;
        if ((d & 0x18) !== 0) throw new ZstdFrameError(`reserved zstd frame header bit at byte ${this.#frameStart + 4}`, this.#frameStart);
        this.#checksumFlag = (d & 0x04) !== 0;
        const rest = headerRest(d);
        return rest > 0 ? this.#to(Phase.HeaderRest, rest) : this.#to(Phase.BlockHeader, 3);
      }
      case Phase.HeaderRest:
        return this.#to(Phase.BlockHeader, 3);
      case Phase.BlockHeader: {
        const h = s.readUIntLE(0, 3);
        const type = (h >>> 1) & 3;
        if (type === 3) throw new ZstdFrameError(`reserved zstd block type in the frame at byte ${this.#frameStart}`, this.#frameStart);
        this.#lastBlock = (h & 1) !== 0;
        const size = type === 1 ? 1 : h >>> 3;
        if (size > 0) return this.#to(Phase.BlockBody, size);
        return this.#afterBlock(onFrame);
      }
      case Phase.Checksum:
        return this.#finish(s.readUInt32LE(0), onFrame);
      default:
        return;
    }
  }

  #afterBlock(onFrame: (frame: ZstdFrame) => void): void {
    if (!this.#lastBlock) return this.#to(Phase.BlockHeader, 3);
    if (this.#checksumFlag) return this.#to(Phase.Checksum, 4);
    this.#finish(undefined, onFrame);
  }

  #to(phase: Phase, need: number): void {
    this.#phase = phase;
    this.#need = need;
  }

  #finish(checksum: number | undefined, onFrame: (frame: ZstdFrame) => void): void {
    const start = this.#frameStart;
    const end = start + this.#frameBytes;
    const bytes = this.#oversized ? undefined : Buffer.concat(this.#parts, this.#frameBytes);
    this.#frameStart = end;
    this.#parts = [];
    this.#frameBytes = 0;
    this.#oversized = false;
    this.#to(Phase.Magic, 4);
    onFrame({ start, end, bytes, checksum });
  }
}
