/**
 * The cached scan. Each discovered file is classified against its cached row:
 *
 * - unchanged (same size, mtimeMs, dependency fingerprints and parser string): its usage comes from the
 *   cache, the file is not opened;
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
import { statSync } from 'node:fs';
import { getParserString, type Codec, type ReadCursor, type ResumeStart } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { EventCache } from '../cache/store.js';
import { fileKey, type FileResult, type FileRow } from '../cache/rows.js';
import { isCorruptionError, isForeignCacheError, moveAside } from '../cache/db.js';
import type { Discovery, ScanFile } from './discover.js';
import type { NormalizedScanOptions } from './options.js';
import { resolveWorkers } from './options.js';
import { isMissingFileError, type ParseTask, type TaskMessage } from './parse-file.js';
import { netChange, type RecordChange } from './record-diff.js';
import { TaskRunner } from './runner.js';
import { decodeSegment, pushRecords, SegmentError, segmentCount, SegmentWriter } from './segment.js';
import { BATCH_EVENTS } from './parse-file.js';
import { takesNativeLane } from './pool.js';
import { scanStreaming } from './streaming.js';
import { SkipTally, type UsageRecord } from './types.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';

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
/**
 * A file the cache never read goes to the native engine (no cursor) when it is at most this large or was last
 * written over SETTLED_MS ago (see makeTask). On the 1.8 GB peers history, 90% of the bytes are in files of at
 * most 8 MiB.
 */
export const NATIVE_CACHE_MAX_BYTES = 8 << 20;
export const SETTLED_MS = 24 * 3600 * 1000;
/** Conflicts with another process tolerated per file before it is read without the cache. */
const MAX_ATTEMPTS = 3;

interface TaskState {
  task: ParseTask;
  file: ScanFile;
  row: FileRow | undefined;
  attempts: number;
  /** Read without writing: the file lost too many races with another process. */
  noWrite: boolean;
  start?: ResumeStart;
  segments: Uint8Array[];
  events: number;
  /** Lines of the file skipped in all, once its read is done (the row's, when resumed, and the read's). */
  skipped?: number;
}

function isUnchanged(f: ScanFile, row: FileRow | undefined, parser: string): row is FileRow {
  return row !== undefined && row.deleted === 0 && row.parser === parser && row.size === f.size && row.mtime_ms === f.mtimeMs && row.deps === f.deps;
}

function makeTask(cache: EventCache, id: number, f: ScanFile, row: FileRow | undefined, parser: string, noWrite: boolean): ParseTask {
  const resume = f.codec.capabilities.incremental && !noWrite;
  let cursor: ReadCursor | undefined;
  if (resume && row !== undefined && row.parser === parser && row.has_cursor !== 0) {
    try {
      cursor = JSON.parse(cache.getCursor(row.id) ?? 'null') as ReadCursor | undefined;
    } catch {
      cursor = undefined;
    }
    if (cursor === null || typeof cursor !== 'object') cursor = undefined;
    if (cursor?.format === 'jsonl' && (row.prefix_hash === null || row.deps !== f.deps)) cursor = undefined;
    // A database's RowCursor checks the rows themselves (replaced file, changed or deleted rows), so a
    // changed dependency (its -wal, which every commit moves) resumes from it instead of reading all again.
  }
  if (cursor === undefined) {
    // A file the cache has never read (or read with another parser) may go to the native engine, which leaves
    // no cursor: if it grows, read() reads it again whole and leaves one. So only a file that is small (read
    // again in a few milliseconds) or settled (not written for a day: an old session) goes there; a large live
    // session is read by read() now, and its next append resumes.
    const first = row === undefined || row.deleted !== 0 || row.parser !== parser || row.deps !== f.deps;
    const cheap = f.size <= NATIVE_CACHE_MAX_BYTES || f.mtimeMs < Date.now() - SETTLED_MS;
    return { id, agent: f.codec.id, path: f.path, weight: f.size, resume, native: first && resume && cheap };
  }
  return {
    id,
    agent: f.codec.id,
    path: f.path,
    weight: cursor.format === 'jsonl' ? Math.max(0, f.size - cursor.offset) : f.size,
    resume,
    cursor,
    prefixHash: row?.prefix_hash ?? undefined,
    track: { events: row?.session_events ?? 0, cwdIndex: row?.cwd_index ?? null, cwd: row?.cwd ?? null },
  };
}

/**
 * Whether a cached file not seen by discovery is still on disk: a stat that fails for another reason than
 * its absence (a folder made unreadable) keeps it, and its cached usage, rather than crash or drop it.
 */
function stillThere(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** Open the cache and load the selected agents' rows; corruption found while loading is a rebuild too. */
function openAndLoad(opts: NormalizedScanOptions): { cache: EventCache; rows: Map<string, FileRow> } {
  const agents = opts.sources.map((s) => s.codec.id);
  let cache = EventCache.open(opts.cachePath, opts.onWarning);
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
  const stats = opts.stats;
  let opened: { cache: EventCache; rows: Map<string, FileRow> };
  try {
    opened = openAndLoad(opts);
  } catch (e) {
    // A path that holds something else is one the user named by mistake: say so, rather than run uncached.
    if (isForeignCacheError(e)) throw e;
    opts.onWarning(`${(e as Error).message}; reading without the event cache.`);
    stats.cache = 'off';
    if (opts.delta) opts.delta.exact = false;
    yield* scanStreaming(opts, discovery.files);
    return;
  }
  const { cache, rows } = opened;
  stats.cache = cache.rebuilt ? 'rebuilt' : 'used';
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (isCorruptionError(e)) {
        cache.close();
        const aside = moveAside(opts.cachePath);
        throw new SessionfoldError('CACHE_ERROR', `The event cache ${opts.cachePath} is corrupt${aside ? ` (moved aside to ${aside})` : ''}; run again to rebuild it.`, {
          file: opts.cachePath,
          cause: e,
        });
      }
      if (e instanceof SessionfoldError) throw e;
      throw new SessionfoldError('CACHE_ERROR', `Event cache ${opts.cachePath}: ${(e as Error).message}`, { file: opts.cachePath, cause: e });
    }
  };

  let delta = opts.delta;
  if (delta) {
    const used = guard(() => cache.instance());
    delta.usedInstance = used;
    // Row ids of another database (rebuilt, replaced by another process) mean nothing here: serve everything.
    if (cache.rebuilt || (delta.instance !== undefined && delta.instance !== used)) {
      delta.exact = false;
      delta = undefined;
    }
  }
  /**
   * Incremental scans: what the consumer's state holds of a cached row. undefined: nothing (serve the row
   * whole); []: every record at the row's gen; steps: an older gen, and these logged updates bring it up to
   * date. A row it holds at a gen the log cannot bridge makes the scan not exact.
   */
  const held = (row: FileRow): RecordChange[] | undefined => {
    if (delta === undefined) return undefined;
    const g = delta.covered.get(row.id);
    if (g === undefined) return undefined;
    if (g === row.gen) return [];
    const steps = g < row.gen ? guard(() => cache.changesSince(row, g)) : undefined;
    if (steps === undefined) delta.exact = false;
    return steps;
  };
  /** Logged updates to fold in before the cached files are served. */
  const catchUps: RecordChange[][] = [];
  /** Classify a cached row to serve: whole, not at all, or through its logged updates. */
  const serveRow = (row: FileRow, serve: FileRow[], gen = row.gen): void => {
    const steps = held(row);
    delta?.gens.set(row.id, gen);
    if (steps === undefined) serve.push(row);
    else if (steps.length > 0) catchUps.push(steps);
  };

  let runner: TaskRunner | undefined;
  const skipped = new SkipTally();
  /** The records of `rows`; rows whose stored segments fail to decode go to `damaged` (halving to find them). */
  const readRows = (rows: FileRow[], damaged: FileRow[]): { records: UsageRecord[]; retained: number } => {
    try {
      return cache.readFiles(rows);
    } catch (e) {
      if (!(e instanceof SegmentError)) throw e;
      if (rows.length === 1) {
        damaged.push(rows[0] as FileRow);
        return { records: [], retained: 0 };
      }
      const a = readRows(rows.slice(0, rows.length >> 1), damaged);
      const b = readRows(rows.slice(rows.length >> 1), damaged);
      for (const r of b.records) a.records.push(r);
      return { records: a.records, retained: a.retained + b.retained };
    }
  };
  try {
    const parsers = new Map<Codec, string>(opts.sources.map((s) => [s.codec, getParserString(s.codec)]));
    const serve: FileRow[] = [];
    const states = new Map<number, TaskState>();
    let nextId = 0;
    for (const f of discovery.files) {
      const parser = parsers.get(f.codec) as string;
      const row = rows.get(fileKey(f.codec.id, f.path));
      if (isUnchanged(f, row, parser)) {
        serveRow(row, serve);
        skipped.add(row.path, row.skipped);
        stats.unchanged++;
        continue;
      }
      const task = guard(() => makeTask(cache, nextId++, f, row, parser, false));
      states.set(task.id, { task, file: f, row, attempts: 0, noWrite: false, segments: [], events: 0 });
    }

    // Cached files under the scanned roots that are gone from disk.
    const gone: FileRow[] = [];
    for (const { codec, roots } of opts.sources) {
      const seen = discovery.seen.get(codec.id) ?? new Set<string>();
      const skipOld = opts.since !== undefined && codec.capabilities.eventsPrecedeMtime === true;
      for (const row of rows.values()) {
        if (row.agent !== codec.id || seen.has(row.path) || !roots.includes(row.root)) continue;
        if (stillThere(row.path)) continue;
        if (row.deleted === 0) gone.push(row);
        if (opts.retainDeleted && !(skipOld && row.mtime_ms < (opts.since as number))) {
          // Marking it deleted below bumps its gen; its records stay the same.
          serveRow(row, serve, row.deleted === 0 ? row.gen + 1 : row.gen);
          stats.deleted++;
        }
      }
    }
    guard(() => cache.markDeleted(gone));

    const tasks = [...states.values()].map((s) => s.task);
    // Workers for what the native lane will not read.
    const js = tasks.filter((t) => !takesNativeLane((states.get(t.id) as TaskState).file.codec, t));
    runner = new TaskRunner(opts, resolveWorkers(opts.workers, js.length, js.reduce((n, t) => n + t.weight, 0)));
    runner.add(tasks);
    stats.workers = runner.workers;

    // Serve cached files while the pool parses; first what the consumer's state misses of files it holds.
    for (const steps of catchUps.splice(0)) yield* emitNet(steps);
    const damaged: FileRow[] = [];
    for (const chunk of chunks(serve, READ_CHUNK_FILES, READ_CHUNK_EVENTS)) {
      const { records, retained } = guard(() => readRows(chunk, damaged));
      stats.records += records.length;
      stats.retainedRecords += retained;
      if (records.length > 0) yield records;
      await new Promise<void>((r) => setImmediate(r));
    }
    if (damaged.length > 0) {
      // Stored events that fail their check: forgotten and read again now, as new files, with one warning.
      opts.onWarning(`The event cache ${opts.cachePath} held damaged events of ${damaged.length} file${damaged.length === 1 ? '' : 's'} (the first: ${damaged[0]?.path}): read again.`);
      if (delta) delta.exact = false;
      guard(() => cache.forget(damaged));
      const again: ParseTask[] = [];
      for (const row of damaged) {
        const f = discovery.files.find((d) => d.codec.id === row.agent && d.path === row.path) as ScanFile;
        const task = makeTask(cache, nextId++, f, undefined, parsers.get(f.codec) as string, false);
        states.set(task.id, { task, file: f, row: undefined, attempts: 0, noWrite: false, segments: [], events: 0 });
        again.push(task);
      }
      runner.add(again);
    }

    const pending: { state: TaskState; done: Extract<TaskMessage, { type: 'done' }> }[] = [];
    let pendingEvents = 0;
    const r = runner;

    const requeue = (state: TaskState): FileRow | undefined => {
      const fresh = guard(() => cache.getFile(state.file.codec.id, state.file.path));
      const parser = parsers.get(state.file.codec) as string;
      if (isUnchanged(state.file, fresh, parser)) return fresh;
      const attempts = state.attempts + 1;
      const noWrite = attempts >= MAX_ATTEMPTS;
      const task = guard(() => makeTask(cache, nextId++, state.file, fresh, parser, noWrite));
      states.set(task.id, { task, file: state.file, row: fresh, attempts, noWrite, segments: [], events: 0 });
      r.add([task]);
      return undefined;
    };

    function* emit(records: UsageRecord[], retained: number): Generator<UsageRecord[]> {
      stats.records += records.length;
      stats.retainedRecords += retained;
      if (records.length > 0) yield records;
    }

    /** The net change of a held file's updates: its removals go to the delta, its additions are yielded. */
    function* emitNet(steps: readonly RecordChange[]): Generator<UsageRecord[]> {
      const net = netChange(steps);
      if (delta) for (const x of net.removed) delta.removed.push(x);
      let retained = 0;
      for (const r of net.added) if (r.retained === true) retained++;
      yield* emit(net.added, retained);
    }

    function* applyPending(): Generator<UsageRecord[]> {
      const batch = pending.splice(0);
      pendingEvents = 0;
      // What the consumer holds of each file (before this batch's updates are logged).
      const heldSteps = batch.map(({ state }) => (state.row === undefined ? undefined : held(state.row)));
      const results: FileResult[] = batch.map(({ state, done }, i) => ({
        agent: state.file.codec.id,
        path: state.file.path,
        root: state.file.root,
        parser: parsers.get(state.file.codec) as string,
        size: state.file.size,
        mtimeMs: state.file.mtimeMs,
        deps: state.file.deps,
        baseGen: state.row?.gen ?? null,
        start: state.start ?? { restarted: true, reason: 'no-cursor', replaced: {} },
        segments: state.segments,
        cursor: done.cursor === undefined ? null : JSON.stringify(done.cursor),
        prefixHash: done.prefixHash ?? null,
        track: done.track,
        skipped: state.skipped ?? 0,
        delta: heldSteps[i] !== undefined,
      }));
      const outcomes = guard(() => cache.apply(results));
      for (let i = 0; i < batch.length; i++) {
        const o = outcomes[i];
        const { state } = batch[i] as (typeof batch)[number];
        if (o?.ok) {
          const steps = heldSteps[i];
          if (delta) delta.gens.set(o.id, o.gen);
          if (delta && steps !== undefined) yield* emitNet([...steps, { added: o.records, removed: o.removed ?? [] }]);
          else yield* emit(o.records, o.retained);
          continue;
        }
        stats.conflicts++;
        if (delta) delta.exact = false;
        const fresh = requeue(state);
        if (fresh !== undefined) {
          delta?.gens.set(fresh.id, fresh.gen);
          const { records, retained } = guard(() => cache.readFiles([fresh]));
          yield* emit(records, retained);
        }
      }
    }

    for (;;) {
      // Finished files are applied in batches, not as soon as the queue is momentarily empty: every commit
      // rewrites the B-tree pages it touched, and one commit per file or two wrote ~4x the cache's size to
      // its WAL on a first run (1.8 GB history, counted once with strace: 87k page writes for a 42 MB cache;
      // `npm run bench`'s cost topic times the first run).
      if (pending.length >= APPLY_FILES || pendingEvents >= APPLY_EVENTS) {
        yield* applyPending();
        continue;
      }
      const m = await r.next();
      if (m === undefined) {
        if (pending.length === 0) break;
        yield* applyPending();
        continue;
      }
      const state = states.get(m.id) as TaskState;
      if (m.type === 'start') state.start = m.start;
      else if (m.type === 'batch') {
        state.segments.push(m.data);
        state.events += segmentCount(m.data);
      } else if (m.type === 'done') {
        states.delete(m.id);
        stats.bytesRead += m.info.bytes;
        stats.bytesVerified += m.bytesVerified;
        stats.skippedLines += m.info.skippedLines;
        state.skipped = (state.start?.restarted === false ? (state.row?.skipped ?? 0) : 0) + m.info.skippedLines;
        skipped.add(state.file.path, state.skipped);
        if (state.start?.restarted === false) stats.resumed++;
        else stats.fullReads++;
        if (m.native === true) stats.nativeReads++;
        if (state.noWrite) {
          if (delta) delta.exact = false;
          const out: UsageRecord[] = [];
          for (const s of state.segments) pushRecords(decodeSegment(s), state.file.path, m.track.cwd ?? undefined, false, out);
          yield* emit(out, 0);
        } else {
          pending.push({ state, done: m });
          pendingEvents += state.events;
        }
      } else if (m.type === 'events') {
        // The native lane's events, stored as the segments a parse would have posted.
        for (let i = 0; i < m.events.length; i += BATCH_EVENTS) {
          const w = new SegmentWriter();
          for (let k = i; k < Math.min(i + BATCH_EVENTS, m.events.length); k++) w.add(m.events[k] as UsageEvent);
          state.segments.push(w.finish());
        }
        state.events += m.events.length;
      } else {
        states.delete(m.id);
        const row = state.row;
        if (isMissingFileError(m.error)) {
          // Deleted between discovery and the read.
          if (row !== undefined) {
            guard(() => cache.markDeleted([row]));
            if (opts.retainDeleted) {
              stats.deleted++;
              const fresh = guard(() => cache.getFile(row.agent, row.path));
              if (fresh !== undefined) {
                // Held by the consumer and only marked deleted since: the records are the same.
                const steps = fresh.gen === row.gen + (row.deleted === 0 ? 1 : 0) ? held(row) : undefined;
                delta?.gens.set(fresh.id, fresh.gen);
                if (steps !== undefined) yield* emitNet(steps);
                else {
                  if (delta?.covered.has(row.id)) delta.exact = false;
                  const { records, retained } = guard(() => cache.readFiles([fresh]));
                  yield* emit(records, retained);
                }
              }
            }
          }
          continue;
        }
        stats.failed++;
        opts.onWarning(`Cannot read ${state.file.path}: ${m.error.message}${row !== undefined ? ' (using its cached usage)' : ''}`);
        if (row !== undefined) {
          skipped.add(row.path, row.skipped);
          const served: FileRow[] = [];
          serveRow(row, served);
          if (served.length > 0) {
            const { records, retained } = guard(() => cache.readFiles([row]));
            yield* emit(records, retained);
          }
          for (const steps of catchUps.splice(0)) yield* emitNet(steps);
        }
      }
    }
    // A covered file this scan did not account for left the selection (deleted without retainDeleted,
    // skipped by `since`): its records must go, which only a fresh fold can do.
    if (delta) for (const id of delta.covered.keys()) if (!delta.gens.has(id)) delta.exact = false;
    const w = skipped.warning();
    if (w !== undefined) opts.onWarning(w);
  } finally {
    if (opts.delta) opts.delta.writes = cache.writes;
    await runner?.close();
    cache.close();
  }
}

