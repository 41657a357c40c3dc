/**
 * One read of a session file, as the codec contract (codec.ts, which re-exports all of this) defines it: the
 * options `read()` takes and their normalized form, the counters it fills, and the cursors it resumes from and
 * hands back. Kept apart from the codec object (codec.ts) and the line engine (line-core.ts): the three are
 * separate jobs, and each of the two depends on this one, never the reverse.
 */
import type { EventKind, KindCounts } from './events.js';
import { EVENT_KINDS, isEventKind } from './events.js';
import { invalidOption, type SessionfoldError } from './errors.js';

/** Byte-offset cursor of a JSONL file (see cursors-and-versioning). */
export interface JsonlCursor {
  format: 'jsonl';
  version: 1;
  /** `<codec>@<getParserVersion(codec)>` */
  parser: string;
  /** End of the last LF-terminated line consumed. */
  offset: number;
  /** sha256 (hex) of the first `offset` bytes. */
  prefixHash: string;
  /** Opaque codec state for the lines after `offset`. */
  state?: unknown;
}

/** Row-watermark cursor of a SQLite database (cursors/sqlite-rows.ts reads and writes it). */
export interface RowCursor {
  format: 'sqlite';
  version: 1;
  parser: string;
  /** Highest rowid (or monotonic key) read, per table. */
  watermark: Record<string, number>;
  state?: unknown;
}

/**
 * Fingerprint cursor of a whole-document file (one JSON document its agent rewrites whole): a resumed read of
 * an unchanged file (same size, mtime and sha256) parses nothing; any change restarts it from byte 0
 * (cursors/read-document.ts).
 */
export interface FingerprintCursor {
  format: 'json';
  version: 1;
  parser: string;
  size: number;
  mtimeMs: number;
  /** sha256 (hex) of the whole file; `""` when the read was told not to hash (`verifyPrefix: false`). */
  hash: string;
  state?: unknown;
}

/** Where a resumable read stopped: a byte offset for JSONL, a row watermark for SQLite, a fingerprint for a whole document. */
export type ReadCursor = JsonlCursor | RowCursor | FingerprintCursor;

/** How a resumed read starts: from byte 0 (and why) or from its cursor (and which events it yields again). */
export interface ResumeStart {
  /** The read starts from byte 0: its events replace everything stored for the file. */
  restarted: boolean;
  /**
   * Why it restarted (absent when it did not). `cursor-invalid`: the cursor (or the state it holds) has a
   * shape this read cannot use. `compressed`: the file is compressed (`.zst`, cursors/read-zstd.ts), so a
   * read cannot start in its middle. The last three are a database's (RowCursor): the file was replaced, a
   * row the cursor had read changed, or one went away.
   */
  reason?:
    | 'no-cursor'
    | 'cursor-invalid'
    | 'parser-changed'
    | 'file-shrunk'
    | 'prefix-changed'
    | 'kinds-changed'
    | 'id-collision'
    | 'compressed'
    | 'database-replaced'
    | 'row-changed'
    | 'row-deleted';
  /**
   * Per kind, how many of the last events the previous read yielded this read yields again (changed or not).
   * Drop that many before appending.
   */
  replaced: KindCounts;
}

/** The cursor a completed read hands back, with the read's counters. */
export interface CursorUpdate {
  cursor: ReadCursor;
  /** The file ends in a line without a line feed, which this read left out. */
  partialLine: boolean;
  info: ReadInfo;
}

/** How a read resumes from a cursor and hands back the next one. */
export interface ResumeOptions {
  from?: ReadCursor | undefined;
  /**
   * Default true: check `prefixHash` (sha256 of the first `offset` bytes) before resuming, and compute it for
   * the next cursor. `false` is for callers that verify the prefix themselves with a faster fingerprint (the
   * event cache uses xxh64): no sha256 is read or computed, and the next cursor's `prefixHash` is `""`, so it
   * can only be resumed with `verifyPrefix: false` again.
   */
  verifyPrefix?: boolean;
  onStart?: (start: ResumeStart) => void;
  onCursor?: (update: CursorUpdate) => void;
  /**
   * Every chunk the read takes from the file, in order, with its file offset, before it is parsed (the bytes
   * are valid only during the call). A read that restarts begins again at offset 0. Lets a caller with its
   * own fingerprint (`verifyPrefix: false`) hash the new bytes as they go by instead of reading them twice.
   */
  onBytes?: (chunk: Uint8Array, position: number) => void;
}
/** Counters of one read (csv-parse `info`). */
export interface ReadInfo {
  /** Bytes read from the file by this read (the verified prefix excluded). */
  bytes: number;
  /** Offset just past the last LF-terminated line consumed. */
  bytesCommitted: number;
  /** LF-terminated lines seen by this read. */
  lines: number;
  /** Events yielded. */
  events: number;
  /** Lines skipped: malformed JSON, non-object lines, lines over maxLineBytes. */
  skippedLines: number;
  /** Lines a byte-marker pre-filter skipped without JSON.parse. */
  filteredLines: number;
}

/** Options of `read()`; `normalizeReadOptions` fills the defaults once. */
export interface ReadOptions {
  /** Kinds to yield (default: all). A usage-only read may skip lines by byte markers. */
  kinds?: readonly EventKind[] | undefined;
  resume?: ResumeOptions | undefined;
  /**
   * Lines longer than this are skipped and counted (code LINE_TOO_LONG), never buffered. Default 64 MiB: a
   * line is buffered, decoded and parsed whole, which takes several times its size (a 200 MB line took over
   * 1.4 GB), so the default keeps a read within a 1 GiB address space (`ulimit -v 1048576`). Raise it for
   * larger lines when memory allows.
   */
  maxLineBytes?: number | undefined;
  /** Size of the reused read buffer. Default 1 MiB. Tests use tiny buffers for chunk invariance. */
  bufferSize?: number | undefined;
  /** Throw PARSE_ERROR on the first malformed line instead of skipping it. Default false (tolerant). */
  strict?: boolean | undefined;
  /** Called for every skipped line. */
  onSkip?: ((error: SessionfoldError) => void) | undefined;
  /** Filled in as the read goes. */
  info?: ReadInfo | undefined;
  /** Keep native records on events where the codec supports it (`raw`). */
  raw?: boolean | undefined;
  /**
   * Session events follow the session's titles (default true). false: a reader that needs only what the first
   * session event says (its cwd: the cost scan) lets a codec leave title records unread once the session
   * has opened, as any other line it has no use for (Claude Code's `custom-title` / `ai-title`).
   */
  titles?: boolean | undefined;
}

export interface NormalizedReadOptions {
  kinds: ReadonlySet<EventKind>;
  allKinds: boolean;
  /** The read asks for a conversation (`message`, `tool_call` or `tool_result`): a codec may leave a transcript unread without. */
  conversation: boolean;
  resume: ResumeOptions | undefined;
  maxLineBytes: number;
  bufferSize: number;
  strict: boolean;
  onSkip: ((error: SessionfoldError) => void) | undefined;
  info: ReadInfo;
  raw: boolean;
  titles: boolean;
}

export const DEFAULT_BUFFER_SIZE = 1 << 20;
export const DEFAULT_MAX_LINE_BYTES = 64 * (1 << 20);

export function newReadInfo(): ReadInfo {
  return { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
}

/** Fill every default once; throw INVALID_OPTION for bad values. */
export function normalizeReadOptions(user: ReadOptions = {}): NormalizedReadOptions {
  let kinds: EventKind[];
  if (user.kinds === undefined) kinds = [...EVENT_KINDS];
  else {
    if (!Array.isArray(user.kinds)) throw invalidOption('kinds', `an array of ${EVENT_KINDS.join('|')}`, user.kinds);
    for (const k of user.kinds) if (!isEventKind(k)) throw invalidOption('kinds', EVENT_KINDS.join('|'), k);
    kinds = [...user.kinds];
  }
  const bufferSize = user.bufferSize ?? DEFAULT_BUFFER_SIZE;
  if (!Number.isInteger(bufferSize) || bufferSize < 1) throw invalidOption('bufferSize', 'a positive integer', user.bufferSize);
  const maxLineBytes = user.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) throw invalidOption('maxLineBytes', 'a positive integer', user.maxLineBytes);
  return {
    kinds: new Set(kinds),
    allKinds: kinds.length === EVENT_KINDS.length,
    conversation: kinds.includes('message') || kinds.includes('tool_call') || kinds.includes('tool_result'),
    resume: user.resume,
    maxLineBytes,
    bufferSize,
    strict: user.strict ?? false,
    onSkip: user.onSkip,
    info: user.info ?? newReadInfo(),
    raw: user.raw ?? false,
    titles: user.titles ?? true,
  };
}
