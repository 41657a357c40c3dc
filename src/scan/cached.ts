/**
 * The cached scan. Each discovered file is classified once against its cached row (src/scan/classify.ts):
 *
 * - unchanged (same size, mtimeMs, inode, ctimeMs, dependency fingerprints and parser string:
 *   classify.ts `isUnchanged`): its usage comes from the cache, the file is not opened;
 * - grown or touched, same parser and dependencies, with a cursor: a task resumes from the cursor (only the
 *   appended bytes are parsed, after the cache's own prefix fingerprint is verified); a database's RowCursor
 *   (cursors/sqlite-rows.ts) resumes even when a dependency (its -wal) changed: it checks the rows itself;
 * - anything else (new, parser or dependencies changed, no cursor): a task reads it from byte 0; a file the
 *   cache never read goes to the codec's native engine when it has one (the pool's native lane), which leaves
 *   no cursor: when that file grows, read() reads it again whole and leaves one.
 *
 * Cached files under the scanned roots that are gone from disk are marked deleted and their usage is still
 * yielded, as `retained` records (`retainDeleted`). Finished parses are applied in batches, one transaction
 * each; a file another process updated meanwhile is classified again against the new row.
 */
import { getParserString, type Codec } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { EventCache } from '../cache/store.js';
import type { FileRow } from '../cache/rows.js';
import { isCorruptionError, isForeignCacheError, moveAside } from '../cache/db.js';
import { fileFailure, fileResult, isUnchanged, makeTask, stillThere, triage, type TaskState, type Triage } from './classify.js';
import { isUnlistedRoot, loadListedCodecs, type Discovery, type ScanFile } from './discover.js';
import type { NormalizedScanOptions } from './options.js';
import { resolveWorkers } from './options.js';
import { isFileError, isMissingFileError, type ParseTask, type TaskMessage } from './parse-file.js';
import { netChange, type RecordChange } from './record-diff.js';
import { TaskRunner } from './runner.js';
import { decodeSegment, pushRecords, SegmentError, segmentCount, SegmentWriter } from './segment.js';
import { BATCH_EVENTS } from './parse-file.js';
import { batchTasks, takesNativeLane } from './pool.js';
import { scanStreaming } from './streaming.js';
import { SkipTally, type ScanDelta, type UsageRecord } from './types.js';
import { blankUsageEvent, type UsageEvent } from '../../cursors/protocol/events.js';

/**
 * Unchanged files served per read transaction: at most this many files, and no more files once the chunk
 * holds READ_CHUNK_EVENTS events. Small chunks keep few records alive at once, so the main thread's
 * scavenges stay cheap and its heap small (warm run on a 1.8 GB history: 256-file chunks 184 MB peak RSS,
 * 1024-event chunks about 170 MB, and no slower).
 */
const READ_CHUNK_FILES = 256;
const READ_CHUNK_EVENTS = 1024;
/**
 * Finished files applied per write transaction (at most), and events. The batch's records are all alive
 * until the fold has taken them: 64 files / 65,536 events let one batch of large files push the main heap
 * up by ~20 MB on the run that builds the cache of a 1.8 GB history; 16 / 8,192 keep the peak down at no
 * measurable cost (bench/RESULTS.md, "Tuning after the peers run").
 */
const APPLY_FILES = 16;
const APPLY_EVENTS = 8192;
/** Conflicts with another process tolerated per file before it is read without the cache. */
const MAX_ATTEMPTS = 3;

/** Open the cache and load the selected agents' rows; corruption found while loading is a rebuild too. */
function openAndLoad(opts: NormalizedScanOptions): { cache: EventCache; rows: Map<string, FileRow> } {
  const agents = opts.sources.map((s) => s.codec.id);
  let cache = EventCache.open(opts.cachePath, opts.onWarning, opts.delta?.connection);
  try {
    return { cache, rows: cache.loadFiles(agents) };
  } catch (e) {
    cache.close();
    if (!isCorruptionError(e)) throw e;
    const aside = moveAside(opts.cachePath);
    opts.onWarning(`The event cache ${opts.cachePath} is corrupt (${(e as Error).message}): moved it aside${aside ? ` to ${aside}` : ''} and rebuilt it.`);
    cache = EventCache.open(opts.cachePath, opts.onWarning);
    cache.rebuilt = true;
    return { cache, rows: cache.loadFiles(agents) };
  }
}

/** Rows in read chunks of at most `maxFiles` files, closed once they hold `maxEvents` events. */
function* chunks(rows: readonly FileRow[], maxFiles: number, maxEvents: number): Generator<FileRow[]> {
  let chunk: FileRow[] = [];
  let events = 0;
  for (const row of rows) {
    chunk.push(row);
    events += row.live_count + row.ledger_count;
    if (chunk.length >= maxFiles || events >= maxEvents) {
      yield chunk;
      chunk = [];
      events = 0;
    }
  }
  if (chunk.length > 0) yield chunk;
}

export async function* scanCached(opts: NormalizedScanOptions, discovery: Discovery): AsyncGenerator<UsageRecord[]> {
  let opened: { cache: EventCache; rows: Map<string, FileRow> };
  try {
    opened = openAndLoad(opts);
  } catch (e) {
    // A path that holds something else is one the user named by mistake: say so, rather than run uncached.
    if (isForeignCacheError(e)) throw e;
    opts.onWarning(`${(e as Error).message}; reading without the event cache.`);
    opts.stats.cache = 'off';
    if (opts.delta) opts.delta.exact = false;
    await loadListedCodecs(opts);
    yield* scanStreaming(opts, discovery.files);
    return;
  }
  const scan = new CachedScan(opts, opened.cache, opened.rows);
  try {
    yield* scan.run(discovery);
  } finally {
    await scan.close();
  }
}

type DoneMessage = Extract<TaskMessage, { type: 'done' }>;

/**
 * One scan through the event cache: the cache connection and its loaded rows, the consumer's delta (an
 * incremental scan), the parse tasks in flight with their states, and the finished parses waiting to be applied.
 */
class CachedScan {
  readonly #opts: NormalizedScanOptions;
  readonly #cache: EventCache;
  readonly #rows: Map<string, FileRow>;
  readonly #parsers: Map<Codec, string>;
  #delta: ScanDelta | undefined;
  /** Logged updates to fold in before the cached files are served. */
  readonly #catchUps: RecordChange[][] = [];
  readonly #skipped = new SkipTally();
  readonly #states = new Map<number, TaskState>();
  #nextId = 0;
  #runner: TaskRunner | undefined;
  readonly #pending: { state: TaskState; done: DoneMessage }[] = [];
  #pendingEvents = 0;

  constructor(opts: NormalizedScanOptions, cache: EventCache, rows: Map<string, FileRow>) {
    this.#opts = opts;
    this.#cache = cache;
    this.#rows = rows;
    this.#parsers = new Map(opts.sources.map((s) => [s.codec, getParserString(s.codec)]));
    opts.stats.cache = cache.rebuilt ? 'rebuilt' : 'used';
    this.#delta = opts.delta;
    if (this.#delta) {
      const used = this.#guard(() => cache.instance());
      this.#delta.usedInstance = used;
      // Row ids of another database (rebuilt, replaced by another process) mean nothing here: serve everything.
      if (cache.rebuilt || (this.#delta.instance !== undefined && this.#delta.instance !== used)) {
        this.#delta.exact = false;
        this.#delta = undefined;
      }
    }
  }

  /** Run a cache call; corruption moves the cache aside, anything else is a CACHE_ERROR. */
  #guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      const path = this.#opts.cachePath;
      if (isCorruptionError(e)) {
        this.#cache.close();
        const aside = moveAside(path);
        throw new SessionfoldError('CACHE_ERROR', `The event cache ${path} is corrupt${aside ? ` (moved aside to ${aside})` : ''}; run again to rebuild it.`, { file: path, cause: e });
      }
      if (e instanceof SessionfoldError) throw e;
      throw new SessionfoldError('CACHE_ERROR', `Event cache ${path}: ${(e as Error).message}`, { file: path, cause: e });
    }
  }

  async *run(discovery: Discovery): AsyncGenerator<UsageRecord[]> {
    const files = triage(discovery.files, this.#rows, this.#parsers);
    await loadListedCodecs(this.#opts, files.readers);
    const serve = this.#classify(discovery, files);
    const runner = this.#startRunner();
    // Serve cached files while the pool parses; then the consumer's own preparation, while it still does.
    yield* this.#serveCached(serve, discovery);
    if (this.#states.size > 0) this.#delta?.whileReading?.();
    for (;;) {
      // Finished files are applied in batches, not as soon as the queue is momentarily empty: every commit
      // rewrites the B-tree pages it touched, and one commit per file or two wrote ~4x the cache's size to
      // its WAL on a first run (1.8 GB history, counted once with strace: 87k page writes for a 42 MB cache;
      // `npm run bench`'s cost topic times the first run).
      if (this.#pending.length >= APPLY_FILES || this.#pendingEvents >= APPLY_EVENTS) {
        yield* this.#applyPending();
        continue;
      }
      const m = await runner.next();
      if (m === undefined) {
        if (this.#pending.length === 0) break;
        yield* this.#applyPending();
        continue;
      }
      yield* this.#onMessage(m);
    }
    const delta = this.#delta;
    // A covered file this scan did not account for left the selection (deleted without retainDeleted,
    // skipped by `since`): its records must go, which only a fresh fold can do.
    if (delta) for (const id of delta.covered.keys()) if (!delta.gens.has(id)) delta.exact = false;
    const w = this.#skipped.warning();
    if (w !== undefined) this.#opts.onWarning(w);
  }

  /** The pool, given every task `#classify` made (batched), with workers for what the native lane will not read. */
  #startRunner(): TaskRunner {
    const codecOf = (t: ParseTask): Codec => (this.#states.get(t.id) as TaskState).file.codec;
    const tasks = batchTasks([...this.#states.values()].map((s) => s.task), codecOf);
    const js = tasks.filter((t) => !takesNativeLane(codecOf(t), t));
    const runner = new TaskRunner(this.#opts, resolveWorkers(this.#opts.workers, js.length, js.reduce((n, t) => n + t.weight, 0), this.#opts.workerMinBytes));
    this.#runner = runner;
    runner.add(tasks);
    this.#opts.stats.workers = runner.workers;
    return runner;
  }

  async close(): Promise<void> {
    if (this.#opts.delta) this.#opts.delta.writes = this.#cache.writes;
    await this.#runner?.close();
    this.#cache.close();
  }

  /**
   * The unchanged files' rows served (returned), a task for each other file, and the cached files under the
   * scanned roots that are gone from disk marked deleted (served too, with `retainDeleted`).
   */
  #classify(discovery: Discovery, { unchanged, moved, changed }: Triage): FileRow[] {
    const serve: FileRow[] = [];
    this.#guard(() => this.#cache.setRoots(moved));
    for (const row of unchanged) {
      this.#serveRow(row, serve);
      this.#skipped.add(row.path, row.skipped);
      // The file is as it was when its read failed: the same warning, as a cold run gives it.
      if (row.error !== null) this.#failed(row.agent, row.root, row.error);
    }
    this.#opts.stats.unchanged += unchanged.length;
    for (const { file, row } of changed) this.#addTask(file, row, 0, false);
    this.#markGone(discovery, serve);
    return serve;
  }

  /** Cached files under the scanned roots that are gone from disk: marked deleted, and served with `retainDeleted`. */
  #markGone(discovery: Discovery, serve: FileRow[]): void {
    const opts = this.#opts;
    const gone: FileRow[] = [];
    for (const { codec, roots } of opts.sources) {
      const seen = discovery.seen.get(codec.id) ?? new Set<string>();
      const skipOld = opts.since !== undefined && codec.capabilities.eventsPrecedeMtime === true;
      for (const row of this.#rows.values()) {
        if (row.agent !== codec.id || seen.has(row.path) || !roots.includes(row.root)) continue;
        if (stillThere(row.path)) continue;
        if (row.deleted === 0) gone.push(row);
        if (opts.retainDeleted && !(skipOld && row.mtime_ms < (opts.since as number))) {
          // Marking it deleted below bumps its gen; its records stay the same.
          this.#serveRow(row, serve, row.deleted === 0 ? row.gen + 1 : row.gen);
          opts.stats.deleted++;
        }
      }
    }
    this.#guard(() => this.#cache.markDeleted(gone));
    this.#sweepUnlisted(discovery);
  }

  /**
   * A scan that reads kept files outside the roots (`KeepFiles.unlisted`) forgets the rows of such files
   * that are gone from disk: no scan's roots take them for theirs, so nothing else would, and their usage
   * counts in no report (a report counts only what its roots listed).
   */
  #sweepUnlisted(discovery: Discovery): void {
    if (this.#opts.keep?.unlisted === undefined) return;
    const gone: FileRow[] = [];
    for (const row of this.#rows.values()) {
      if (isUnlistedRoot(row.root) && discovery.seen.get(row.agent)?.has(row.path) !== true && !stillThere(row.path)) gone.push(row);
    }
    this.#guard(() => this.#cache.forget(gone));
  }

  #addTask(file: ScanFile, row: FileRow | undefined, attempts: number, noWrite: boolean): ParseTask {
    const task = this.#guard(() => makeTask(this.#cache, this.#nextId++, file, row, this.#parsers.get(file.codec) as string, noWrite));
    this.#states.set(task.id, { task, file, row, attempts, noWrite, segments: [], events: 0 });
    return task;
  }

  /**
   * Incremental scans: what the consumer's state holds of a cached row. undefined: nothing (serve the row
   * whole); []: every record at the row's gen; steps: an older gen, and these logged updates bring it up to
   * date. A row it holds at a gen the log cannot bridge makes the scan not exact.
   */
  #held(row: FileRow): RecordChange[] | undefined {
    const delta = this.#delta;
    if (delta === undefined) return undefined;
    const g = delta.covered.get(row.id);
    if (g === undefined) return undefined;
    if (g === row.gen) return [];
    const steps = g < row.gen ? this.#guard(() => this.#cache.changesSince(row, g)) : undefined;
    if (steps === undefined) delta.exact = false;
    return steps;
  }

  /** Classify a cached row to serve: whole, not at all, or through its logged updates. */
  #serveRow(row: FileRow, serve: FileRow[], gen = row.gen): void {
    const steps = this.#held(row);
    this.#delta?.gens.set(row.id, gen);
    if (steps === undefined) serve.push(row);
    else if (steps.length > 0) this.#catchUps.push(steps);
  }

  /** The records of `rows`; rows whose stored segments fail to decode go to `damaged` (halving to find them). */
  #readRows(rows: FileRow[], damaged: FileRow[]): { records: UsageRecord[]; retained: number } {
    try {
      return this.#cache.readFiles(rows);
    } catch (e) {
      if (!(e instanceof SegmentError)) throw e;
      if (rows.length === 1) {
        damaged.push(rows[0] as FileRow);
        return { records: [], retained: 0 };
      }
      const a = this.#readRows(rows.slice(0, rows.length >> 1), damaged);
      const b = this.#readRows(rows.slice(rows.length >> 1), damaged);
      for (const r of b.records) a.records.push(r);
      return { records: a.records, retained: a.retained + b.retained };
    }
  }

  /** First what the consumer's state misses of files it holds, then the cached files; damaged ones are read again. */
  async *#serveCached(serve: FileRow[], discovery: Discovery): AsyncGenerator<UsageRecord[]> {
    for (const steps of this.#catchUps.splice(0)) yield* this.#emitNet(steps);
    const damaged: FileRow[] = [];
    for (const chunk of chunks(serve, READ_CHUNK_FILES, READ_CHUNK_EVENTS)) {
      const { records, retained } = this.#guard(() => this.#readRows(chunk, damaged));
      yield* this.#emit(records, retained);
      await new Promise<void>((r) => setImmediate(r));
    }
    if (damaged.length === 0) return;
    // Stored events that fail their check: forgotten and read again now, as new files, with one warning.
    this.#opts.onWarning(`The event cache ${this.#opts.cachePath} held damaged events of ${damaged.length} file${damaged.length === 1 ? '' : 's'} (the first: ${damaged[0]?.path}): read again.`);
    if (this.#delta) this.#delta.exact = false;
    this.#guard(() => this.#cache.forget(damaged));
    const again: ParseTask[] = [];
    for (const row of damaged) {
      const f = discovery.files.find((d) => d.codec.id === row.agent && d.path === row.path) as ScanFile;
      again.push(this.#addTask(f, undefined, 0, false));
    }
    this.#runner?.add(again);
  }

  *#emit(records: UsageRecord[], retained: number): Generator<UsageRecord[]> {
    this.#opts.stats.records += records.length;
    this.#opts.stats.retainedRecords += retained;
    if (records.length > 0) yield records;
  }

  /** The net change of a held file's updates: its removals go to the delta, its additions are yielded. */
  *#emitNet(steps: readonly RecordChange[]): Generator<UsageRecord[]> {
    const net = netChange(steps);
    if (this.#delta) for (const x of net.removed) this.#delta.removed.push(x);
    let retained = 0;
    for (const r of net.added) if (r.retained === true) retained++;
    yield* this.#emit(net.added, retained);
  }

  /** The cached records of `row`, now. */
  *#emitRow(row: FileRow): Generator<UsageRecord[]> {
    const { records, retained } = this.#guard(() => this.#cache.readFiles([row]));
    yield* this.#emit(records, retained);
  }

  /** A file whose apply lost a race: its fresh row when another process read it as this scan would, else a new task. */
  #requeue(state: TaskState): FileRow | undefined {
    const fresh = this.#guard(() => this.#cache.getFile(state.file.codec.id, state.file.path));
    if (isUnchanged(state.file, fresh, this.#parsers.get(state.file.codec) as string)) return fresh;
    const attempts = state.attempts + 1;
    this.#runner?.add([this.#addTask(state.file, fresh, attempts, attempts >= MAX_ATTEMPTS)]);
    return undefined;
  }

  /** Apply the finished parses held back, in one transaction, and yield their records. */
  *#applyPending(): Generator<UsageRecord[]> {
    const batch = this.#pending.splice(0);
    this.#pendingEvents = 0;
    const delta = this.#delta;
    // What the consumer holds of each file (before this batch's updates are logged).
    const heldSteps = batch.map(({ state }) => (state.row === undefined ? undefined : this.#held(state.row)));
    const results = batch.map(({ state, done }, i) => fileResult(state, done, this.#parsers.get(state.file.codec) as string, heldSteps[i] !== undefined));
    const outcomes = this.#guard(() => this.#cache.apply(results));
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i];
      const { state } = batch[i] as (typeof batch)[number];
      if (o?.ok) {
        const steps = heldSteps[i];
        if (delta) delta.gens.set(o.id, o.gen);
        if (delta && steps !== undefined) yield* this.#emitNet([...steps, { added: o.records, removed: o.removed ?? [] }]);
        else yield* this.#emit(o.records, o.retained);
        continue;
      }
      this.#opts.stats.conflicts++;
      if (delta) delta.exact = false;
      const fresh = this.#requeue(state);
      if (fresh !== undefined) {
        delta?.gens.set(fresh.id, fresh.gen);
        yield* this.#emitRow(fresh);
      }
    }
  }

  /** One message of the pool about one task. */
  *#onMessage(m: TaskMessage): Generator<UsageRecord[]> {
    const state = this.#states.get(m.id) as TaskState;
    if (m.type === 'start') state.start = m.start;
    else if (m.type === 'batch') {
      state.segments.push(m.data);
      state.events += segmentCount(m.data);
    } else if (m.type === 'done') yield* this.#onDone(state, m);
    else if (m.type === 'events' || m.type === 'block') {
      // The native lane's events (a block's decoded onto one event, which the writer copies), stored as the
      // segments a parse would have posted.
      const n = m.type === 'events' ? m.events.length : m.block.count;
      const e = blankUsageEvent();
      const at = m.type === 'events' ? (k: number): UsageEvent => m.events[k] as UsageEvent : (k: number): UsageEvent => m.block.decode(k, e);
      for (let i = 0; i < n; i += BATCH_EVENTS) {
        const w = new SegmentWriter();
        for (let k = i; k < Math.min(i + BATCH_EVENTS, n); k++) w.add(at(k));
        state.segments.push(w.finish());
      }
      state.events += n;
    } else {
      this.#states.delete(m.id);
      yield* this.#onError(state, m.error);
    }
  }

  *#onDone(state: TaskState, m: DoneMessage): Generator<UsageRecord[]> {
    const stats = this.#opts.stats;
    this.#states.delete(m.id);
    stats.bytesRead += m.info.bytes;
    stats.bytesVerified += m.bytesVerified;
    stats.skippedLines += m.info.skippedLines;
    state.skipped = (state.start?.restarted === false ? (state.row?.skipped ?? 0) : 0) + m.info.skippedLines;
    this.#skipped.add(state.file.path, state.skipped);
    if (state.start?.restarted === false) stats.resumed++;
    else stats.fullReads++;
    if (m.native === true) stats.nativeReads++;
    if (!state.noWrite) {
      this.#pending.push({ state, done: m });
      this.#pendingEvents += state.events;
      return;
    }
    if (this.#delta) this.#delta.exact = false;
    const out: UsageRecord[] = [];
    for (const s of state.segments) pushRecords(decodeSegment(s), state.file.path, m.track.cwd ?? undefined, false, out);
    yield* this.#emit(out, 0);
  }

  /** A file that could not be read, counted and warned about. */
  #failed(agent: string, root: string, warning: string): void {
    this.#opts.stats.failed++;
    this.#opts.sourceReport?.tally.failed(agent, root);
    this.#opts.onWarning(warning);
  }

  /**
   * Keep a failed read's warning in the file's row (a new file gets one, without records), so that a warm run
   * warns as this one did (`#classify`; a snapshot's answer reads the rows). `retry`: a failure of the system, read again in a while (src/cache/rows.ts `IO_RETRY_MS`) or once the file changes.
   */
  #recordFailure(state: TaskState, warning: string, retry: boolean): void {
    if (state.noWrite) return;
    const failure = fileFailure(state, this.#parsers.get(state.file.codec) as string, warning, retry);
    const [o] = this.#guard(() => this.#cache.recordFailures([failure]));
    if (o === undefined) {
      if (this.#delta) this.#delta.exact = false;
    } else if (state.row === undefined) this.#delta?.gens.set(o.id, o.gen);
  }

  /** A read that failed: a file deleted since discovery keeps its cached usage as deleted; others are warned about. */
  *#onError(state: TaskState, error: Error): Generator<UsageRecord[]> {
    const row = state.row;
    const delta = this.#delta;
    if (isMissingFileError(error)) {
      // Deleted between discovery and the read.
      if (row === undefined) return;
      this.#guard(() => this.#cache.markDeleted([row]));
      if (!this.#opts.retainDeleted) return;
      this.#opts.stats.deleted++;
      const fresh = this.#guard(() => this.#cache.getFile(row.agent, row.path));
      if (fresh === undefined) return;
      // Held by the consumer and only marked deleted since: the records are the same.
      const steps = fresh.gen === row.gen + (row.deleted === 0 ? 1 : 0) ? this.#held(row) : undefined;
      delta?.gens.set(fresh.id, fresh.gen);
      if (steps !== undefined) yield* this.#emitNet(steps);
      else {
        if (delta?.covered.has(row.id)) delta.exact = false;
        yield* this.#emitRow(fresh);
      }
      return;
    }
    const cached = row !== undefined && row.live_count + row.ledger_count > 0;
    const warning = `Cannot read ${state.file.path}: ${error.message}${cached ? ' (using its cached usage)' : ''}`;
    this.#failed(state.file.codec.id, state.file.root, warning);
    this.#recordFailure(state, warning, !isFileError(error));
    if (row === undefined) return;
    this.#skipped.add(row.path, row.skipped);
    const served: FileRow[] = [];
    this.#serveRow(row, served);
    if (served.length > 0) yield* this.#emitRow(row);
    for (const steps of this.#catchUps.splice(0)) yield* this.#emitNet(steps);
  }
}
