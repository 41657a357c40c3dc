/**
 * The selection shared by the totals fold and the export: options normalized once (csv-parse style) into a
 * distinct type, then one predicate per record. Filters apply before cross-file dedup, so a response copied
 * into a resumed or forked session counts when any of its copies is selected.
 */
import { digits } from '../../cursors/date-string.js';
import { invalidOption } from '../../cursors/protocol/errors.js';
import { findCodec } from '../registry.js';
import { KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type UsageRecord } from '../scan/types.js';
import { loadTags, type TagIndex } from '../tags.js';
import { ZoneCalendar, daysFromCivil, localTimeZone } from './calendar.js';
import { HASH, hashInto } from '../key-table.js';
import { createPricer, type Pricer } from './pricing.js';
import { checkCostMode, COST_GROUP_BYS, type CostAggregationOptions, type CostGroupBy, type CostMode } from './types.js';

/** Options of the totals fold and the export (the parts of CostAggregationOptions that do not scan). */
export interface CostFoldOptions
  extends Pick<CostAggregationOptions, 'agent' | 'agents' | 'since' | 'until' | 'model' | 'tags' | 'cwd' | 'groupBy' | 'breakdown' | 'timeZone' | 'mode' | 'env' | 'pricesFile'> {
  /** A pricer to reuse (its mode is overridden by `mode` when given). */
  pricer?: Pricer;
  /** Tags to use instead of loading `$SESSIONFOLD_TAGS` / the XDG tags file. */
  tagIndex?: TagIndex;
}

/** CostFoldOptions with every default filled (from `normalizeCostOptions`). */
export interface NormalizedCostOptions {
  /** Codec ids (aliases resolved); undefined: every agent. */
  agents: ReadonlySet<string> | undefined;
  sinceMs: number;
  untilMs: number;
  /** Lowercased substring of the recorded model id. */
  model: string | undefined;
  tags: ReadonlySet<string> | undefined;
  /** Without a trailing slash; selects this directory and everything under it. */
  cwd: string | undefined;
  groupBy: CostGroupBy | undefined;
  /** Per-model rows inside each group (never with `groupBy` model or without grouping). */
  breakdown: boolean;
  calendar: ZoneCalendar;
  mode: CostMode;
  pricer: Pricer;
  tagIndex: TagIndex | undefined;
}

function checkDate(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!(v instanceof Date) || Number.isNaN(v.getTime())) throw invalidOption(name, 'a valid Date', v);
  return v.getTime();
}

function checkStrings(v: unknown, name: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidOption(name, 'an array of strings', v);
  return v as string[];
}

/** Fill every default once; throw INVALID_OPTION for bad values. */
export function normalizeCostOptions(o: CostFoldOptions = {}): NormalizedCostOptions {
  const agentList = [...(o.agent !== undefined ? [o.agent] : []), ...(checkStrings(o.agents, 'agents') ?? [])];
  const agents = agentList.length > 0 ? new Set(agentList.map((a) => findCodec(a)?.id ?? a.toLowerCase())) : undefined;
  if (o.groupBy !== undefined && !COST_GROUP_BYS.includes(o.groupBy)) throw invalidOption('groupBy', COST_GROUP_BYS.join('|'), o.groupBy);
  const mode = checkCostMode(o.mode ?? o.pricer?.mode ?? 'auto');
  const tags = checkStrings(o.tags, 'tags');
  if (o.model !== undefined && typeof o.model !== 'string') throw invalidOption('model', 'a string', o.model);
  if (o.cwd !== undefined && typeof o.cwd !== 'string') throw invalidOption('cwd', 'a string', o.cwd);
  const needTags = (tags !== undefined && tags.length > 0) || o.groupBy === 'tag';
  const env = o.env ?? process.env;
  return {
    agents,
    sinceMs: checkDate(o.since, 'since') ?? -Infinity,
    untilMs: checkDate(o.until, 'until') ?? Infinity,
    model: o.model === undefined || o.model === '' ? undefined : o.model.toLowerCase(),
    tags: tags !== undefined && tags.length > 0 ? new Set(tags) : undefined,
    cwd: o.cwd === undefined || o.cwd === '' ? undefined : o.cwd.length > 1 ? o.cwd.replace(/\/+$/, '') : o.cwd,
    groupBy: o.groupBy,
    breakdown: o.breakdown === true && o.groupBy !== undefined && o.groupBy !== 'model',
    calendar: new ZoneCalendar(o.timeZone ?? localTimeZone()),
    mode,
    pricer: o.pricer ?? createPricer({ mode, env, ...(o.pricesFile !== undefined && { pricesFile: o.pricesFile }) }),
    tagIndex: needTags ? (o.tagIndex ?? loadTags(env)) : undefined,
  };
}

/**
 * Milliseconds of an event timestamp; NaN when it is missing or the 1970 sentinel of a line without one.
 * The codecs' `YYYY-MM-DDTHH:MM:SS[.fff…]Z` is read digit by digit (several times faster than Date.parse,
 * which runs once per event); anything else goes to Date.parse.
 */
export function eventTime(ts: string): number {
  const len = ts.length;
  let ms = NaN;
  if (len >= 20 && ts.charCodeAt(len - 1) === 90 && ts.charCodeAt(4) === 45 && ts.charCodeAt(7) === 45 && ts.charCodeAt(10) === 84 && ts.charCodeAt(13) === 58 && ts.charCodeAt(16) === 58) {
    const y = digits(ts, 0, 4);
    const mo = digits(ts, 5, 7);
    const d = digits(ts, 8, 10);
    const h = digits(ts, 11, 13);
    const mi = digits(ts, 14, 16);
    const sec = digits(ts, 17, 19);
    let frac = 0;
    let ok = y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 24 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59;
    if (ok && len > 20) {
      if (ts.charCodeAt(19) !== 46 || len < 22) ok = false;
      else {
        const f = digits(ts, 20, Math.min(len - 1, 23));
        if (f < 0 || digits(ts, 20, len - 1) < 0) ok = false;
        else frac = f * (len - 1 - 20 >= 3 ? 1 : len - 1 - 20 === 2 ? 10 : 100);
      }
    }
    // Date.UTC's arithmetic without the call into the runtime (it reads years 0–99 as 1900–1999: left to it).
    if (ok) ms = y >= 100 ? daysFromCivil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + frac : Date.UTC(y, mo - 1, d, h, mi, sec, frac);
  }
  if (Number.isNaN(ms)) ms = Date.parse(ts);
  return ms > 0 ? ms : NaN;
}

/** `eventTime` of a record's timestamp, or the time its producer computed from that timestamp (FoldHints). */
export function recordTime(r: UsageRecord): number {
  const t = r[TIME_MS];
  return t !== undefined && t === t && r[TIME_OF] === r.timestamp ? t : eventTime(r.timestamp);
}

/** `hashInto` of a record's dedupKey into HASH, or the hash its producer computed from that key (FoldHints). */
export function hashRecordKey(r: UsageRecord): void {
  const hi = r[KEY_HI];
  const lo = r[KEY_LO];
  if (hi !== undefined && lo !== undefined && hi === hi && r[KEY_OF] === r.dedupKey) {
    HASH[0] = hi;
    HASH[1] = lo;
  } else hashInto(r.dedupKey);
}

/** The record predicate plus the per-session tag lookup (memoized per session) the fold also uses. */
export interface RecordSelector {
  /** True when the record is selected; `ms` is its `eventTime`. */
  accepts(r: UsageRecord, ms: number): boolean;
  /** Tags of the record's session (empty without a tag index). */
  tagsOf(r: UsageRecord): readonly string[];
  /** Whether `accepts` needs `ms` (a since/until filter is set). */
  readonly needsTime: boolean;
}

/** The selection predicate of normalized options. */
export function createRecordSelector(n: NormalizedCostOptions): RecordSelector {
  const tagMemo = new Map<string, readonly string[]>();
  const tagsOf = (r: UsageRecord): readonly string[] => {
    if (!n.tagIndex) return [];
    const k = `${r.agent}\u0000${r.sessionId}\u0000${r.cwd ?? ''}`;
    let t = tagMemo.get(k);
    if (t === undefined) {
      t = n.tagIndex.tagsFor(r.agent, r.sessionId, r.cwd);
      tagMemo.set(k, t);
    }
    return t;
  };
  const modelMemo = new Map<string, boolean>();
  const modelMatches = (model: string): boolean => {
    let m = modelMemo.get(model);
    if (m === undefined) {
      m = model.toLowerCase().includes(n.model as string);
      modelMemo.set(model, m);
    }
    return m;
  };
  const needsTime = n.sinceMs !== -Infinity || n.untilMs !== Infinity;
  const cwdPrefix = n.cwd === undefined ? undefined : n.cwd === '/' ? '/' : `${n.cwd}/`;
  return {
    needsTime,
    tagsOf,
    accepts(r, ms) {
      if (n.agents !== undefined && !n.agents.has(r.agent)) return false;
      if (needsTime && !(ms >= n.sinceMs && ms <= n.untilMs)) return false;
      if (n.model !== undefined && !modelMatches(r.model)) return false;
      if (cwdPrefix !== undefined && (r.cwd === undefined || (r.cwd !== n.cwd && !r.cwd.startsWith(cwdPrefix)))) return false;
      if (n.tags !== undefined) {
        let hit = false;
        for (const t of tagsOf(r)) if (n.tags.has(t)) hit = true;
        if (!hit) return false;
      }
      return true;
    },
  };
}
