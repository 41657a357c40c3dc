/**
 * The byte pre-filter of usage-only reads. Most of a rollout's bytes are `response_item` lines (reasoning,
 * tool output), which never carry usage. Codex's serde writes the record type near the start of the line
 * (`{"timestamp":"…","ordinal":n,"type":"response_item","payload":{"type":"…"`), so reading the type from the
 * head decides most lines without scanning them; any other shape falls back to the marker scan over the
 * whole line (spacing variants, reordered keys), which never drops a line that mentions a usage record type.
 *
 * The head read is exact for valid JSON: `"type":"` preceded only by `{` at byte 0 and no other `{` or `[`
 * is a key at depth 1 (a `"` cannot occur unescaped inside a string, so the match cannot start inside one).
 * Measured on a generated 24 MB corpus: marker scans alone ran at ~345 MB/s, the bare line reader ~490 MB/s.
 */
import { hasAnyMarker } from '../../cursors/core.js';
import { compileProjection, type FieldProjection } from '../../cursors/scan-fields.js';
import { EVENT, RECORD } from './schema.js';

const HEAD_BYTES = 256;
const TYPE_KEY = Buffer.from('"type":"');
const PAYLOAD_TYPE = Buffer.from('","payload":{"type":"');
/** The record types that may change usage, and the one whose payload type decides (`event_msg`). */
const USAGE_RECORDS: readonly Buffer[] = [RECORD.sessionMeta, RECORD.turnContext, RECORD.tokenUsageRecord].map((t) => Buffer.from(t));
const EVENT_MSG = Buffer.from(RECORD.eventMsg);
const TOKEN_COUNT = Buffer.from(EVENT.tokenCount);
const QUOTE = 0x22;

/** Lines without any of these bytes cannot change usage. */
export const CODEX_USAGE_MARKERS: readonly Buffer[] = ['token_', 'turn_context', 'session_meta'].map((m) => Buffer.from(m));

/**
 * True when the line may change usage (session_meta, turn_context, token_usage_record, event_msg
 * token_count), false when it cannot; lines whose head has another shape are decided by the markers.
 */
export function mayHoldUsage(line: Buffer): boolean {
  return mayHoldUsageAt(line, 0, line.length);
}

/**
 * `mayHoldUsage` of the line `b[from, to)`, read where it lies: a walked line (parse.ts `lineWalked`) is
 * decided in its read buffer with no Buffer view, no string and no search call per line.
 */
export function mayHoldUsageAt(b: Buffer, from: number, to: number): boolean {
  if (from >= to || b[from] !== 0x7b) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  const head = Math.min(to, from + HEAD_BYTES);
  // The first `"type":"` of the head, with no `{` or `[` before it but the opening one.
  let i = from + 1;
  for (; i < head; i++) {
    if (bytesAt(b, i, head, TYPE_KEY)) break;
    const c = b[i];
    if (c === 0x7b || c === 0x5b) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  }
  if (i === head) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  const start = i + TYPE_KEY.length;
  const end = quoteAt(b, start, head);
  if (end < 0) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  for (const t of USAGE_RECORDS) if (spells(b, start, end, t)) return true;
  if (!spells(b, start, end, EVENT_MSG)) return false;
  if (!bytesAt(b, end, head, PAYLOAD_TYPE)) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  const pStart = end + PAYLOAD_TYPE.length;
  const pEnd = quoteAt(b, pStart, head);
  if (pEnd < 0) return hasAnyMarker(b.subarray(from, to), CODEX_USAGE_MARKERS);
  return spells(b, pStart, pEnd, TOKEN_COUNT);
}

/** Whether `b[at, limit)` starts with `word`. */
function bytesAt(b: Buffer, at: number, limit: number, word: Buffer): boolean {
  if (at + word.length > limit) return false;
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

/** Whether `b[from, to)` is exactly `word`. */
function spells(b: Buffer, from: number, to: number, word: Buffer): boolean {
  return to - from === word.length && bytesAt(b, from, to, word);
}

/** The first `"` in `b[from, limit)`, or -1. */
function quoteAt(b: Buffer, from: number, limit: number): number {
  for (let k = from; k < limit; k++) if (b[k] === QUOTE) return k;
  return -1;
}

/** Every field of a raw TokenUsage object that `readTok` (tokens.ts) reads. */
export const TOKEN_USAGE = {
  input_tokens: true,
  output_tokens: true,
  total_tokens: true,
  cached_input_tokens: true,
  cache_read_input_tokens: true,
  cache_write_input_tokens: true,
  reasoning_output_tokens: true,
} as const satisfies FieldProjection;

/**
 * Every field that `line()` (parse.ts) reads from a line of a usage-only read once the file's first line has
 * been taken: the record's type, time and ordinal, and the payload fields of session_meta (its id),
 * turn_context (model, provider, turn id), token_usage_record and token_count. Such a line goes through the exact
 * field scanner (cursors/scan-fields.ts) instead of JSON.parse, so a field read there and missing here would
 * silently read as absent: test/codex-fast-scan.test.ts compares both paths; keep the two in step. The first
 * line (the owner's header) has its own projection, CODEX_HEADER_PROJECTION.
 */
export const CODEX_USAGE_PROJECTION = {
  type: true,
  timestamp: true,
  ordinal: true,
  payload: {
    type: true,
    id: true,
    session_id: true,
    model: true,
    model_provider: true,
    usage: TOKEN_USAGE,
    response_id: true,
    thread_id: true,
    turn_id: true,
    info: { total_token_usage: TOKEN_USAGE, last_token_usage: TOKEN_USAGE },
  },
} as const satisfies FieldProjection;

/** CODEX_USAGE_PROJECTION compiled for `scanFields`. */
export const CODEX_USAGE_FIELDS = compileProjection(CODEX_USAGE_PROJECTION);

/**
 * Every field that `onRecord` and `takeOwner` (parse.ts) read from the first line of a usage-only read when
 * it is a `session_meta` record: the owner's header, mostly the model's instructions (about 13 KB a rollout in
 * the bench's corpus), which a whole parse decoded and dropped for every file. `source` and `history_base` are
 * taken whole (their shapes vary). A first line of any other kind is parsed whole (parse.ts `headerFields`);
 * keep this in step with `takeOwner` (test/codex-header-projection.test.ts holds it to what `takeOwner` reads),
 * as CODEX_USAGE_PROJECTION with `line()`.
 */
export const CODEX_HEADER_PROJECTION = {
  type: true,
  timestamp: true,
  payload: {
    id: true,
    session_id: true,
    forked_from_id: true,
    parent_thread_id: true,
    source: true,
    history_base: true,
    timestamp: true,
    subagent_history_start_ordinal: true,
    model_provider: true,
    cwd: true,
    cli_version: true,
    git: { branch: true },
  },
} as const satisfies FieldProjection;

/** CODEX_HEADER_PROJECTION compiled for `scanFields`. */
export const CODEX_HEADER_FIELDS = compileProjection(CODEX_HEADER_PROJECTION);
