/**
 * The codec contract. A codec turns one agent's on-disk sessions into normalized events (cursors/protocol/events.ts).
 * It is an async-iterator pipeline: `read()` yields events as it reads, never an array of a whole file.
 *
 * Incremental JSONL codecs implement a pure, synchronous line core (line-core.ts `LineCore`) and get
 * `read()` with byte-exact resume from `createJsonlRead()`. Whole-document JSON, SQLite, tree and
 * one-directory-per-session codecs implement `read()` themselves; their cursors are declared in read.ts so
 * that the event cache can key on them.
 *
 * The contract is three files with one job each, so that each reads on its own: this one, the codec object
 * (`Codec`, its descriptor, and what its methods take and give); read.ts, one read (its options, counters and
 * cursors); line-core.ts, the engine a JSONL codec hands the generic reader. This file re-exports the other
 * two, so that `protocol/codec.js` stays the one import of the whole contract.
 */
import type { SessionfoldEvent, UsageEvent } from './events.js';
import { CORE_EVENT_VERSION } from './events.js';
import type { LineCore } from './line-core.js';
import type { ReadInfo, ReadOptions } from './read.js';

export type {
  CursorUpdate,
  FingerprintCursor,
  JsonlCursor,
  NormalizedReadOptions,
  ReadCursor,
  ReadInfo,
  ReadOptions,
  ResumeOptions,
  ResumeStart,
  RowCursor,
} from './read.js';
export { DEFAULT_BUFFER_SIZE, DEFAULT_MAX_LINE_BYTES, newReadInfo, normalizeReadOptions } from './read.js';
export type { CoreContext, Emit, LineCore, LineResult, WalkedLine } from './line-core.js';
export { RESTART, UNWALKED } from './line-core.js';

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
   * Some sessions may hold no usage, or only part of it, because the agent did not record it (a Grok or Z Code
   * session without usage records): their session events say `SessionEvent.usageUnknown`, and a cost report
   * counts them apart as for `usageRecordedAtEnd`, which implies this. test/capabilities.test.ts holds every
   * codec's golden events to its capabilities.
   */
  usageMayBeUnknown?: boolean;
  /**
   * With `usageMayBeUnknown` (or `usageRecordedAtEnd`): whether a session's usage is known is said only where
   * its whole read ends (the session event of its core's `end()`: a reply without tokens anywhere before, a
   * prompt left unanswered, a Copilot CLI run that never shut down), so the head and tail windows of a session
   * list's peek cannot tell it, and the list folds such a session whole.
   */
  usageKnownAtEnd?: boolean;
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
  /**
   * With `size` and `mtimeMs`, the same stat's inode and ctimeMs (cursors/list-dir.ts `FileStat`), which the
   * event cache's identity of the file holds too. A listing that gives size and mtime without them (the
   * records of a database, which have no inode) leaves them out, and they count as 0.
   */
  ino?: number;
  ctimeMs?: number;
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
  /**
   * Optional: a dependency stamped by what `file`'s events take from it, in place of its stat (size, mtime,
   * inode, ctime), which any write moves. For a dependency shared by many files (a database of every session
   * of a home, which the agent writes for one session at a time) the stat changes every file's fingerprint at
   * each write; a stamp of the part one file reads changes only that file's. Undefined: the stat stamps it.
   * Exact or nothing: equal stamps must mean `read(file)` gives the same events from the dependency. Called
   * at discovery for every file with a dependency (src/scan/discover.ts `fingerprintDependencies`), so a
   * codec computes the stamps of all files once per state of the dependency; `options.listingMemo`, when
   * given, may keep them between runs (cursors/listing-memo.ts `memoizedListing`).
   */
  dependencyStamp?(file: string, dependency: string, options?: DiscoverOptions): string | undefined;
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
  /** The codec's `dependencyStamp`, when it has one: a listing's fingerprints must be the codec's. */
  dependencyStamp?(file: string, dependency: string, options?: DiscoverOptions): string | undefined;
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
