/**
 * `list(agent, options)`: summaries of one agent's sessions, lazily.
 *
 * 1. Discover the codec's files and stat them (no parse). With `since` and a codec whose events precede the
 *    file's mtime, files older than `since` are dropped here.
 * 2. Peek each remaining file (peek.ts: head and tail windows through the codec's lineCore; small files
 *    whole) for id, title, cwd, dates, model. Filter on since / until / cwd / tags.
 * 3. Only when the request needs more, read more, and only for the candidates left:
 *    - sort by cost or a model filter: usage only (`kinds: ['usage']`, the codecs' byte-marker path) gives
 *      exact cost and every model used; when SCAN_MIN_FILES candidates or more need that read it comes from
 *      the scan engine (its event cache when warm, worker pool when cold: usage-scan.ts);
 *    - sort by turns: a full fold (exact counts);
 *    - `full: true`: a full fold of the sessions returned; `exactBytes: n`: the same, in output order, for
 *      as many returned sessions as fit in n bytes of files (the CLI's default budget).
 * 4. Sort (date = updatedAt), direction, limit.
 * A file that cannot be read, or yields no event of the codec's format (empty, foreign, all lines
 * malformed), is left out: list never fails on one bad file; `get()` reports it. One that cannot be read
 * (a permission, an I/O error, bytes that do not decompress) is counted in `options.sources`, with the
 * folders discovery could not list, so the caller can say what was left out; one gone since it was listed
 * is not. An error that is not the file's (a bug, the cache's) is thrown, not hidden as an unreadable file.
 *
 * Every read of steps 2 and 3 is kept in the event cache database (summary-cache.ts: per file, the peek, the
 * usage-only result and the whole fold, valid while the file's stat, parser, dependencies and price data are
 * unchanged), so a warm `list` stats the files, loads the rows and reads only new or changed files. Cached
 * or not, a summary is built from the same data by `fromData()`, so the results are the same. The pricer is
 * loaded only when a file has to be read. Measured (docs/sessions.md): warm `list` over 3,142 files (1.3 GB)
 * ~60 ms in process, cold ~1 s.
 */
import { statSync } from 'node:fs';
import { resolve as resolvePath, sep } from 'node:path';
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { invalidOption, isGoneError, isUnreadableError } from '../../cursors/protocol/errors.js';
import { getCodec } from '../registry.js';
import { SourceTally } from '../scan/sources.js';
import type { TagIndex } from '../tags.js';
import { listedStatFile, mapLimit, statFileOf, type ManagerContext, type StatFile } from './context.js';
import { fileSessionId } from '../session-file.js';
import type { PriceFn } from './cost.js';
import { topModel, type FoldResult } from './fold.js';
import { resolveUnifiedId } from './ids.js';
import { foldWholeFile, peekFile, type PeekResult } from './peek.js';
import type { ListCache } from './summary-cache.js';
import { SCAN_MIN_FILES, usageByFile } from './usage-scan.js';
import type { SessionListOptions, SessionSummary, SummaryData, UsageData } from './types.js';

export const DEFAULT_LIST_LIMIT = 100;

/**
 * At most this many files are read whole (or usage-only, below SCAN_MIN_FILES) at once, whatever the
 * concurrency option. Such a read parses on this thread, with synchronous file reads in the JSONL codecs,
 * so more reads in flight add no speed; they interleave, so each one's decoded lines and events outlive the
 * young generation's collections and pile up in the old one as garbage. Measured on the bench's clean
 * ccusage profile at scale 0.12, `sessions list --sort cost` (both agents, the 64 MB exact budget each):
 * 191–237 MB peak RSS at 8 in flight, 162–166 MB at 1 or 2, the same wall time (bench/RESULTS.md).
 */
export const WHOLE_READS_IN_FLIGHT = 2;

export interface NormalizedListOptions {
  since: number | undefined;
  until: number | undefined;
  model: string | undefined;
  tags: string[] | undefined;
  limit: number;
  sort: 'date' | 'cost' | 'turns';
  direction: 'asc' | 'desc';
  cwd: string | undefined;
  /** Bytes of returned, not-yet-exact sessions to fold whole (Infinity with `full`). */
  exactBytes: number;
  subagents: boolean;
}

export function checkDate(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (!(v instanceof Date) || !Number.isFinite(v.getTime())) throw invalidOption(name, 'a valid Date', v);
  return v.getTime();
}

export function checkLimit(v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw invalidOption('limit', 'a positive integer', v);
  return v;
}

export function checkTags(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) throw invalidOption('tags', 'an array of strings', v);
  return v.length === 0 ? undefined : v;
}

function checkBytes(v: unknown): number {
  if (v === undefined) return 0;
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0) throw invalidOption('exactBytes', 'a number of bytes >= 0', v);
  return v;
}

export function normalizeListOptions(o: SessionListOptions = {}): NormalizedListOptions {
  const sort = o.sort ?? 'date';
  if (!['date', 'cost', 'turns'].includes(sort)) throw invalidOption('sort', 'date|cost|turns', o.sort);
  const direction = o.sortDirection ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc') throw invalidOption('sortDirection', 'asc|desc', o.sortDirection);
  if (o.model !== undefined && (typeof o.model !== 'string' || o.model === '')) throw invalidOption('model', 'a non-empty string', o.model);
  if (o.cwd !== undefined && (typeof o.cwd !== 'string' || o.cwd === '')) throw invalidOption('cwd', 'a directory path', o.cwd);
  return {
    since: checkDate('since', o.since),
    until: checkDate('until', o.until),
    model: o.model?.toLowerCase(),
    tags: checkTags(o.tags),
    limit: checkLimit(o.limit, DEFAULT_LIST_LIMIT),
    sort,
    direction,
    cwd: o.cwd === undefined ? undefined : resolvePath(o.cwd),
    exactBytes: o.full === true ? Infinity : checkBytes(o.exactBytes),
    subagents: o.subagents === true,
  };
}

/** The data of a summary from a fold (whole file when `exact`, else head + tail). */
export function summaryData(sf: StatFile, fold: FoldResult, exact: boolean, models: Iterable<string>, tail?: PeekResult['tail'], head?: PeekResult['head']): SummaryData {
  const last = Math.max(fold.lastMs ?? -Infinity, tail?.lastMs ?? -Infinity);
  const model = exact ? fold.model : (tail?.model ?? fold.model);
  const d: SummaryData = {
    sessionId: sf.file.sessionId ?? fold.sessionId ?? fileSessionId(sf.file),
    title: tail?.title !== undefined ? tail.title : fold.title,
    createdMs: fold.firstMs ?? sf.mtimeMs,
    updatedMs: Number.isFinite(last) ? last : sf.mtimeMs,
    turnCount: fold.turnCount,
    messageCount: fold.messageCount,
    exact,
    models: [...new Set(models)],
  };
  if (model !== undefined) d.model = model;
  if (exact && fold.cost !== undefined) d.cost = fold.cost;
  if (exact && fold.copiedCost !== undefined) d.copiedCost = fold.copiedCost;
  if (fold.cwd !== undefined) d.cwd = fold.cwd;
  if (fold.forkedFrom !== undefined) d.forkedFrom = fold.forkedFrom;
  if (fold.subagent === true || sf.file.subagent === true) d.subagent = true;
  // A head window's fold ends mid-file, where a run is always still open: only what its lines said (an
  // export's header), the tail, or the whole file can tell.
  if ((exact ? fold.usageUnknown : (tail?.usageUnknown ?? head?.usageUnknown)) === true) d.usageUnknown = true;
  // said by the session event at the head: an export of a Cursor session (its source records no usage)
  if (fold.usageRecorded === false) d.usageRecorded = false;
  return d;
}

/** The SessionSummary of stored or fresh data (the only place summaries of list are built). */
export function fromData(sf: StatFile, d: SummaryData, tags: TagIndex): SessionSummary {
  const agent = sf.codec.id;
  const s: SessionSummary = {
    agent,
    sessionId: d.sessionId,
    unifiedId: resolveUnifiedId(agent, d.sessionId),
    title: d.title,
    createdAt: new Date(d.createdMs),
    updatedAt: new Date(d.updatedMs),
    turnCount: d.turnCount,
    messageCount: d.messageCount,
    tags: tags.tagsFor(agent, d.sessionId, d.cwd),
    exact: d.exact,
    file: sf.file.path,
    sizeBytes: sf.size,
  };
  if (d.model !== undefined) s.model = d.model;
  if (d.cost !== undefined) s.cost = d.cost;
  if (d.copiedCost !== undefined) s.copiedCost = d.copiedCost;
  if (d.cwd !== undefined) s.cwd = d.cwd;
  if (d.forkedFrom !== undefined) s.forkedFrom = d.forkedFrom;
  if (d.subagent === true) s.subagent = true;
  if (d.usageUnknown === true) s.usageUnknown = true;
  if (d.usageRecorded === false || sf.codec.capabilities.recordsUsage === false) s.usageRecorded = false;
  return s;
}

/** A lazy summary with a usage-only read merged in: exact cost, the most-used model (when the read saw one). */
export function withUsage(s: SessionSummary, u: UsageData): SessionSummary {
  const out = { ...s };
  if (u.cost !== undefined) out.cost = u.cost;
  if (u.copiedCost !== undefined) out.copiedCost = u.copiedCost;
  if (u.model !== undefined) out.model = u.model;
  return out;
}

/** A summary from a fold (whole file when `exact`, else head + tail). */
export function toSummary(sf: StatFile, fold: FoldResult, exact: boolean, tags: TagIndex, tail?: PeekResult['tail']): SessionSummary {
  return fromData(sf, summaryData(sf, fold, exact, [], tail), tags);
}

/** True when the cwd is `dir` or below it. */
export function cwdMatches(cwd: string | undefined, dir: string): boolean {
  if (cwd === undefined) return false;
  const c = cwd.length > 1 && cwd.endsWith(sep) ? cwd.slice(0, -1) : cwd;
  return c === dir || c.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

export function modelMatches(models: Iterable<string>, needle: string): boolean {
  for (const m of models) if (m.toLowerCase().includes(needle)) return true;
  return false;
}

/** Compare summaries for a sort; undefined costs always go last. */
export function compareSummaries(sort: 'date' | 'cost' | 'turns', direction: 'asc' | 'desc'): (a: SessionSummary, b: SessionSummary) => number {
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) => {
    let d = 0;
    if (sort === 'cost') {
      const ca = a.cost?.totalUsd;
      const cb = b.cost?.totalUsd;
      if (ca === undefined || cb === undefined) d = ca === cb ? 0 : ca === undefined ? 1 : -1;
      else d = sign * (ca - cb);
    } else if (sort === 'turns') d = sign * (a.turnCount - b.turnCount) || sign * (a.messageCount - b.messageCount);
    if (d === 0) d = sign * (a.updatedAt.getTime() - b.updatedAt.getTime());
    if (d === 0) d = a.unifiedId < b.unifiedId ? -1 : a.unifiedId > b.unifiedId ? 1 : 0;
    return d;
  };
}

interface Candidate {
  sf: StatFile;
  summary: SessionSummary;
  models: readonly string[];
}

/** What the phases of one list call share. */
interface Run {
  ctx: ManagerContext;
  codec: Codec;
  tags: TagIndex;
  cache: ListCache | undefined;
  /** The pricer, loaded on the first read of a file (a warm run served from the cache never loads it). */
  price: () => Promise<PriceFn>;
  /** The files under each root, and those a read could not open (left out). */
  tally: SourceTally;
}

/**
 * Stats of the files: the one discovery took as it listed a file (`SessionFile.size`, `mtimeMs`), else a
 * `statSync` (synchronous: for thousands of small files a tight loop beats as many promises).
 */
function statFiles(codec: Codec, files: readonly SessionFile[]): StatFile[] {
  const out: StatFile[] = [];
  for (const file of files) {
    const listed = listedStatFile(codec, file);
    if (listed !== undefined) {
      out.push(listed);
      continue;
    }
    try {
      const s = statSync(file.path, { throwIfNoEntry: false });
      if (s !== undefined) out.push(statFileOf(codec, file, s));
    } catch {
      // unreadable: skipped, as a vanished file is
    }
  }
  return out;
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** `list(agent, options)`: see the file header. */
export async function listSessions(ctx: ManagerContext, agent: string, options?: SessionListOptions): Promise<SessionSummary[]> {
  const codec = getCodec(agent);
  const o = normalizeListOptions(options);
  const tally = new SourceTally();
  const roots = [...new Set(ctx.rootsFor(codec))];
  tally.begin();
  const all = await ctx.discoverFiles(codec, roots, tally);
  let files = statFiles(codec, o.subagents ? all : all.filter((f) => f.subagent !== true));
  if (o.since !== undefined && codec.capabilities.eventsPrecedeMtime === true) files = files.filter((f) => f.mtimeMs >= (o.since as number));
  let out: SessionSummary[] = [];
  if (files.length > 0) {
    let price: Promise<PriceFn> | undefined;
    // Loaded on demand, as the scan engine is: better-sqlite3 is not needed by processes that never list.
    const cache = ctx.options.cache ? (await import('./summary-cache.js')).ListCache.open(ctx.options, codec, ctx.discoverOptions()) : undefined;
    const run: Run = { ctx, codec, tags: ctx.tags(), cache, price: () => (price ??= ctx.price()), tally };
    try {
      out = await listFiles(run, files, o);
    } finally {
      run.cache?.finish(new Set(all.map((f) => f.path)), exists);
    }
  }
  if (options?.sources !== undefined) tally.report([{ codec, roots }], ctx.options.env, options.sources);
  return out;
}

async function listFiles(run: Run, files: StatFile[], o: NormalizedListOptions): Promise<SessionSummary[]> {
  const { ctx, tags, cache } = run;
  const peeked = new Array<Candidate | undefined>(files.length);
  const todo: number[] = [];
  files.forEach((sf, i) => {
    const data = cache?.peek(sf);
    if (data === undefined) todo.push(i);
    else if (data !== null) peeked[i] = { sf, summary: fromData(sf, data, tags), models: data.models };
  });
  await mapLimit(todo, ctx.options.concurrency, async (i) => {
    const sf = files[i] as StatFile;
    const price = await run.price();
    let data: SummaryData | null;
    try {
      const p = await peekFile(run.codec, sf.file, sf.size, price);
      if (p.fold.events === 0) data = null; // empty, or not this agent's format: nothing to list
      else {
        const models = [...p.fold.models.keys()];
        if (p.tail?.model !== undefined) models.push(p.tail.model);
        if (p.fold.model !== undefined) models.push(p.fold.model);
        data = summaryData(sf, p.fold, p.exact, models, p.tail, p.head);
      }
    } catch (err) {
      // gone since the listing: left out, as a scan leaves it; unreadable now: left out, counted, not cached;
      // any other error (a bug, the cache's) is not the file's, and is not hidden as an unreadable file
      if (isGoneError(err)) return;
      if (!isUnreadableError(err)) throw err;
      run.tally.failed(run.codec.id, sf.file.root);
      return;
    }
    cache?.put(sf, 'peek', data);
    if (data !== null) peeked[i] = { sf, summary: fromData(sf, data, tags), models: data.models };
  });

  const byId = new Map<string, Candidate>();
  for (const c of peeked) {
    if (c === undefined) continue;
    const s = c.summary;
    const t = s.createdAt.getTime();
    if (o.since !== undefined && t < o.since) continue;
    if (o.until !== undefined && t > o.until) continue;
    if (o.cwd !== undefined && !cwdMatches(s.cwd, o.cwd)) continue;
    if (o.tags !== undefined && !s.tags.some((x) => o.tags?.includes(x))) continue;
    // The same session under two roots (e.g. ~/.claude and ~/.config/claude): keep the newer copy.
    const prev = byId.get(s.unifiedId);
    if (prev === undefined || prev.summary.updatedAt < s.updatedAt) byId.set(s.unifiedId, c);
  }
  let candidates = [...byId.values()];

  // A codec that says a session's usage is unknown only where its whole read ends (`usageKnownAtEnd`), which
  // a peek's windows do not reach: its sessions are folded whole, so that a usage it could not read is never
  // listed as known (the cost report's note of such sessions lists them too).
  if (o.sort === 'turns' || run.codec.capabilities.usageKnownAtEnd === true) candidates = await refoldWhole(run, candidates);
  else if (o.sort === 'cost' || o.model !== undefined) candidates = await mergeUsage(run, candidates, o.since);
  if (o.model !== undefined) candidates = candidates.filter((c) => modelMatches(c.models, o.model as string));

  let out = candidates.map((c) => c.summary).sort(compareSummaries(o.sort, o.direction)).slice(0, o.limit);
  if (o.exactBytes > 0 && out.some((s) => !s.exact)) {
    const byUnified = new Map(candidates.map((c) => [c.summary.unifiedId, c]));
    let left = o.exactBytes;
    const todoWhole: Candidate[] = [];
    for (const s of out) {
      if (s.exact || s.sizeBytes > left) continue;
      left -= s.sizeBytes;
      todoWhole.push(byUnified.get(s.unifiedId) as Candidate);
    }
    const folded = new Map((await refoldWhole(run, todoWhole)).map((c) => [c.summary.unifiedId, c.summary]));
    out = out.map((s) => folded.get(s.unifiedId) ?? s).sort(compareSummaries(o.sort, o.direction));
  }
  return out;
}

/**
 * Whether a later read of a listed file failed for the file's sake (gone since, or unreadable now): it then
 * keeps its lazy summary. Any other error is not the file's, and is thrown.
 */
function fileFailed(err: unknown): boolean {
  return isGoneError(err) || isUnreadableError(err);
}

function wholeReadsInFlight(run: Run): number {
  return Math.min(run.ctx.options.concurrency, WHOLE_READS_IN_FLIGHT);
}

function union(a: readonly string[], b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * Exact cost and every model of the candidates that are not exact yet, merged into their lazy summaries:
 * from the cache, else a usage-only read (`kinds: ['usage']`, the codecs' byte-marker path) — through the
 * scan engine (usage-scan.ts: its event cache, its worker pool) when SCAN_MIN_FILES files or more need one.
 * A file that cannot be read keeps its lazy summary.
 */
async function mergeUsage(run: Run, cands: Candidate[], since: number | undefined): Promise<Candidate[]> {
  const lazy = cands.filter((c) => !c.summary.exact);
  const usage = run.cache?.level('usage', lazy.map((c) => c.sf)) ?? new Map<string, UsageData>();
  const missing = lazy.filter((c) => !usage.has(c.sf.file.path));
  if (missing.length >= SCAN_MIN_FILES) {
    const paths = new Set(missing.map((c) => c.sf.file.path));
    const scanned = await usageByFile(run.ctx, run.codec, paths, await run.price(), since === undefined ? undefined : new Date(since));
    for (const c of missing) {
      const u = scanned.get(c.sf.file.path);
      // No records: the file has no usage (or the scan could not read it): the lazy summary stands.
      const data: UsageData = u === undefined ? { models: [] } : { cost: u.cost, ...(u.copiedCost !== undefined && { copiedCost: u.copiedCost }), ...(topModel(u.models) !== undefined && { model: topModel(u.models) }), models: [...u.models.keys()] };
      usage.set(c.sf.file.path, data);
      run.cache?.put(c.sf, 'usage', data);
    }
  } else if (missing.length > 0) {
    const price = await run.price();
    await mapLimit(missing, wholeReadsInFlight(run), async (c) => {
      let data: UsageData;
      try {
        const fold = await foldWholeFile(c.sf.codec, c.sf.file, price, ['usage']);
        data = { ...(fold.cost !== undefined && { cost: fold.cost }), ...(fold.copiedCost !== undefined && { copiedCost: fold.copiedCost }), ...(fold.model !== undefined && { model: fold.model }), models: [...fold.models.keys()] };
      } catch (err) {
        if (fileFailed(err)) return;
        throw err;
      }
      usage.set(c.sf.file.path, data);
      run.cache?.put(c.sf, 'usage', data);
    });
  }
  return cands.map((c) => {
    const u = c.summary.exact ? undefined : usage.get(c.sf.file.path);
    return u === undefined ? c : { sf: c.sf, summary: withUsage(c.summary, u), models: union(c.models, u.models) };
  });
}

/** The candidates that are not exact yet, folded whole (from the cache, else a full read). A file that fails keeps its lazy summary. */
async function refoldWhole(run: Run, cands: Candidate[]): Promise<Candidate[]> {
  const cached = run.cache?.level('whole', cands.filter((c) => !c.summary.exact).map((c) => c.sf)) ?? new Map<string, SummaryData>();
  return mapLimit(cands, wholeReadsInFlight(run), async (c) => {
    if (c.summary.exact) return c;
    let data = cached.get(c.sf.file.path);
    if (data === undefined) {
      const price = await run.price();
      try {
        const fold = await foldWholeFile(c.sf.codec, c.sf.file, price);
        data = summaryData(c.sf, fold, true, union(c.models, fold.models.keys()));
      } catch (err) {
        if (fileFailed(err)) return c;
        throw err;
      }
      run.cache?.put(c.sf, 'whole', data);
    }
    return { sf: c.sf, summary: fromData(c.sf, data, run.tags), models: data.models };
  });
}
