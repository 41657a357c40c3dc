/**
 * A zstd-compressed JSONL file (`<name>.jsonl.zst`): Codex CLI compresses archived rollouts so, removing the
 * plain file (codecs/codex/README.md, "Compressed rollouts"). Its decompressed text goes through the same line
 * feed (line-feed.ts) and the same LineCore as a plain file, so it yields the same events, with byte offsets
 * into the decompressed text. `createJsonlRead` (read-jsonl.ts) hands every `.zst` path here: the native and
 * WebAssembly line sources and engines read raw file bytes, and never see one.
 *
 * - Decompression is fzstd's streaming `Decompress` (pure JavaScript: Node 20's zlib has no zstd), fed the
 *   file in `bufferSize` chunks, so a read holds the compressed chunk and zstd's window, never the whole text.
 * - A file that does not decompress (truncated, corrupt, not zstd) is a PARSE_ERROR for that file, as a file
 *   that is not a database is for a SQLite codec. The read holds its events until the file has decompressed
 *   whole, so such a file yields none: a broken archive counts nothing rather than the part before the damage.
 *   fzstd does not check a frame's optional content checksum (Codex's encoder, at libzstd's defaults, writes
 *   none), so damage that still decodes reads as malformed lines, skipped and counted like any.
 * - No resume: a stream cannot be entered in the middle, and Codex never appends to a compressed rollout (it
 *   writes a plain file again first). A read from any cursor starts from byte 0 with reason `compressed`; its
 *   cursor holds the committed offset and, when verified, the sha256 of the decompressed bytes before it.
 *   `info.bytes` and `onBytes` count the file's own (compressed) bytes, as progress and fingerprints take them.
 * - The core is never asked for two passes (`LineCore.twoPass`): its events are held until the end anyway.
 * - fzstd is required by the first compressed read, not imported at the top: every JSONL read loads this
 *   module, and a history with no compressed file never loads the package (its CommonJS build, which the
 *   CLI's CommonJS bundle can take as well; cursors/ids.ts does the same for xxhash-wasm).
 */
import { closeSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Decompress as ZstdStream } from 'fzstd';
import { nodeCrypto } from './builtins.js';
import { packageFile } from './package-file.js';
import type { Codec, JsonlCursor, NormalizedReadOptions, ResumeStart } from './protocol/codec.js';
import { getParserString } from './protocol/codec.js';
import type { SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';
import type { LineCore } from './core.js';
import { createLineFeed } from './line-feed.js';
import { openSessionFile } from './open-file.js';
import { hashesAreReady, hashesReady } from './ids.js';

/** fzstd's CommonJS build in its package (its package.json's `main` and `exports.require`). */
const FZSTD_CJS = 'lib/index.js';
let zstd: typeof ZstdStream | undefined;

/** fzstd's streaming decompressor, the package loaded on first use. */
function zstdStream(): typeof ZstdStream {
  if (zstd !== undefined) return zstd;
  const req = createRequire(import.meta.url);
  return (zstd = (req(packageFile(req, 'fzstd', FZSTD_CJS) ?? 'fzstd') as typeof import('fzstd')).Decompress);
}

/**
 * The decompressed bytes of the open file's [0, size), chunk by chunk to `out`. Each compressed chunk is a
 * fresh buffer: fzstd keeps views of the input it has not decoded yet (a block cut by the chunk's end).
 */
function decompressFile(fd: number, size: number, options: NormalizedReadOptions, out: (chunk: Uint8Array) => void): void {
  const d = new (zstdStream())((data) => {
    if (data.length > 0) out(data);
  });
  const onBytes = options.resume?.onBytes;
  let pos = 0;
  for (;;) {
    const want = Math.min(options.bufferSize, size - pos);
    const chunk = Buffer.allocUnsafe(want);
    const n = want === 0 ? 0 : readSync(fd, chunk, 0, want, pos);
    options.info.bytes += n;
    if (n > 0) onBytes?.(chunk.subarray(0, n), pos);
    pos += n;
    // The last push says so: a stream cut inside a frame then fails (fzstd's "unexpected EOF").
    d.push(chunk.subarray(0, n), n === 0 || pos >= size);
    if (n === 0 || pos >= size) return;
  }
}

/**
 * The decompressed bytes of one zstd blob held in memory (a database column: Zed's `threads.data`, OpenClaw's
 * `transcript_events.event_zstd`), through the same fzstd stream as a file. Undefined when the blob does not decompress (truncated, corrupt, not zstd)
 * or decompresses to more than `maxBytes`: a record too large is skipped like a line over `maxLineBytes`, and
 * the cap stops a small blob from filling memory.
 */
export function decompressZstdBytes(blob: Uint8Array, maxBytes: number): Buffer | undefined {
  const out = inflate(blob, maxBytes, true);
  return out.complete ? out.bytes : undefined;
}

/**
 * What the first bytes of a zstd frame cut short (a frame still being written) decompress to: the content of
 * its complete blocks, up to `maxBytes`. Empty when they hold no complete block or are not zstd.
 */
export function decompressZstdPrefix(blob: Uint8Array, maxBytes: number): Buffer {
  return inflate(blob, maxBytes, false).bytes;
}

/** `blob` through fzstd's stream, `final` when it must end a frame: the output, and whether it went through without an error. */
function inflate(blob: Uint8Array, maxBytes: number, final: boolean): { bytes: Buffer; complete: boolean } {
  const parts: Uint8Array[] = [];
  let total = 0;
  const d = new (zstdStream())((data) => {
    // thrown out of fzstd's push, which stops decoding there
    if (total + data.length > maxBytes) throw new RangeError('over maxBytes');
    total += data.length;
    if (data.length > 0) parts.push(data.slice());
  });
  let complete = true;
  try {
    d.push(blob, final);
  } catch {
    complete = false;
  }
  return { bytes: Buffer.concat(parts, total), complete };
}

/** A read's events by chunk, as `readJsonl` gives them, from a zstd-compressed JSONL file (see the header). */
export async function* readZstdJsonl<S>(codec: Pick<Codec, 'id' | 'parserVersion'>, core: LineCore<S>, file: string, options: NormalizedReadOptions): AsyncGenerator<SessionfoldEvent[]> {
  if (!hashesAreReady()) await hashesReady(); // a whole file's ids are not hashed by the JavaScript XXH64
  const resume = options.resume;
  const from = resume?.from;
  const start: ResumeStart = { restarted: true, reason: from === undefined || from === null ? 'no-cursor' : 'compressed', replaced: {} };
  const hash = resume !== undefined && resume.verifyPrefix !== false ? nodeCrypto().createHash('sha256') : undefined;
  const held: SessionfoldEvent[] = [];
  const state = core.init({ file, options });
  // A fresh state has no hashed ids to collide with: the feed never asks to restart.
  const feed = createLineFeed(core, state, options, file, (e) => held.push(e), { hash });
  const { fd, size } = openSessionFile(file, codec.id);
  // What the feed throws (a strict read's malformed line) is the read's error as it is; the rest is zstd's.
  let feeding = false;
  try {
    decompressFile(fd, size, options, (chunk) => {
      feeding = true;
      feed.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), chunk.byteLength);
      feeding = false;
    });
  } catch (cause) {
    if (feeding) throw cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new SessionfoldError('PARSE_ERROR', `Cannot decompress ${file} (zstd: ${why}): the file is truncated or corrupt`, { agent: codec.id, file, cause });
  } finally {
    closeSync(fd);
  }
  const end = feed.end();
  resume?.onStart?.(start);
  if (held.length > 0) yield held;
  if (!resume?.onCursor) return;
  const cursor: JsonlCursor = {
    format: 'jsonl',
    version: 1,
    parser: getParserString(codec),
    offset: end.committed,
    prefixHash: end.hash === undefined ? '' : end.hash.digest('hex'),
  };
  resume.onCursor({ cursor, partialLine: end.partialLine, info: { ...options.info } });
}
