/**
 * The codec contract. A codec turns one agent's on-disk sessions into normalized events (cursors/protocol/events.ts).
 * It is an async-iterator pipeline: `read()` yields events as it reads, never an array of a whole file.
 *
 * Incremental JSONL codecs implement a pure, synchronous line core (cursors/core.ts `LineCore`) and get
 * `read()` with byte-exact resume from `createJsonlRead()`. Whole-document JSON, SQLite, tree and
 * one-directory-per-session codecs implement `read()` themselves; their cursors are declared here so that
 * the event cache can key on them.
 */
import type { EventKind, KindCounts, SessionfoldEvent, UsageEvent } from './events.js';
import { CORE_EVENT_VERSION, EVENT_KINDS, isEventKind } from './events.js';
import { invalidOption, SessionfoldError } from './errors.js';

/** How an agent keeps its sessions on disk. */
export type Persistence = 'jsonl' | 'json' | 'sqlite' | 'tree' | 'directory';

/** What a codec can do, for the folds and `sessionfold agents`. */
export interface CodecCapabilities {
  /** `read()` honours `options.resume` (byte-exact cursors). */
  incremental: boolean;
  persistence: Persistence;
  /**
   * Every event of a file is timestamped no later than the file's mtime, so a `--since` filter may skip
   * files whose mtime is earlier. True for append-only logs.
   */
  eventsPrecedeMtime?: boolean;
  /**
   * The agent writes a session's tokens only when a run of it ends (GitHub Copilot CLI): a session may have
   * usage it has not recorded yet, which its session events say (`SessionEvent.usageUnknown`). Folds of usage
   * alone (a cost report) count such sessions apart instead of taking their missing usage for zero.
   */
  usageRecordedAtEnd?: boolean;
  /**
   * `false` when the agent records no token usage at all (Cursor): its sessions have no usage events, and a
   * cost report says their usage is unknown instead of counting them as $0.
   */
  recordsUsage?: boolean;
}

/** One session file (or database) found by `discover()`. */
export interface SessionFile {
  agent: string;
  path: string;
  /** The root it was found under. */
  root: string;
  /** Native session id, when the path tells it. */
  sessionId?: string;
  /** Subagent / sidechain transcript. */
  subagent?: boolean;
  /**
   * The file's size and mtimeMs when discovery stat'ed it as it listed it (cursors/list-dir.ts): a scan
   * takes them instead of a stat of its own. Both or neither.
   */
  size?: number;
  mtimeMs?: number;
}

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
   * shape this read cannot use. The last three are a database's (RowCursor): the file was replaced, a row
   * the cursor had read changed, or one went away.
   */
  reason?:
    | 'no-cursor'
    | 'cursor-invalid'
    | 'parser-changed'
    | 'file-shrunk'
    | 'prefix-changed'
    | 'kinds-changed'
    | 'id-collision'
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

/** One read of `Codec.readBatch`: the arguments `read()` would take. */
export interface BatchRead {
  file: string;
  options?: ReadOptions | undefined;
}

/**
 * A file's usage events as an engine handed them over, not yet built (see `UsageScanResult.block`).
 * `decode(k, into)` builds the k-th event (0 ≤ k < count) onto `into`, a usage event on `blankUsageEvent()`'s
 * shape whose every field it overwrites (and its fold hints, cursors/protocol/hints.ts), and returns it. A
 * consumer that keeps nothing of an event past its use (the cost fold) decodes every event of a block onto
 * one object: no object, and no array of them, per event.
 */
export interface UsageBlock {
  readonly count: number;
  decode(k: number, into: UsageEvent): UsageEvent;
}

/** See `Codec.scanUsage`. */
export interface UsageScanResult {
  /** The usage events, each an object of its own (built from `block` when first asked for, where it is given). */
  readonly events: UsageEvent[];
  /** The same events undecoded: what a consumer decodes itself when it wants no object per event. */
  readonly block?: UsageBlock;
  cwd: string | undefined;
  info: ReadInfo;
}

/** See `Codec.nativeSearch`. */
export interface NativeSearchQuery {
  /** Lowercased terms (a phrase is one term with single spaces); a session matches when it holds all. */
  terms: readonly string[];
  /** How many sessions at most, best first. */
  limit: number;
}

/** One session the agent's own index found. */
export interface NativeSearchHit {
  /** The session, as `discover()` names it. */
  file: SessionFile;
  /** The index's ranking mapped into [0, 1], higher is better. */
  relevance: number;
  /** Text around the best match. */
  snippet: string;
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

/**
 * Listings kept between runs, by the caller (src/cache/listing-memo.ts keeps them beside the event cache): a
 * codec whose listing costs a pass over a database's rows stores it under a key of its own with what it was
 * listed from (cursors/listing-memo.ts `memoizedListing`), and takes it back while that is unchanged. `get`
 * returns what `set` stored, or undefined; the codec checks its shape, as a file's contents.
 */
export interface ListingMemo {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** Options of `Codec.discover`. */
export interface DiscoverOptions {
  /** Where listings may be kept between runs; none given: every listing is made afresh. */
  listingMemo?: ListingMemo | undefined;
}

/** One agent's reader: where its sessions live, how to find them, and how to read a file's events. */
export interface Codec {
  /** Registry id, e.g. `claude`. */
  readonly id: string;
  readonly aliases: readonly string[];
  /** Human name, e.g. `Claude Code`. */
  readonly displayName: string;
  /** Goes up whenever this codec would parse an unchanged file differently. */
  readonly parserVersion: number;
  readonly capabilities: CodecCapabilities;
  /** Default roots, honouring the agent's own environment variables. */
  defaultRoots(env?: NodeJS.ProcessEnv): string[];
  /**
   * Optional: the agent's own environment variables that `defaultRoots` takes its roots from (not HOME or
   * XDG_*). When one is set and names a folder that does not exist, the CLI warns, naming the variable.
   */
  readonly rootVariables?: readonly string[];
  /** Every session file under the roots (missing roots are skipped silently). */
  discover(roots: readonly string[], options?: DiscoverOptions): AsyncIterable<SessionFile>;
  /**
   * `discover()` as a synchronous iterable, for a codec whose listing is synchronous anyway: the same files
   * in the same order, without a promise per file (a scan lists thousands). Optional.
   */
  discoverSync?(roots: readonly string[], options?: DiscoverOptions): Iterable<SessionFile>;
  /** Find one session's file by native id without parsing every session. */
  locate?(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined>;
  /** Files whose change changes this file's events: sidecars, a fork's parent, SQLite -wal/-journal. */
  getParseDependencies(file: string): string[];
  /** Yield the file's events (the iterable may also offer them by chunk: protocol/chunks.ts). */
  read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent>;
  /**
   * Optional, with `readBatch`: what `file` shares with other files that are cheaper to read together (the
   * database of a record path `<db>#<key>`), or undefined when it is read alone.
   */
  batchKey?(file: string): string | undefined;
  /**
   * Optional: several files of one `batchKey` read together (one snapshot of their database, one pass over
   * its rows). Resolves, once the shared read is done, to one iterable per read that yields what
   * `read(file, options)` would yield from the same state of the files, calling that read's `resume`
   * callbacks and filling its `info` the same way as it is iterated (a read whose file alone failed, a session
   * gone since discovery, throws when iterated). Rejects, having called no callback, when the shared read
   * fails: the caller then reads each file with `read()`.
   */
  readBatch?(reads: readonly BatchRead[]): Promise<AsyncIterable<SessionfoldEvent>[]>;
  /** The pure line engine of a JSONL codec: lets `sessionfold read -` parse a stream, and tests feed chunks. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly lineCore?: LineCore<any>;
  /**
   * The line engine for one file, with what `read()` would load beside it (a Claude subagent's sidecar);
   * `lineCore` when absent. Undefined for a file that is not read line by line (a codec's whole-document
   * files): folds read that file whole through `read()`. Folds that feed a file's lines themselves (a
   * session list's head and tail windows) use this, so they see the same events `read()` gives.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  lineCoreFor?(file: string): LineCore<any> | undefined;
  /**
   * Optional: the usage of full reads by a faster engine (the native ones of Claude and Codex, `native.ts` in
   * their folders), for the cost scan's cold reads. Per file: what the cost scan's `read(file, { kinds:
   * ['session', 'usage'], titles: false })` gives: its usage events in order, the cwd of its first session
   * event, and the read's counts (`events` counts usage events only); or `false`, only `read()` can decide this file; or undefined, not for this file. The
   * whole answer is undefined when there is no engine here. The caller reads with `read()` what it did not get.
   */
  scanUsage?(files: readonly string[]): Promise<(UsageScanResult | false | undefined)[]> | undefined;
  /**
   * Optional: the agent's own full-text index (Hermes's FTS5 `messages_fts`). The sessions under the roots
   * whose texts hold every term, best first; undefined when there is no index to ask, and the caller reads
   * the sessions as it does for any agent.
   */
  nativeSearch?(roots: readonly string[], query: NativeSearchQuery): Promise<NativeSearchHit[] | undefined>;
  /** The agent's own command to resume a session, e.g. `['claude', '--resume', id]`. */
  resumeCommand?(nativeId: string, file?: SessionFile): string[];
  /**
   * Optional: how sure this codec is that `file`, whose first bytes are `head`, is in its format: 0 not its
   * format, 1 its format but one other agents share (pi and its forks), 2 unmistakably its own. Only the
   * codec knows its format, so `sessionfold read` without `--agent` asks each (`detectCodec` in the registry).
   */
  detect?(file: string, head: Buffer): DetectScore;
}

/**
 * What a codec is without any of its reading code: its names, version, capabilities and roots. The registry
 * holds these for the built-in codecs and loads a codec's module (its parsers) only when its files are
 * listed or read (src/lazy-codec.ts), so a command that reads no agent's files compiles no codec. Each
 * codec's `descriptor.ts` exports one, and its codec object spreads it: one place for these facts.
 */
export type CodecDescriptor = Pick<Codec, 'id' | 'aliases' | 'displayName' | 'parserVersion' | 'capabilities' | 'defaultRoots' | 'rootVariables'> & {
  /**
   * The codec's own `discoverSync` and `getParseDependencies`, where they need none of its parsers: what a
   * caller that may need no more than the files' stats lists them with, without loading the codec's module
   * (a warm report answered from beside the cache: src/cost/incremental.ts).
   */
  listing?: CodecListing;
};

/** See `CodecDescriptor.listing`: the same functions the codec itself has. */
export interface CodecListing {
  discoverSync(roots: readonly string[], options?: DiscoverOptions): Iterable<SessionFile>;
  getParseDependencies(file: string): string[];
}

/** See `Codec.detect`. */
export type DetectScore = 0 | 1 | 2;

/** `n<CORE_EVENT_VERSION>.p<parserVersion>`, e.g. `n1.p1`. Events stored under one string are stale under any other. */
export function getParserVersion(codec: Pick<Codec, 'parserVersion'>): string {
  return `n${CORE_EVENT_VERSION}.p${codec.parserVersion}`;
}

/** `<codec>@<getParserVersion(codec)>`, the `parser` field of a cursor. */
export function getParserString(codec: Pick<Codec, 'id' | 'parserVersion'>): string {
  return `${codec.id}@${getParserVersion(codec)}`;
}

/* The line-core contract: between the generic JSONL reader (cursors/read-jsonl.ts) and a codec's pure engine. */

export type Emit = (event: SessionfoldEvent) => void;

/** Returned by `line()` when an id's 32-bit hash was already seen in a resumed state: re-read from byte 0. */
export const RESTART = Symbol('sessionfold.restart');
export type LineResult = void | typeof RESTART;

/** Returned by `lineWalked()` for a line it leaves to `line()` (which then gets the line's bytes). */
export const UNWALKED = Symbol('sessionfold.unwalked');

/**
 * A line the WebAssembly kernel walked with the core's projection (`LineCore.walk`, cursors/wasm.ts `walk`):
 * its projected fields read in place, without a call or an object per line. The reader reuses one such
 * object; it is valid only during the `lineWalked` call. cursors/scan-fields.ts `walkedValue` decodes a slot
 * as `scanFields` would (slots are the projection's fields in pre-order).
 */
export interface WalkedLine {
  /** The kernel's whole memory: the spans are offsets in it. */
  readonly bytes: Buffer;
  /** Per slot, at `at + 3 slot`: start, end, flags (0 absent; 1 a value, | 2 an escaped string; 4 an object collected). */
  readonly spans: Int32Array;
  readonly at: number;
  /** Per slot, at `numAt + slot`: the value of a plain integer (under 16 digits), NaN elsewhere. */
  readonly nums: Float64Array;
  readonly numAt: number;
  /** The line's bytes: `bytes[lineAt, lineEnd)` (without its LF and a trailing CR). */
  readonly lineAt: number;
  readonly lineEnd: number;
}

export interface CoreContext {
  /** The file path (or `-` for stdin). */
  file: string;
  options: NormalizedReadOptions;
}

export interface LineCore<S> {
  /** Fresh state for a read from byte 0. */
  init(ctx: CoreContext): S;
  /** State restored from a cursor's `state.core`. Throw CURSOR_INVALID for a shape it cannot use. */
  restore(snapshot: unknown, ctx: CoreContext): S;
  /** JSON for the cursor: everything the lines after the committed offset need. */
  snapshot(state: S): unknown;
  /**
   * One complete line (no LF, no trailing CR), `start` its byte offset. Throw a SessionfoldError
   * (MALFORMED_LINE) for a line it cannot use: the reader counts and skips it (or rethrows when strict).
   */
  line(state: S, line: Buffer, start: number, emit: Emit): LineResult;
  /**
   * End of the bytes available now. Emit what is still pending (it stays pending in the state), and return,
   * per kind, how many of the events emitted last are still open: a later line can replace them.
   */
  end(state: S, emit: Emit): KindCounts;
  /**
   * Optional: byte markers a line must contain to matter to `line()` in this state (undefined: every line
   * may). A line holding none of them must be one `line()` only counts as filtered (`info.filteredLines`),
   * changing nothing else: the file reader then counts it without calling `line()` — found by one marker
   * search per stretch of such lines, and never copied when it spans read chunks (megabytes of a tool result
   * a usage read would skip anyway). `line()` keeps its own check: the other readers do not filter.
   * Once it returns markers it must return the same ones for the rest of the read: the native line source
   * filters a batch of lines at a time.
   */
  markers?(state: S): readonly Buffer[] | undefined;
  /**
   * Optional, with `markers`: a stricter byte rule the native line source (cursors/native-lines.ts) applies on
   * top of the markers. `codex-rollout` is codecs/codex/prefilter.ts `mayHoldUsage`. A line it drops must be
   * one `line()` only counts as filtered, as for the markers.
   */
  readonly headRule?: 'codex-rollout';
  /**
   * Optional, with `markers` and `lineWalked`: a projection (cursors/scan-fields.ts `compileProjection`) the
   * WebAssembly kernel's pass walks on every line holding a marker, in the same call that finds the lines, so
   * that `lineWalked` reads the fields of a chunk's lines straight from the kernel's memory. Undefined: no walk.
   * Asked when the markers are; it must not change while they do not.
   */
  walk?(state: S): object | undefined;
  /**
   * A line holding a marker, walked with `walk(state)`'s projection: the same as `line()` of its bytes, or
   * UNWALKED to have `line()` take it. Lines the walk refused (only JSON.parse can read them) go to `line()`.
   */
  lineWalked?(state: S, walked: WalkedLine, start: number, emit: Emit): LineResult | typeof UNWALKED;
  /**
   * Optional: true when the core wants this read's lines twice (`bytes` of them lie ahead). The file reader
   * then feeds every line of the read once (no hash, no counts, malformed lines passed over silently), calls
   * `rewind`, and feeds the same lines again as a normal read; `end` comes once, after the second pass.
   * Events emitted in the first pass are the read's, before those of the second. RESTART may come only in the
   * first pass. A core that must see a whole file before it knows what its lines mean (pi's branch) can then
   * stream instead of holding every event. Readers that cannot read twice (stdin, windows) never ask.
   */
  twoPass?(state: S, bytes: number): boolean;
  /** With `twoPass`: the first pass is over; the same lines come again. */
  rewind?(state: S): void;
}

