/**
 * `search(query)`: full text over message texts and titles, for one agent or every agent with storage.
 *
 * Walk: discover and stat every candidate file (dropping files older than `since` where the codec's events
 * precede mtime), newest mtime first. Per file: the raw-byte pre-filter (search-match.ts) for line and
 * whole-document JSON formats, then one read of all kinds folded twice at once: the session fold (summary:
 * counts, title, cost, dates) and the scorer (hits, snippet). Files are read a few at a time.
 *
 * An agent with its own full-text index (`Codec.nativeSearch`: Hermes's FTS5) is asked instead: only the
 * sessions it names are read, for their summaries, and its ranking (mapped into [0, 1]) is their relevance;
 * they merge with the other agents' results by the same sort.
 *
 * A file that cannot be read (a permission, an I/O error, bytes that do not decompress) is left out and
 * counted in `query.sources`, with the folders discovery could not list, as `list` counts them.
 *
 * Early stop: with `sort: 'date'`, once `limit` results are held, a file whose codec guarantees
 * `updatedAt <= mtime` (`eventsPrecedeMtime`) and whose mtime is older than the limit-th result cannot
 * rank higher, so it is never opened, nor is any older one. Relevance and cost need every match scored,
 * so they read every file that passes the pre-filter.
 */
import type { Codec, NativeSearchHit } from '../../cursors/protocol/codec.js';
import { invalidOption, isGoneError, isUnreadableError } from '../../cursors/protocol/errors.js';
import { splitRecordPath } from '../../cursors/record-path.js';
import { isZstdPath } from '../../cursors/zstd-name.js';
import { findCodec, listCodecs, loadCodec } from '../registry.js';
import { SourceTally } from '../scan/sources.js';
import type { ManagerContext, StatFile } from './context.js';
import type { PriceFn } from './cost.js';
import { outputText } from './fold-text.js';
import { SessionFold } from './fold.js';
import { checkDate, checkLimit, checkTags, compareSummaries, modelMatches, toSummary } from './list.js';
import { mayContainAll, parseTerms, SearchScorer, type Terms } from './search-match.js';
import type { SearchStats, SessionQuery, SessionSummary } from './types.js';

export const DEFAULT_SEARCH_LIMIT = 50;
const SEARCH_CONCURRENCY = 4;

interface NormalizedQuery {
  terms: Terms;
  agent: string | undefined;
  since: number | undefined;
  until: number | undefined;
  model: string | undefined;
  tags: string[] | undefined;
  limit: number;
  sort: 'relevance' | 'date' | 'cost';
  subagents: boolean;
}

function normalizeQuery(q: SessionQuery): NormalizedQuery {
  if (q === null || typeof q !== 'object') throw invalidOption('query', 'an object with text', q);
  const sort = q.sort ?? 'relevance';
  if (!['relevance', 'date', 'cost'].includes(sort)) throw invalidOption('sort', 'relevance|date|cost', q.sort);
  if (q.model !== undefined && (typeof q.model !== 'string' || q.model === '')) throw invalidOption('model', 'a non-empty string', q.model);
  return {
    terms: parseTerms(q.text),
    agent: q.agent,
    since: checkDate('since', q.since),
    until: checkDate('until', q.until),
    model: q.model?.toLowerCase(),
    tags: checkTags(q.tags),
    limit: checkLimit(q.limit, DEFAULT_SEARCH_LIMIT),
    sort,
    subagents: q.subagents === true,
  };
}

/** The order of search results for a sort: best match (then newest), newest, or dearest first. */
export const bySearchOrder = (sort: NormalizedQuery['sort']) => {
  if (sort !== 'relevance') return compareSummaries(sort, 'desc');
  const byDate = compareSummaries('date', 'desc');
  return (a: SessionSummary, b: SessionSummary) => (b.relevanceScore ?? 0) - (a.relevanceScore ?? 0) || byDate(a, b);
};

/** `search(query)`: see the file header. Never throws AGENT_NOT_FOUND: an unknown agent gives `[]`. */
export async function searchSessions(ctx: ManagerContext, query: SessionQuery): Promise<SessionSummary[]> {
  const q = normalizeQuery(query);
  let asked: readonly Codec[];
  let codecs: readonly Codec[];
  if (q.agent !== undefined) {
    const c = findCodec(q.agent);
    asked = c === undefined ? [] : [c];
    codecs = asked;
  } else {
    asked = listCodecs();
    const has = await Promise.all(asked.map((c) => ctx.hasStorage(c)));
    codecs = asked.filter((_, i) => has[i]);
  }
  const tally = new SourceTally();
  tally.begin();
  try {
    return await searchCodecs(ctx, q, query, codecs, tally);
  } finally {
    if (query.sources !== undefined) tally.report(asked.map((codec) => ({ codec, roots: [...new Set(ctx.rootsFor(codec))] })), ctx.options.env, query.sources);
  }
}

async function searchCodecs(ctx: ManagerContext, q: NormalizedQuery, query: SessionQuery, codecs: readonly Codec[], tally: SourceTally): Promise<SessionSummary[]> {
  const stats: SearchStats = { files: 0, prefiltered: 0, read: 0, skippedEarly: 0, stoppedEarly: false };
  const files: StatFile[] = [];
  const nativeHits = new Map<string, NativeSearchHit>();
  for (const c of codecs) {
    const found = await ctx.discover(c, q.subagents, tally);
    // The agent's own index, when it has one: only its hits are read (for their summaries).
    const hits = await nativeSearch(ctx, c, q);
    for (const f of found) {
      if (q.since !== undefined && c.capabilities.eventsPrecedeMtime === true && f.mtimeMs < q.since) continue;
      if (hits !== undefined) {
        const hit = hits.get(f.file.path);
        if (hit === undefined) continue;
        nativeHits.set(f.file.path, hit);
      }
      files.push(f);
    }
  }
  files.sort((a, b) => b.mtimeMs - a.mtimeMs);
  stats.files = files.length;
  if (files.length === 0) {
    query.onStats?.(stats);
    return [];
  }
  const price = await ctx.price();
  const tags = ctx.tags();
  const order = bySearchOrder(q.sort);
  const results: SessionSummary[] = [];
  const seen = new Set<string>();

  /** With date sort and `limit` results held: the updatedAt a file must beat to rank. */
  const threshold = (): number | undefined => {
    if (q.sort !== 'date' || results.length < q.limit) return undefined;
    return (results[q.limit - 1] as SessionSummary).updatedAt.getTime();
  };

  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const sf = files[next++] as StatFile;
      const t = threshold();
      if (t !== undefined && sf.codec.capabilities.eventsPrecedeMtime === true && sf.mtimeMs < t) {
        stats.skippedEarly++;
        stats.stoppedEarly = true;
        continue;
      }
      let r: SessionSummary | undefined;
      try {
        r = await searchFile(sf, q, price, stats, tags, nativeHits.get(sf.file.path));
      } catch (err) {
        // gone since it was listed: left out, as a scan leaves it; unreadable: left out, and counted
        if (isGoneError(err)) continue;
        if (!isUnreadableError(err)) throw err;
        tally.failed(sf.codec.id, sf.file.root);
        continue;
      }
      if (r === undefined || seen.has(r.unifiedId)) continue;
      seen.add(r.unifiedId);
      results.push(r);
      results.sort(order);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEARCH_CONCURRENCY, files.length) }, worker));
  query.onStats?.(stats);
  return results.slice(0, q.limit);
}

/**
 * The hits of the codec's own index by path (Codec.nativeSearch: Hermes's FTS5), or undefined when it has
 * none. Its ranking stands for the relevance; enough hits are asked for that the filters applied after the
 * read (dates, model, tags) still leave `limit` when they can.
 */
async function nativeSearch(ctx: ManagerContext, c: Codec, q: NormalizedQuery): Promise<Map<string, NativeSearchHit> | undefined> {
  const full = await loadCodec(c);
  const search = full.nativeSearch;
  if (search === undefined) return undefined;
  let hits: NativeSearchHit[] | undefined;
  try {
    hits = await search.call(full, ctx.rootsFor(c), { terms: q.terms.terms, limit: Math.max(q.limit * 4, 200) });
  } catch {
    return undefined; // an index that cannot be asked: read the sessions instead
  }
  return hits === undefined ? undefined : new Map(hits.map((h) => [h.file.path, h]));
}

/** The summary of a file that matches (`undefined` when it does not); throws when the file cannot be read. */
async function searchFile(
  sf: StatFile,
  q: NormalizedQuery,
  price: PriceFn,
  stats: SearchStats,
  tags: ReturnType<ManagerContext['tags']>,
  hit?: NativeSearchHit,
): Promise<SessionSummary | undefined> {
  const persistence = sf.codec.capabilities.persistence;
  // A record path (`<db>#<key>`: Kilo's CLI sessions under a codec that also reads files) has no bytes to
  // scan, and a compressed file's bytes hold no words.
  const plainFile = splitRecordPath(sf.file.path).key === undefined && !isZstdPath(sf.file.path);
  if (hit === undefined && plainFile && (persistence === 'jsonl' || persistence === 'json') && !(await mayContainAll(sf.file.path, q.terms.prefilterWords))) {
    stats.prefiltered++;
    return undefined;
  }
  stats.read++;
  const fold = new SessionFold({ content: false, price });
  const scorer = new SearchScorer(q.terms);
  // A tool message line that also yields its tool_result (sessionfold-jsonl) is one text, as in the fold.
  let toolMessageAt = -1;
  for await (const e of sf.codec.read(sf.file.path)) {
    fold.push(e);
    if (e.type === 'message') {
      scorer.text(e.text);
      toolMessageAt = e.role === 'tool' ? e.offset : -1;
    } else if (e.type === 'tool_result' && e.offset !== toolMessageAt) scorer.text(outputText(e.output));
  }
  const r = fold.finish();
  const match = hit === undefined ? scorer.result(r.title) : { score: hit.relevance, snippet: hit.snippet };
  if (match === undefined) return undefined;
  const s = toSummary(sf, r, true, tags);
  const created = s.createdAt.getTime();
  if (q.since !== undefined && created < q.since) return undefined;
  if (q.until !== undefined && created > q.until) return undefined;
  if (q.model !== undefined && !modelMatches([...r.models.keys(), ...(r.model !== undefined ? [r.model] : [])], q.model)) return undefined;
  if (q.tags !== undefined && !s.tags.some((x) => q.tags?.includes(x))) return undefined;
  s.relevanceScore = match.score;
  s.snippet = match.snippet;
  return s;
}
