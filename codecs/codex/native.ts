/**
 * The Codex codec's `scanUsage`: a full usage read of one rollout by the native engine (native/codex.c) on
 * one of its threads (native/pool.c), for the cost scan's cold reads. C walks the lines and applies parse.ts's usage rules;
 * this module decodes its result block and builds each event with `buildCodexUsage` (the token split is
 * tokens.ts `toUsageFields`), as the JavaScript core does, when the block's consumer asks (a UsageBlock).
 *
 * C leaves a file to `read()` (`false`) wherever only JavaScript can decide it: fork and subagent rollouts
 * (their inherited lines are found with Date.parse), non-canonical timestamps, escaped ids or models, odd
 * numbers, lines JSON.parse might read differently (see native/codex.c). test/native-engines.test.ts holds
 * both engines to the same events on every fixture and on generated edge cases.
 */
import type { UsageScanResult } from '../../cursors/protocol/codec.js';
import { resetUsageEvent, type UsageEvent } from '../../cursors/protocol/events.js';
import type { FieldProjection } from '../../cursors/scan-fields.js';
import { createUsageScanner, setFoldHints, valueAt, type Block } from '../../cursors/native-engine.js';
import { fileIdOf } from './parse.js';
import type { Tok } from './tokens.js';
import { buildCodexUsage, type CodexUsageValues } from './usage.js';
import { CODEX_USAGE_PROJECTION } from './prefilter.js';

/** A header's fields, in native/kernel.h's order (CX_ID …). */
const HEADER_KEYS = [
  'id',
  'session_id',
  'forked_from_id',
  'parent_thread_id',
  'source',
  'history_base',
  'timestamp',
  'subagent_history_start_ordinal',
  'model_provider',
  'cwd',
] as const;
const TOK_KEYS = ['input_tokens', 'output_tokens', 'total_tokens', 'cached_input_tokens', 'cache_read_input_tokens', 'cache_write_input_tokens', 'reasoning_output_tokens'] as const;

const HEADER: FieldProjection = Object.fromEntries(HEADER_KEYS.map((k) => [k, true]));

/** CODEX_USAGE_PROJECTION with the header's fields, top-level and in the payload (the same objects collected). */
const NATIVE_PROJECTION: FieldProjection = {
  ...CODEX_USAGE_PROJECTION,
  ...HEADER,
  payload: { ...CODEX_USAGE_PROJECTION.payload, ...HEADER },
};

const tok = (at: readonly string[]): string[][] => [[...at], ...TOK_KEYS.map((k) => [...at, k])];

/** The fields C reads, in native/kernel.h's CX_ order. */
const FIELD_PATHS: readonly (readonly string[])[] = [
  ['type'],
  ['timestamp'],
  ['ordinal'],
  ['payload'],
  ...HEADER_KEYS.map((k) => [k]),
  ...HEADER_KEYS.map((k) => ['payload', k]),
  ['payload', 'type'],
  ['payload', 'model'],
  ['payload', 'model_provider'],
  ['payload', 'response_id'],
  ['payload', 'thread_id'],
  ['payload', 'turn_id'],
  ...tok(['payload', 'usage']),
  ['payload', 'info'],
  ...tok(['payload', 'info', 'total_token_usage']),
  ...tok(['payload', 'info', 'last_token_usage']),
];

/**
 * native/kernel.h CX_NUMS: offset, six counts, flags (1 single request, 2 model fallback, 4 copied from another
 * thread), then the fold hints (key hash hi, lo, time).
 */
const NUMS = 11;
const STRS = 5;

/** The counts and the values record `decodeEvent` fills (one each: `buildCodexUsage` copies what it needs). */
const counts: Tok = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0 };
const values: CodexUsageValues = { sessionId: '', model: null, provider: null, timestamp: '', tok: counts, singleRequest: false, dedupKey: '', messageId: undefined, copied: false };

/** The k-th event of a block onto `into` (UsageBlock.decode); a block's id is its session id. */
function decodeEvent(b: Block, _context: undefined, k: number, into: UsageEvent): UsageEvent {
  const nums = b.nums;
  const num = NUMS * k;
  const str = 3 * STRS * k;
  const v = values;
  v.sessionId = b.id;
  v.model = (valueAt(b, str) as string | undefined) ?? null;
  v.provider = (valueAt(b, str + 3) as string | undefined) ?? null;
  v.timestamp = valueAt(b, str + 6) as string;
  counts.input = nums[num + 1] as number;
  counts.cached = nums[num + 2] as number;
  counts.cacheWrite = nums[num + 3] as number;
  counts.output = nums[num + 4] as number;
  counts.reasoning = nums[num + 5] as number;
  counts.total = nums[num + 6] as number;
  const flags = nums[num + 7] as number;
  v.singleRequest = (flags & 1) !== 0;
  v.copied = (flags & 4) !== 0;
  v.dedupKey = valueAt(b, str + 9) as string;
  v.messageId = valueAt(b, str + 12) as string | undefined;
  buildCodexUsage(v, nums[num] as number, resetUsageEvent(into));
  // Empty again: no record's strings stay reachable through it.
  v.sessionId = v.timestamp = v.dedupKey = '';
  v.model = v.provider = null;
  v.messageId = undefined;
  v.copied = false;
  return setFoldHints(into, nums, num + 8);
}

/** The engine's result blocks (native/codex.c, `cx_scan_file`): a block's id is the session id. */
const scan = createUsageScanner<undefined>({
  engine: 1,
  projection: NATIVE_PROJECTION,
  paths: FIELD_PATHS,
  nums: NUMS,
  strs: STRS,
  decode: decodeEvent,
});

/**
 * The usage events of full reads of `files` (as `read(file, { kinds: ['session', 'usage'], titles: false })`
 * yields them) and the cwd of their first session events, read by the engine on one of its threads (native/pool.c); see `Codec.scanUsage`.
 */
export function scanCodexUsage(files: readonly string[]): Promise<(UsageScanResult | false)[]> | undefined {
  return scan(files, files.map(fileIdOf), []);
}
