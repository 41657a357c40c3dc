/**
 * The Codex codec's `scanUsage`: a full usage read of one rollout by the native engine (native/codex.c) on
 * one of its threads (native/pool.c), for the cost scan's cold reads. C walks the lines and applies parse.ts's usage rules;
 * this module decodes its result block and builds each event with `buildCodexUsage` (the token split is
 * tokens.ts `toUsageFields`), as the JavaScript core does.
 *
 * C leaves a file to `read()` (`false`) wherever only JavaScript can decide it: fork and subagent rollouts
 * (their inherited lines are found with Date.parse), non-canonical timestamps, escaped ids or models, odd
 * numbers, lines JSON.parse might read differently (see native/codex.c). test/native-engines.test.ts holds
 * both engines to the same events on every fixture and on generated edge cases.
 */
import type { UsageScanResult } from '../../cursors/protocol/codec.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import type { FieldProjection } from '../../cursors/scan-fields.js';
import { blockValue, createUsageScanner, setFoldHints } from '../../cursors/native-engine.js';
import { fileIdOf } from './parse.js';
import { buildCodexUsage } from './usage.js';
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
  ...tok(['payload', 'usage']),
  ['payload', 'info'],
  ...tok(['payload', 'info', 'total_token_usage']),
  ...tok(['payload', 'info', 'last_token_usage']),
];

/** native/kernel.h CX_NUMS: offset, six counts, flags, then the fold hints (key hash hi, lo, time). */
const NUMS = 11;
const STRS = 5;

/**
 * The events of a block. A function of its own: a loop that V8 optimizes in the middle of a call (on-stack
 * replacement) deoptimizes at the first code after it that has not run yet, here on every file.
 */
function eventsOf(text: Buffer, ascii: string | undefined, nums: Float64Array, strs: Int32Array, n: number, sessionId: string): UsageEvent[] {
  const events: UsageEvent[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const num = NUMS * k;
    const str = 3 * STRS * k;
    const flags = nums[num + 7] as number;
    const messageId = blockValue(text, ascii, strs, str + 12) as string | undefined;
    events[k] = setFoldHints(buildCodexUsage(
      {
        sessionId,
        model: (blockValue(text, ascii, strs, str) as string | undefined) ?? null,
        provider: (blockValue(text, ascii, strs, str + 3) as string | undefined) ?? null,
        timestamp: blockValue(text, ascii, strs, str + 6) as string,
        tok: {
          input: nums[num + 1] as number,
          cached: nums[num + 2] as number,
          cacheWrite: nums[num + 3] as number,
          output: nums[num + 4] as number,
          reasoning: nums[num + 5] as number,
          total: nums[num + 6] as number,
        },
        singleRequest: (flags & 1) !== 0,
        dedupKey: blockValue(text, ascii, strs, str + 9) as string,
        messageId,
      },
      nums[num] as number,
    ), nums, num + 8);
  }
  return events;
}

/** The engine's result blocks (native/codex.c, `cx_scan_file`): a block's id is the session id. */
const scan = createUsageScanner<undefined>({
  engine: 1,
  projection: NATIVE_PROJECTION,
  paths: FIELD_PATHS,
  nums: NUMS,
  strs: STRS,
  events: (b) => eventsOf(b.text, b.ascii, b.nums, b.strs, b.count, b.id),
});

/**
 * The usage events of full reads of `files` (as `read(file, { kinds: ['session', 'usage'], titles: false })`
 * yields them) and the cwd of their first session events, read by the engine on one of its threads (native/pool.c); see `Codec.scanUsage`.
 */
export function scanCodexUsage(files: readonly string[]): Promise<(UsageScanResult | false)[]> | undefined {
  return scan(files, files.map(fileIdOf), []);
}
