/**
 * A zstd frame that stores its content as raw blocks (RFC 8878 3.1.1: block type 0), with its content size and
 * checksum: a valid frame any decoder reads, written without a compressor (CI has none), for tests that append
 * to a compressed log as its writer would.
 */
import { hashBytes64 } from '../../cursors/ids.js';
import { ZSTD_MAGIC } from '../../cursors/zstd-frames.js';

const MAX_BLOCK = 128 * 1024;

/** `content` as one frame; `hashesReady()` must have resolved (the checksum is XXH64). */
export function rawZstdFrame(content: Buffer): Buffer {
  const head = Buffer.alloc(13);
  head.writeUInt32LE(ZSTD_MAGIC, 0);
  // an 8-byte content size, a single segment (no window descriptor), a content checksum
  head[4] = (3 << 6) | 0x20 | 0x04;
  head.writeBigUInt64LE(BigInt(content.length), 5);
  const parts: Buffer[] = [head];
  let at = 0;
  do {
    const size = Math.min(MAX_BLOCK, content.length - at);
    const last = at + size >= content.length ? 1 : 0;
    const block = Buffer.alloc(3);
    block.writeUIntLE(last | (size << 3), 0, 3);
    parts.push(block, content.subarray(at, at + size));
    at += size;
  } while (at < content.length);
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(parseInt(hashBytes64(content).slice(8), 16), 0);
  parts.push(sum);
  return Buffer.concat(parts);
}
