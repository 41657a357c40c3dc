/**
 * The Claude codec's usage lines as the WebAssembly pass walked them (parse.ts `onWalked`): each field that
 * `extractUsage` (usage.ts) reads of a parsed line, read from the slot of USAGE_FIELDS where the walk left
 * it, then `usageOf`, so both paths give the same candidate (test/wasm-walk.test.ts).
 */
import type { WalkedLine } from '../../cursors/core.js';
import { compileProjection, slotOf, walkedIs, walkedIsText, walkedObject, walkedValue } from '../../cursors/scan-fields.js';
import { str } from './schema.js';
import { blankUsageFields, keysOnLineUuid, keysOnRequestId, relayedSessionId, USAGE_LINE_FIELDS, usageOf, type HeldResponses, type UsageCandidate } from './usage.js';

/** What the fast path reads: extractUsage's fields (their `type` also sends a title record to the full parse). */
export const USAGE_FIELDS = compileProjection(USAGE_LINE_FIELDS);

/** The slots of USAGE_FIELDS a walked line's usage is read from: its own (`line` = []) or a progress copy's. */
function usageSlots(p: typeof USAGE_FIELDS, line: string[]) {
  const at = (...path: string[]) => slotOf(p, [...line, ...path]);
  return {
    requestId: at('requestId'),
    costUSD: at('costUSD'),
    uuid: at('uuid'),
    timestamp: at('timestamp'),
    message: at('message'),
    id: at('message', 'id'),
    model: at('message', 'model'),
    usage: at('message', 'usage'),
    input: at('message', 'usage', 'input_tokens'),
    output: at('message', 'usage', 'output_tokens'),
    cacheWrite: at('message', 'usage', 'cache_creation_input_tokens'),
    cacheRead: at('message', 'usage', 'cache_read_input_tokens'),
    breakdown: at('message', 'usage', 'cache_creation'),
    write5m: at('message', 'usage', 'cache_creation', 'ephemeral_5m_input_tokens'),
    write1h: at('message', 'usage', 'cache_creation', 'ephemeral_1h_input_tokens'),
    details: at('message', 'usage', 'output_tokens_details'),
    thinking: at('message', 'usage', 'output_tokens_details', 'thinking_tokens'),
    serverToolUse: at('message', 'usage', 'server_tool_use'),
    webSearch: at('message', 'usage', 'server_tool_use', 'web_search_requests'),
    speed: at('message', 'usage', 'speed'),
  };
}
type UsageSlots = ReturnType<typeof usageSlots>;

const SLOT = usageSlots(USAGE_FIELDS, []);
/** A progress line's copy of a subagent line (usage.ts `extractUsage`). */
const COPY_SLOT = usageSlots(USAGE_FIELDS, ['data', 'message']);
/** The line's own fields a walked usage line is read by (its session id, a progress line's copy). */
const LINE_SLOT = {
  sessionId: slotOf(USAGE_FIELDS, ['sessionId']),
  type: slotOf(USAGE_FIELDS, ['type']),
  data: slotOf(USAGE_FIELDS, ['data']),
  copy: slotOf(USAGE_FIELDS, ['data', 'message']),
  agentId: slotOf(USAGE_FIELDS, ['data', 'agentId']),
  forkedFrom: slotOf(USAGE_FIELDS, ['forkedFrom', 'sessionId']),
};

const walkedFields = blankUsageFields();

/** A walked line's `sessionId`, when a string. */
export function walkedSessionId(w: WalkedLine): string | undefined {
  return str(walkedValue(w, LINE_SLOT.sessionId));
}

/**
 * The usage of a walked line: its fields read where the walk left them, then `usageOf`, as `extractUsage` of
 * the parsed line; `REPEATED` (usage.ts) for a line that repeats a response `held` holds without replacing it.
 */
export function walkedUsage(w: WalkedLine, sessionId: string, start: number, held: HeldResponses, own: string | undefined): UsageCandidate | undefined {
  if (walkedObject(w, SLOT.message)) return usageOf(walkedFieldsAt(w, SLOT, undefined, own), sessionId, start, held);
  if (walkedValue(w, LINE_SLOT.type) !== 'progress' || !walkedObject(w, LINE_SLOT.data) || !walkedObject(w, LINE_SLOT.copy) || !walkedObject(w, COPY_SLOT.message)) return undefined;
  const fields = walkedFieldsAt(w, COPY_SLOT, walkedValue(w, SLOT.timestamp), own);
  return usageOf(fields, relayedSessionId(walkedValue(w, LINE_SLOT.agentId), sessionId), start, held);
}

/** The UTF-8 of the last own session id `walkedCopied` compared with (a read asks with one id throughout). */
let ownText: string | undefined;
let ownBytes: Uint8Array = new Uint8Array(0);

/**
 * `isCopiedLine` (usage.ts) of a walked line, its session fields compared with `own` as bytes: no string made
 * per line. The line's own fields decide for a progress line's copy too, as `extractUsage` has it.
 */
function walkedCopied(w: WalkedLine, own: string | undefined): boolean {
  if (own === undefined) return false;
  if (own !== ownText) {
    ownText = own;
    ownBytes = Buffer.from(own, 'utf8');
  }
  return namesOther(w, LINE_SLOT.sessionId, own) || namesOther(w, LINE_SLOT.forkedFrom, own);
}

function namesOther(w: WalkedLine, slot: number, own: string): boolean {
  return walkedIsText(w, slot) && !walkedIs(w, slot, own, ownBytes);
}

/** `walkedFields` filled from the slots `at` (fillFields in usage.ts, for a walked line). */
function walkedFieldsAt(w: WalkedLine, at: UsageSlots, fallbackTime: unknown, own: string | undefined) {
  const f = walkedFields;
  f.message = true;
  f.copied = walkedCopied(w, own);
  f.usage = walkedObject(w, at.usage);
  if (!f.usage) return f;
  f.model = walkedValue(w, at.model);
  f.messageId = walkedValue(w, at.id);
  // `usageOf` reads the request id only for a line without a message id (the response key, `keysOnRequestId`),
  // and the uuid only for one keyed on it (`keysOnLineUuid`): decoded only then.
  f.requestId = keysOnRequestId(str(f.messageId)) ? walkedValue(w, at.requestId) : undefined;
  f.uuid = keysOnLineUuid(str(f.messageId), str(f.requestId)) ? walkedValue(w, at.uuid) : undefined;
  const time = walkedValue(w, at.timestamp);
  f.timestamp = time === undefined ? fallbackTime : time;
  f.costUSD = walkedValue(w, at.costUSD);
  f.speed = walkedValue(w, at.speed);
  f.input = walkedValue(w, at.input);
  f.output = walkedValue(w, at.output);
  f.cacheWrite = walkedValue(w, at.cacheWrite);
  f.cacheRead = walkedValue(w, at.cacheRead);
  f.breakdown = walkedObject(w, at.breakdown);
  f.write5m = f.breakdown ? walkedValue(w, at.write5m) : undefined;
  f.write1h = f.breakdown ? walkedValue(w, at.write1h) : undefined;
  f.details = walkedObject(w, at.details);
  f.thinking = f.details ? walkedValue(w, at.thinking) : undefined;
  f.serverToolUse = walkedObject(w, at.serverToolUse);
  f.webSearch = f.serverToolUse ? walkedValue(w, at.webSearch) : undefined;
  return f;
}
