/**
 * `list(agent, options)`: summaries of one agent's sessions, lazily.
 *
 * 1. Discover the codec's files and stat them (no parse). With `since` and a codec whose events precede the
 *    file's mtime, files older than `since` are dropped here.
 * 2. Peek each remaining file (peek.ts: head and tail windows through the codec's lineCore; small files
 *    whole) for id, title, cwd, dates, model. Filter on since / until / cwd / tags.
 * 3. Only when the request needs more, read more, and only for the candidates left:
 *    - sort by cost or a model filter: usage only (`kinds: ['usage']`, the codecs' byte-marker path) gives
 *      exact cost and every model used; for SCAN_MIN_FILES candidates or more it comes from the scan engine
 *      (event cache when warm, worker pool when cold: usage-scan.ts);
 *    - sort by turns: a full fold (exact counts);
 *    - `full: true`: a full fold of the sessions returned; `exactBytes: n`: the same, in output order, for
 *      as many returned sessions as fit in n bytes of files (the CLI's default budget).
 * 4. Sort (date = updatedAt), direction, limit.
 * A file that cannot be read, or yields no event of the codec's format (empty, foreign, all lines
 * malformed), is left out: list never fails on one bad file; `get()` reports it.
 */
import { resolve as resolvePath, sep } from 'node:path';
import type { Codec } from '../codec.js';
import { invalidOption } from '../errors.js';
import { getCodec } from '../registry.js';
import type { TagIndex } from '../tags.js';
import { fileSessionId, mapLimit, type ManagerContext, type StatFile } from './context.js';
import type { PriceFn } from './cost.js';
import { topModel, type FoldResult } from './fold.js';
import { resolveUnifiedId } from './ids.js';
import { foldWholeFile, peekFile, type PeekResult } from './peek.js';
import { SCAN_MIN_FILES, usageByFile } from './usage-scan.js';
import type { SessionListOptions, SessionSummary } from './types.js';

export const DEFAULT_LIST_LIMIT = 100;

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

/** A summary from a fold (whole file when `exact`, else head + tail). */
export function toSummary(sf: StatFile, fold: FoldResult, exact: boolean, tags: TagIndex, tail?: PeekResult['tail']): SessionSummary {
  const agent = sf.codec.id;
  const sessionId = sf.file.sessionId ?? fold.sessionId ?? fileSessionId(sf.file);
  const last = Math.max(fold.lastMs ?? -Infinity, tail?.lastMs ?? -Infinity);
  const title = tail?.title !== undefined ? tail.title : fold.title;
  const model = exact ? fold.model : (tail?.model ?? fold.model);
  const s: SessionSummary = {
    agent,
    sessionId,
    unifiedId: resolveUnifiedId(agent, sessionId),
    title,
    createdAt: new Date(fold.firstMs ?? sf.mtimeMs),
    updatedAt: new Date(Number.isFinite(last) ? last : sf.mtimeMs),
    turnCount: fold.turnCount,
    messageCount: fold.messageCount,
    tags: tags.tagsFor(agent, sessionId, fold.cwd),
    exact,
    file: sf.file.path,
    sizeBytes: sf.size,
  };
  if (model !== undefined) s.model = model;
  if (exact && fold.cost !== undefined) s.cost = fold.cost;
  if (fold.cwd !== undefined) s.cwd = fold.cwd;
  if (fold.forkedFrom !== undefined) s.forkedFrom = fold.forkedFrom;
  if (fold.subagent === true || sf.file.subagent === true) s.subagent = true;
  return s;
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
  models: Set<string>;
}

/** `list(agent, options)`: see the file header. */
export async function listSessions(ctx: ManagerContext, agent: string, options?: SessionListOptions): Promise<SessionSummary[]> {
  const codec = getCodec(agent);
  const o = normalizeListOptions(options);
  let files = await ctx.discover(codec, o.subagents);
  if (o.since !== undefined && codec.capabilities.eventsPrecedeMtime === true) files = files.filter((f) => f.mtimeMs >= (o.since as number));
  if (files.length === 0) return [];
  const price = await ctx.price();
  const tags = ctx.tags();

  const peeked = await mapLimit(files, ctx.options.concurrency, async (sf): Promise<Candidate | undefined> => {
    try {
      const p = await peekFile(codec, sf.file, sf.size, price);
      if (p.fold.events === 0) return undefined; // empty, or not this agent's format: nothing to list
      const models = new Set(p.fold.models.keys());
      if (p.tail?.model !== undefined) models.add(p.tail.model);
      if (p.fold.model !== undefined) models.add(p.fold.model);
      return { sf, summary: toSummary(sf, p.fold, p.exact, tags, p.tail), models };
    } catch {
      return undefined;
    }
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

  const needUsage = o.sort === 'cost' || o.model !== undefined;
  if (o.sort === 'turns') candidates = await refold(ctx, candidates, price, tags, undefined);
  else if (needUsage) {
    const lazy = candidates.filter((c) => !c.summary.exact);
    if (lazy.length >= SCAN_MIN_FILES) candidates = await mergeScannedUsage(ctx, codec, candidates, price, o.since);
    else candidates = await refold(ctx, candidates, price, tags, ['usage']);
  }
  if (o.model !== undefined) candidates = candidates.filter((c) => modelMatches(c.models, o.model as string));

  let out = candidates.map((c) => c.summary).sort(compareSummaries(o.sort, o.direction)).slice(0, o.limit);
  if (o.exactBytes > 0 && out.some((s) => !s.exact)) {
    const byUnified = new Map(candidates.map((c) => [c.summary.unifiedId, c]));
    let left = o.exactBytes;
    const todo: Candidate[] = [];
    for (const s of out) {
      if (s.exact || s.sizeBytes > left) continue;
      left -= s.sizeBytes;
      todo.push(byUnified.get(s.unifiedId) as Candidate);
    }
    const folded = new Map((await refold(ctx, todo, price, tags, undefined)).map((c) => [c.summary.unifiedId, c.summary]));
    out = out.map((s) => folded.get(s.unifiedId) ?? s).sort(compareSummaries(o.sort, o.direction));
  }
  return out;
}

/** Cost and models of the not-yet-exact candidates from the scan engine (usage-scan.ts). */
async function mergeScannedUsage(ctx: ManagerContext, codec: Codec, cands: Candidate[], price: PriceFn, since: number | undefined): Promise<Candidate[]> {
  const paths = new Set(cands.filter((c) => !c.summary.exact).map((c) => c.sf.file.path));
  const usage = await usageByFile(ctx, codec, paths, price, since === undefined ? undefined : new Date(since));
  return cands.map((c) => {
    const u = usage.get(c.sf.file.path);
    if (c.summary.exact || u === undefined) return c;
    const model = topModel(u.models);
    return { sf: c.sf, summary: { ...c.summary, cost: u.cost, ...(model !== undefined && { model }) }, models: new Set([...c.models, ...u.models.keys()]) };
  });
}

/**
 * Re-read the candidates whose summary is not exact yet: all kinds (an exact summary) or usage only (exact
 * cost and every model, merged into the peeked summary). A file that fails keeps its peeked summary.
 */
async function refold(ctx: ManagerContext, cands: Candidate[], price: PriceFn, tags: TagIndex, kinds: ['usage'] | undefined): Promise<Candidate[]> {
  return mapLimit(cands, ctx.options.concurrency, async (c) => {
    if (c.summary.exact) return c;
    try {
      const fold = await foldWholeFile(c.sf.codec, c.sf.file, price, kinds);
      const models = new Set([...c.models, ...fold.models.keys()]);
      if (kinds === undefined) return { sf: c.sf, summary: toSummary(c.sf, fold, true, tags), models };
      const summary = { ...c.summary };
      if (fold.cost !== undefined) summary.cost = fold.cost;
      if (fold.model !== undefined) summary.model = fold.model;
      return { sf: c.sf, summary, models };
    } catch {
      return c;
    }
  });
}
