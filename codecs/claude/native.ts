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
import { resetUsageEvent, type UsageEvent } from '../../cursors/protocol/events.js';
import type { FieldProjection } from '../../cursors/scan-fields.js';
import { saneCost } from '../../cursors/sane.js';
import { ABSENT, blockValue, createUsageScanner, setFoldHints, TIME, valueAt, type Block } from '../../cursors/native-engine.js';
import { CODEC_ID, getClaudeSessionId, getOwnSessionId } from './paths.js';
import { blankUsageValues, fillUsage, keysOnLineUuid, keysOnRequestId, releaseValues, USAGE_LINE_FIELDS } from './usage.js';

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
  ['forkedFrom', 'sessionId'],
] as const;

/** native/kernel.h CS_N_*: offset, seven counts, the fold hints (key hash hi, lo, time), then 1 for a copied line. */
const NUMS = 12;
const STRS = 7;

/** A non-empty string, as `str()` (the engine hands over only those for these fields). */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * The one values record `decodeEvent` fills and empties again (as usage.ts `usageOf` does): `fillUsage` copies
 * what the event needs, so no record's strings stay reachable through it.
 */
const values = blankUsageValues();

/** What a block's events take of their file: its session id (from the path), and the name they carry. */
interface FileContext {
  sessionId: string;
  agent: string;
}

/** The k-th event of a block onto `into` (UsageBlock.decode): the values C found, through `fillUsage`. */
function decodeEvent(b: Block, file: FileContext, k: number, into: UsageEvent): UsageEvent {
  const nums = b.nums;
  const num = NUMS * k;
  const str = 3 * STRS * k;
  const v = values;
  try {
    v.model = text(valueAt(b, str));
    v.messageId = text(valueAt(b, str + 3));
    // The request id only keys a usage without a message id, and the line's uuid one without either
    // (`keysOnRequestId`, `keysOnLineUuid`): no string for the others.
    v.requestId = keysOnRequestId(v.messageId) ? text(valueAt(b, str + 6)) : undefined;
    v.uuid = keysOnLineUuid(v.messageId, v.requestId) ? text(valueAt(b, str + 9)) : undefined;
    v.timestamp = valueAt(b, str + 12);
    v.timestampValid = b.strs[str + 14] === TIME;
    v.cost = valueAt(b, str + 15);
    v.speed = text(valueAt(b, str + 18));
    v.inputTokens = nums[num + 1] as number;
    v.outputTokens = nums[num + 2] as number;
    v.reasoningTokens = nums[num + 3] as number;
    v.cacheReadTokens = nums[num + 4] as number;
    v.cacheWriteTokens = nums[num + 5] as number;
    v.cacheWrite1hTokens = nums[num + 6] as number;
    v.webSearchRequests = nums[num + 7] as number;
    v.copied = nums[num + 11] === 1;
    fillUsage(v, file.sessionId, nums[num] as number, resetUsageEvent(into));
    into.agent = file.agent;
  } finally {
    releaseValues(v);
  }
  return setFoldHints(into, nums, num + 8);
}

/**
 * False when a recorded cost of the block is not sane: `fillUsage` would refuse its line, which only `read()`
 * can do, so the file goes to it. Checked when the block arrives, as its events are decoded later.
 */
function costsSane(b: Block): boolean {
  for (let k = 0; k < b.count; k++) {
    const at = 3 * STRS * k + 15;
    if (b.strs[at + 2] === ABSENT) continue;
    try {
      saneCost(blockValue(b.text, undefined, b.strs, at), 'costUSD');
    } catch (e) {
      if (isSessionfoldError(e, 'MALFORMED_LINE')) return false;
      throw e;
    }
  }
  return true;
}

const scan = createUsageScanner<FileContext>({
  engine: 0,
  projection: NATIVE_PROJECTION,
  paths: FIELD_PATHS,
  nums: NUMS,
  strs: STRS,
  decode: decodeEvent,
  accepts: costsSane,
});

/**
 * The usage events of full reads of `files` (as `read(file, { kinds: ['session', 'usage'], titles: false })`
 * yields them) and the cwd of their first session events, read by the engine on one of its threads (native/pool.c); see `Codec.scanUsage`. A
 * file whose path gives no session id is left to `read()` (undefined): its events take the first
 * `sessionId` of its lines. The events are named `agent` (Claude's, or a host's: read-as.ts).
 */
export function scanClaudeUsage(files: readonly string[], agent: string = CODEC_ID): Promise<(UsageScanResult | false | undefined)[]> | undefined {
  const ids = files.map(getClaudeSessionId);
  const take = files.filter((_, i) => ids[i] !== undefined);
  const context = ids.flatMap((sessionId) => (sessionId === undefined ? [] : [{ sessionId, agent }]));
  // C judges a line copied against the file's own session (usage.ts `isCopiedLine`), '' for none.
  const read = scan(take, take.map((f) => getOwnSessionId(f) ?? ''), context);
  if (read === undefined) return undefined;
  return read.then((results) => {
    let k = 0;
    return ids.map((id) => (id === undefined ? undefined : results[k++]));
  });
}
