/**
 * The Claude codec's `scanUsage`: a full usage read of one transcript by the native engine (native/claude.c),
 * for the cost scan's cold reads. C walks the lines and applies the usage rules (usage.ts, parse.ts
 * `onUsage`); this module decodes the values C hands over with the JavaScript path's own code (`buildUsage`,
 * `extractTimestamp`, `getModelProvider`), so an event is assembled once, in one place.
 *
 * C reads the whole file on one of the engines' threads (native/pool.c; the JavaScript thread only decodes the events), so a scan
 * reads several transcripts at once without worker threads. It answers only where it can be exact: undefined
 * (no kernel, or a file whose path gives no session id: its events take the first `sessionId` of its lines),
 * or `false` (C met a line or a value only JSON.parse can decide, or cannot open the file: the caller reads it
 * with `read()`, which also reports what is wrong with it).
 * test/claude-native.test.ts holds both engines to the same events on every fixture and on generated edge cases.
 */
import type { UsageScanResult } from '../../cursors/protocol/codec.js';
import { isSessionfoldError } from '../../cursors/protocol/errors.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import type { FieldProjection } from '../../cursors/scan-fields.js';
import { blockValue, createUsageScanner, setFoldHints, TIME } from '../../cursors/native-engine.js';
import { getClaudeSessionId } from './paths.js';
import { buildUsage, keysOnLineUuid, USAGE_LINE_FIELDS } from './usage.js';

/** What the engine walks: the usage fields, and where the session ran (its cwd, or 1.x's project). */
const NATIVE_PROJECTION = { ...USAGE_LINE_FIELDS, cwd: true, project: true } as const satisfies FieldProjection;

/** The fields C reads, in native/kernel.h's CF_ order. */
const FIELD_PATHS = [
  ['sessionId'],
  ['requestId'],
  ['costUSD'],
  ['uuid'],
  ['timestamp'],
  ['cwd'],
  ['project'],
  ['message'],
  ['message', 'id'],
  ['message', 'model'],
  ['message', 'usage'],
  ['message', 'usage', 'input_tokens'],
  ['message', 'usage', 'output_tokens'],
  ['message', 'usage', 'cache_creation_input_tokens'],
  ['message', 'usage', 'cache_read_input_tokens'],
  ['message', 'usage', 'cache_creation'],
  ['message', 'usage', 'cache_creation', 'ephemeral_5m_input_tokens'],
  ['message', 'usage', 'cache_creation', 'ephemeral_1h_input_tokens'],
  ['message', 'usage', 'output_tokens_details'],
  ['message', 'usage', 'output_tokens_details', 'thinking_tokens'],
  ['message', 'usage', 'server_tool_use'],
  ['message', 'usage', 'server_tool_use', 'web_search_requests'],
  ['message', 'usage', 'speed'],
  ['data', 'message', 'message', 'usage'],
] as const;

/** native/kernel.h CS_N_*: offset, seven counts, then the fold hints (key hash hi, lo, time). */
const NUMS = 11;
const STRS = 7;

/** A non-empty string, as `str()` (the engine hands over only those for these fields). */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The events of a block (a function of its own: see codecs/codex/native.ts `eventsOf`). */
function eventsOf(t: Buffer, a: string | undefined, nums: Float64Array, strs: Int32Array, n: number, sessionId: string): UsageEvent[] {
  const events: UsageEvent[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const num = NUMS * k;
    const str = 3 * STRS * k;
    const messageId = text(blockValue(t, a, strs, str + 3));
    const requestId = text(blockValue(t, a, strs, str + 6));
    events[k] = setFoldHints(buildUsage(
      {
        model: text(blockValue(t, a, strs, str)),
        messageId,
        requestId,
        // Only a usage keyed on its line's uuid reads it (`keysOnLineUuid`): no string for the others.
        uuid: keysOnLineUuid(messageId, requestId) ? text(blockValue(t, a, strs, str + 9)) : undefined,
        timestamp: blockValue(t, a, strs, str + 12),
        timestampValid: strs[str + 14] === TIME,
        cost: blockValue(t, a, strs, str + 15),
        speed: text(blockValue(t, a, strs, str + 18)),
        inputTokens: nums[num + 1] as number,
        outputTokens: nums[num + 2] as number,
        reasoningTokens: nums[num + 3] as number,
        cacheReadTokens: nums[num + 4] as number,
        cacheWriteTokens: nums[num + 5] as number,
        cacheWrite1hTokens: nums[num + 6] as number,
        webSearchRequests: nums[num + 7] as number,
      },
      sessionId,
      nums[num] as number,
    ).event, nums, num + 8);
  }
  return events;
}

const scan = createUsageScanner<string>({
  engine: 0,
  projection: NATIVE_PROJECTION,
  paths: FIELD_PATHS,
  nums: NUMS,
  strs: STRS,
  // A recorded cost that is not sane refuses its line, which only `read()` can do: the file goes to it.
  events: (b, sessionId) => {
    try {
      return eventsOf(b.text, b.ascii, b.nums, b.strs, b.count, sessionId);
    } catch (e) {
      if (isSessionfoldError(e, 'MALFORMED_LINE')) return false;
      throw e;
    }
  },
});

/**
 * The usage events of full reads of `files` (as `read(file, { kinds: ['session', 'usage'], titles: false })`
 * yields them) and the cwd of their first session events, read by the engine on one of its threads (native/pool.c); see `Codec.scanUsage`. A
 * file whose path gives no session id is left to `read()` (undefined): its events take the first
 * `sessionId` of its lines.
 */
export function scanClaudeUsage(files: readonly string[]): Promise<(UsageScanResult | false | undefined)[]> | undefined {
  const ids = files.map(getClaudeSessionId);
  const take = files.filter((_, i) => ids[i] !== undefined);
  const takeIds = ids.filter((id): id is string => id !== undefined);
  const read = scan(take, take.map(() => ''), takeIds);
  if (read === undefined) return undefined;
  return read.then((results) => {
    let k = 0;
    return ids.map((id) => (id === undefined ? undefined : results[k++]));
  });
}
