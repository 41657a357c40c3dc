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
const USAGE_RECORDS: ReadonlySet<string> = new Set([RECORD.sessionMeta, RECORD.turnContext, RECORD.tokenUsageRecord]);

/** Lines without any of these bytes cannot change usage. */
export const CODEX_USAGE_MARKERS: readonly Buffer[] = ['token_', 'turn_context', 'session_meta'].map((m) => Buffer.from(m));

/**
 * True when the line may change usage (session_meta, turn_context, token_usage_record, event_msg
 * token_count), false when it cannot; lines whose head has another shape are decided by the markers.
 */
export function mayHoldUsage(line: Buffer): boolean {
  if (line[0] !== 0x7b) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const head = line.subarray(0, Math.min(line.length, HEAD_BYTES));
  const i = head.indexOf(TYPE_KEY);
  if (i < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  for (let j = 1; j < i; j++) {
    const c = head[j];
    if (c === 0x7b || c === 0x5b) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  }
  const start = i + TYPE_KEY.length;
  const end = head.indexOf(0x22, start);
  if (end < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const type = head.toString('latin1', start, end);
  if (USAGE_RECORDS.has(type)) return true;
  if (type !== RECORD.eventMsg) return false;
  if (head.indexOf(PAYLOAD_TYPE, end) !== end) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const pStart = end + PAYLOAD_TYPE.length;
  const pEnd = head.indexOf(0x22, pStart);
  if (pEnd < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  return head.toString('latin1', pStart, pEnd) === EVENT.tokenCount;
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
 * turn_context (model, provider), token_usage_record and token_count. Such a line goes through the exact
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
