/**
 * The file adapter for whole-document formats (one JSON document an agent rewrites whole): chunks of the file
 * into a codec's document parser, events out, and a fingerprint cursor instead of a byte offset:
 *
 * - The cursor (`FingerprintCursor`) holds the file's size, mtime and sha256. A resumed read whose cursor
 *   still matches yields nothing and parses nothing (`restarted: false`, nothing replaced): an unchanged file
 *   is never parsed again. With the same size, `verifyPrefix` (the default) hashes the bytes (a read, no
 *   parse) and the hash decides, so a touched file is not parsed again and one rewritten within the same
 *   mtime tick is; with `verifyPrefix: false` the mtime decides. Any difference restarts the read from
 *   byte 0 with its reason: `file-shrunk`, else `prefix-changed` (the whole file is the prefix).
 * - The parser reads the file in passes (`chunks()`, a generator of the file's bytes from 0, in buffers of
 *   `bufferSize`), so it holds one chunk and what it is assembling, never the document. The first pass is
 *   hashed and handed to `onBytes`; a parser that needs a second pass (a key it needs after the part it
 *   streams) calls `chunks()` again.
 * - A document that does not parse is one skipped record (`skippedLines`, PARSE_ERROR when strict): the
 *   events before the error have been yielded, and the next change of the file reads it again from 0.
 * - A document whose events also come from files beside it (a journal, a folder of events) names them with
 *   `dependencies`, the codec's parse dependencies: the fingerprint alone misses a change there, so the cursor
 *   also holds their stamp (`statStamps`, taken before the read), and a cursor whose stamp differs restarts
 *   the read (`prefix-changed`).
 */
import { closeSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openSessionFile } from './open-file.js';
import type { Hash } from 'node:crypto';
import { nodeCrypto } from './builtins.js';
import type { Codec, FingerprintCursor, NormalizedReadOptions, ReadOptions, ResumeStart } from './protocol/codec.js';
import { getParserString, normalizeReadOptions } from './protocol/codec.js';
import type { EventKind, SessionfoldEvent } from './protocol/events.js';
import { SessionfoldError } from './protocol/errors.js';

/** A codec's whole-document parser: events from the file's bytes, read in as many passes as it needs. */
export type DocumentParser = (file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions) => Generator<SessionfoldEvent>;

interface FingerprintState {
  kinds: EventKind[];
  /** `statStamps` of the document's dependencies, for a read that has them. */
  dependencies?: string;
}

function isFingerprintCursor(c: unknown): c is FingerprintCursor {
  const o = c as Record<string, unknown> | null;
  return o !== null && typeof o === 'object' && o.format === 'json' && typeof o.parser === 'string' && typeof o.size === 'number' && typeof o.mtimeMs === 'number' && typeof o.hash === 'string';
}

function hashFile(fd: number, size: number, buf: Buffer): string {
  const h = nodeCrypto().createHash('sha256');
  for (let pos = 0; pos < size; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    pos += n;
  }
  return h.digest('hex');
}

function storedState(c: FingerprintCursor): Partial<FingerprintState> {
  return (c.state as Partial<FingerprintState> | undefined) ?? {};
}

/** Why a cursor no longer holds, or undefined when the file and its dependencies (`stamp`) are unchanged. */
function checkCursor(from: unknown, parser: string, stamp: string | undefined, size: number, mtimeMs: number, fd: number, buf: Buffer, options: NormalizedReadOptions): ResumeStart['reason'] | undefined {
  if (!isFingerprintCursor(from) || from.parser !== parser) return 'parser-changed';
  const state = storedState(from);
  if (stamp !== undefined && state.dependencies !== stamp) return 'prefix-changed';
  const kinds = new Set(Array.isArray(state.kinds) ? state.kinds : []);
  for (const k of options.kinds) if (!kinds.has(k)) return 'kinds-changed';
  if (size < from.size) return 'file-shrunk';
  if (size !== from.size) return 'prefix-changed';
  // Without the hash (the caller fingerprints the bytes itself), the mtime decides.
  if (options.resume?.verifyPrefix === false || from.hash === '') return mtimeMs === from.mtimeMs ? undefined : 'prefix-changed';
  return hashFile(fd, size, buf) === from.hash ? undefined : 'prefix-changed';
}

/**
 * The text of a pass over the document (`chunks()`), each chunk decoded as it comes (a character cut between
 * two chunks held over), for a parser that takes the document whole with JSON.parse: no copy of the bytes is
 * made first. JSON.parse is V8's own; stream-json's tokenizer (cursors/object-walk.ts), in JavaScript, took
 * about three times its CPU over a 100 MB document, and is for documents that must not be held whole.
 */
export function documentText(chunks: Iterable<Buffer>): string {
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (const c of chunks) parts.push(decoder.write(c));
  parts.push(decoder.end());
  return parts.join('');
}

/**
 * Build a codec's `read()` for whole-document files from its document parser; `dependencies`, the files beside
 * a document that its events also come from (the codec's `getParseDependencies`), are stamped into its cursor.
 */
export function createDocumentRead(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  parse: DocumentParser,
  dependencies?: (file: string) => readonly string[],
): (file: string, options?: ReadOptions) => AsyncGenerator<SessionfoldEvent> {
  return (file, options) => readDocument(codec, parse, dependencies, file, normalizeReadOptions(options));
}

async function* readDocument(
  codec: Pick<Codec, 'id' | 'parserVersion'>,
  parse: DocumentParser,
  dependencies: ((file: string) => readonly string[]) | undefined,
  file: string,
  options: NormalizedReadOptions,
): AsyncGenerator<SessionfoldEvent> {
  const parser = getParserString(codec);
  const resume = options.resume;
  const info = options.info;
  // taken before the document is opened: a dependency written during the read leaves a stamp the next read sees differ
  const stamp = resume !== undefined && dependencies !== undefined ? statStamps(dependencies(file)) : undefined;
  const st = openSessionFile(file, codec.id);
  const { fd, size } = st;
  try {
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(options.bufferSize, size + 1)));
    const verify = resume?.verifyPrefix !== false;
    const cursorOf = (hash: string): FingerprintCursor => ({
      format: 'json',
      version: 1,
      parser,
      size,
      mtimeMs: st.mtimeMs,
      hash,
      state: { kinds: [...options.kinds], ...(stamp !== undefined && { dependencies: stamp }) } satisfies FingerprintState,
    });
    let reason: ResumeStart['reason'] = 'no-cursor';
    if (resume?.from !== undefined && resume.from !== null) {
      reason = checkCursor(resume.from, parser, stamp, size, st.mtimeMs, fd, buf, options);
      if (reason === undefined) {
        resume.onStart?.({ restarted: false, replaced: {} });
        info.bytesCommitted = size;
        resume.onCursor?.({ cursor: cursorOf((resume.from as FingerprintCursor).hash), partialLine: false, info: { ...info } });
        return;
      }
    }
    resume?.onStart?.({ restarted: true, reason, replaced: {} });

    const hash: Hash | undefined = resume !== undefined && verify ? nodeCrypto().createHash('sha256') : undefined;
    let tapped = 0;
    let passes = 0;
    function* chunks(): Generator<Buffer> {
      const first = passes++ === 0;
      for (let pos = 0; pos < size; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
        if (n === 0) break;
        const chunk = buf.subarray(0, n);
        if (first) {
          info.bytes += n;
          hash?.update(chunk);
          resume?.onBytes?.(chunk, pos);
          tapped = pos + n;
        }
        pos += n;
        yield chunk;
      }
    }
    try {
      for (const e of parse(file, chunks, options)) {
        if (!options.kinds.has(e.type)) continue;
        info.events++;
        yield e;
      }
    } catch (cause) {
      if (cause instanceof SessionfoldError && cause.code !== 'MALFORMED_LINE' && cause.code !== 'PARSE_ERROR') throw cause;
      const err = new SessionfoldError('PARSE_ERROR', `Malformed JSON document ${file}: ${(cause as Error).message}`, { agent: codec.id, file, cause });
      if (options.strict) throw err;
      info.skippedLines++;
      options.onSkip?.(err);
    }
    // A parse that stopped early (an error) still fingerprints the whole file.
    if (hash !== undefined && tapped < size) {
      for (let pos = tapped; pos < size; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
        pos += n;
      }
    }
    info.bytesCommitted = size;
    resume?.onCursor?.({ cursor: cursorOf(hash === undefined ? '' : hash.digest('hex')), partialLine: false, info: { ...info } });
  } finally {
    closeSync(fd);
  }
}

/**
 * The stamp of the paths beside a document (`createDocumentRead`'s `dependencies`): each one's size, mtime,
 * inode and ctime (null when absent), as discovery stamps a dependency.
 */
export function statStamps(paths: readonly string[]): string {
  return JSON.stringify(paths.map((p) => {
    const s = statSync(p, { throwIfNoEntry: false });
    return s === undefined ? null : [s.size, s.mtimeMs, s.ino, s.ctimeMs];
  }));
}
