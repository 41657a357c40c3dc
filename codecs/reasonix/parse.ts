/**
 * The Reasonix engine: a pure, synchronous LineCore (no I/O) over one daily stats file's lines (README.md has
 * the format and its sources).
 *
 * - `session` once, at the first record: the day is the session (the records name no conversation).
 * - `usage` per usage row: the provider's report of one request (or `requests` of them), booked as
 *   DeepSeek bills it: cache misses (the prompt less its cache hits, when that is more) as uncached input,
 *   cache hits as cache reads, the completion as output with its reasoning inside.
 * - Nothing for a turn marker (`turn: true`), a request-only row (a failed call, no tokens) or a compaction
 *   row (`compaction`), whose own call's tokens are not counted again (README.md, "Not known").
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, jsonObjectLine } from '../../cursors/core.js';
import type { KindCounts } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { str, type JsonRecord } from '../../cursors/json-value.js';
import { MAX_RECORD_USD, saneCount } from '../../cursors/sane.js';
import { CODEC_ID, dayOf } from './paths.js';

export interface ReasonixState {
  file: string;
  /** The file's day (its name), which is the session id. */
  day: string;
  sessionEmitted: boolean;
  /** A usage-only read: only lines holding a token field matter. */
  usageOnly: boolean;
}

type Rec = JsonRecord;

/** What a usage row holds and a turn marker does not: a token field's name. */
const USAGE_MARKERS: readonly Buffer[] = [Buffer.from('"prompt"'), Buffer.from('"completion"'), Buffer.from('"cache_hit"'), Buffer.from('"cache_miss"')];

/** A session id from a stats file's path: its day, else the name without `.jsonl` (stdin: `-`). */
export function reasonixSessionIdOf(file: string): string {
  const name = file.split(/[\\/]/).pop() ?? file;
  return dayOf(name) ?? name.replace(/\.jsonl$/, '');
}

/** Go's `time.Time` JSON (RFC 3339, nanoseconds, a zone offset) as ISO-8601 in UTC, or undefined. */
export function isoOf(ts: unknown): string | undefined {
  if (typeof ts !== 'string') return undefined;
  // JavaScript dates hold milliseconds: drop the digits past them before parsing
  const ms = Date.parse(ts.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `provider/model` (Reasonix's canonical model ref) as its two parts; a ref without a slash is a model alone. */
export function splitModelRef(ref: string | undefined): { model: string | undefined; provider: string | undefined } {
  if (ref === undefined) return { model: undefined, provider: undefined };
  const i = ref.indexOf('/');
  return i <= 0 || i === ref.length - 1 ? { model: ref, provider: undefined } : { model: ref.slice(i + 1), provider: ref.slice(0, i) };
}

/** The USD valuation Reasonix recorded for the row (`valuation_usd`, a decimal string), when it is a sane amount. */
function recordedUsd(r: Rec): number | undefined {
  const v = str(r.valuation_usd);
  if (v === undefined || r.cost_complete === false) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 && n <= MAX_RECORD_USD ? n : undefined;
}

function openSession(s: ReasonixState, r: Rec, offset: number, emit: Emit): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  emit(sessionEventOf(CODEC_ID, s.day, offset, { startedAt: isoOf(r.ts), title: `Reasonix usage on ${s.day}` }));
}

/** A usage row as a usage event (README.md, "Tokens"); nothing for a row without tokens. */
function usageRow(s: ReasonixState, r: Rec, offset: number, emit: Emit): void {
  const prompt = saneCount(r.prompt, 'prompt');
  const completion = saneCount(r.completion, 'completion');
  const reasoning = saneCount(r.reasoning, 'reasoning');
  const hit = saneCount(r.cache_hit, 'cache_hit');
  const miss = saneCount(r.cache_miss, 'cache_miss');
  if (prompt + completion + hit + miss === 0) return;
  const requests = saneCount(r.requests, 'requests');
  const { model, provider } = splitModelRef(str(r.model));
  emit(
    usageEventOf(CODEC_ID, s.day, offset, {
      model,
      provider,
      timestamp: isoOf(r.ts),
      // DeepSeek's prompt is its cache hits plus misses; the larger reading never counts a hit twice
      inputTokens: Math.max(miss, prompt - hit),
      outputTokens: completion,
      reasoningTokens: Math.min(reasoning, completion),
      cacheReadTokens: hit,
      costUsd: recordedUsd(r),
      singleRequest: requests <= 1,
      // the file is append-only: a row's offset in its day's file is its identity, the time tells two roots apart
      dedupKey: `${CODEC_ID}:${s.day}:${offset}:${String(r.ts)}`,
    }),
  );
}

/** One line's record: the session at the first, then its usage unless it is a marker or telemetry row. */
const record = jsonObjectLine<ReasonixState>(CODEC_ID, (s, r, start, emit) => {
  openSession(s, r, start, emit);
  if (r.turn === true || (r.compaction !== undefined && r.compaction !== null)) return;
  usageRow(s, r, start, emit);
});

/** The Reasonix line core. */
export const reasonixCore: LineCore<ReasonixState> = {
  init(ctx: CoreContext): ReasonixState {
    const o = ctx.options;
    return { file: ctx.file, day: reasonixSessionIdOf(ctx.file), sessionEmitted: false, usageOnly: o.kinds.size === 1 && o.kinds.has('usage') };
  },
  restore(snapshot, ctx) {
    const s = this.init(ctx);
    const o = snapshot !== null && typeof snapshot === 'object' ? (snapshot as Rec) : {};
    if (typeof o.day === 'string') s.day = o.day;
    s.sessionEmitted = o.sessionEmitted === true;
    return s;
  },
  snapshot(s) {
    return { day: s.day, sessionEmitted: s.sessionEmitted };
  },
  markers: (s) => (s.usageOnly ? USAGE_MARKERS : undefined),
  line: (s, line, start, emit) => (s.usageOnly && !hasAnyMarker(line, USAGE_MARKERS) ? undefined : record(s, line, start, emit)),
  end(): KindCounts {
    return {};
  },
};
