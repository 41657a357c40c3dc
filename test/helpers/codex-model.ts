/**
 * Adversarial Codex rollout lines over the shared JSON model (json-model.ts): token_count, turn_context,
 * token_usage_record and copied session_meta records in any key order, with odd values, and decoys that
 * mention usage (among them a token_count's payload or info object overridden by a later duplicate that is
 * not an object). Shared by the scanner's tests (codex-fast-scan) and the native engine's (native-engines).
 */
import fc from 'fast-check';
import { anyValue, type J, num, obj, shuffled, text } from './json-model.js';


const tokenValue: fc.Arbitrary<J> = fc.oneof({ weight: 8, arbitrary: fc.nat({ max: 500_000 }) }, { weight: 1, arbitrary: num }, { weight: 1, arbitrary: fc.constantFrom<J>(null, '12', true) });
const TOKEN_KEYS = ['input_tokens', 'cached_input_tokens', 'cache_read_input_tokens', 'cache_write_input_tokens', 'output_tokens', 'reasoning_output_tokens', 'total_tokens'];
const tokenUsage: fc.Arbitrary<J> = fc.oneof(
  { weight: 9, arbitrary: shuffled(TOKEN_KEYS.map((k) => fc.tuple(fc.constant(k), tokenValue)), tokenValue).map(obj) },
  { weight: 1, arbitrary: anyValue },
);
const stamp: fc.Arbitrary<J> = fc.oneof(fc.integer({ min: 0, max: 3600 }).map((s) => new Date(Date.UTC(2025, 10, 5, 12, 0, s)).toISOString()), fc.constantFrom<J>('[ts]', 7, null));
const ordinal: fc.Arbitrary<[string, J]> = fc.tuple(fc.constant('ordinal'), fc.oneof(fc.nat({ max: 50 }), fc.constant<J>('3')));
const recordType = (t: string): fc.Arbitrary<J> => fc.oneof({ weight: 9, arbitrary: fc.constant<J>(t) }, { weight: 1, arbitrary: fc.constantFrom<J>('event_msg', 'turn_context', 'response_item', 'token_usage_record', 'session_meta', 'message') });
const rollout = (type: string, payload: fc.Arbitrary<J>): fc.Arbitrary<J> =>
  shuffled([fc.tuple(fc.constant('timestamp'), stamp), fc.tuple(fc.constant('type'), recordType(type)), fc.tuple(fc.constant('payload'), payload), ordinal], anyValue).map(obj);

/** A value that is not an object (a later duplicate of a key whose earlier value was one). */
const nonObject: fc.Arbitrary<J> = fc.oneof(fc.constantFrom<J>(null, 'x', 0, true, ''), fc.array(anyValue, { maxLength: 2 }));
/**
 * Sometimes `key` once more at the end of the object, with a value that is not an object: JSON.parse keeps
 * that later value, so an earlier object of the same shape (every slot the walk collects under it) is a
 * decoy whose inner fields must not be read.
 */
const thenNonObject = (key: string, a: fc.Arbitrary<J>): fc.Arbitrary<J> =>
  fc.tuple(a, fc.nat({ max: 7 }), nonObject).map(([v, roll, later]) => (roll === 0 && v !== null && typeof v === 'object' && !Array.isArray(v) ? obj([...v.entries, [key, later]]) : v));

const tokenCount = thenNonObject(
  'payload',
  rollout(
    'event_msg',
    thenNonObject(
      'info',
      shuffled(
        [
          fc.tuple(fc.constant('type'), fc.constantFrom<J>('token_count', 'token_count', 'agent_message')),
          fc.tuple(fc.constant('info'), fc.oneof(fc.constant<J>(null), shuffled([fc.tuple(fc.constant('total_token_usage'), tokenUsage), fc.tuple(fc.constant('last_token_usage'), tokenUsage), fc.tuple(fc.constant('model_context_window'), tokenValue)], tokenUsage).map(obj))),
          fc.tuple(fc.constant('rate_limits'), fc.oneof(anyValue, tokenUsage)),
        ],
        anyValue,
      ).map(obj),
    ),
  ),
);
/**
 * A token_count as Codex writes it (every counter a sane count) whose payload or info object is then
 * overridden by a later duplicate that is not an object: JSON.parse counts nothing of it.
 */
const saneUsage: fc.Arbitrary<J> = fc.tuple(...TOKEN_KEYS.map(() => fc.nat({ max: 500_000 }))).map((ns) => obj(TOKEN_KEYS.map((k, i) => [k, ns[i] as number])));
const overriddenTokenCount: fc.Arbitrary<J> = fc
  .tuple(stamp, saneUsage, saneUsage, fc.constantFrom('payload', 'info'), nonObject)
  .map(([ts, total, last, key, later]) => {
    const info: [string, J][] = [['total_token_usage', total], ['last_token_usage', last]];
    const payload: [string, J][] = [['type', 'token_count'], ['info', obj(info)], ...(key === 'info' ? [['info', later] as [string, J]] : [])];
    return obj([['timestamp', ts], ['type', 'event_msg'], ['payload', obj(payload)], ...(key === 'payload' ? [['payload', later] as [string, J]] : [])]);
  });
// A turn minted before the owner thread (0199a000-…-099) or after it, and ids that are no lowercase UUIDv7.
const turnId = fc.constantFrom<J>('01999fff-ffff-7fff-bfff-000000000001', '0199a000-0001-7000-8000-000000000002', '01999FFF-FFFF-7FFF-BFFF-000000000001', 'turn-1', null, 7);
const turnContext = rollout(
  'turn_context',
  shuffled([fc.tuple(fc.constant('cwd'), fc.constantFrom<J>('/w', 'C:\\w', '/a "b"', '')), fc.tuple(fc.constant('model'), fc.constantFrom<J>('gpt-5', 'gpt-5-codex', 'o3', '', 4)), fc.tuple(fc.constant('model_provider'), fc.constantFrom<J>('openai', 'azure', null)), fc.tuple(fc.constant('turn_id'), turnId)], anyValue).map(obj),
);
const usageRecord = rollout(
  'token_usage_record',
  shuffled([fc.tuple(fc.constant('response_id'), fc.oneof(fc.constantFrom<J>('resp_1', 'resp_2', 'resp_3'), text)), fc.tuple(fc.constant('usage'), tokenUsage), fc.tuple(fc.constant('thread_id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000099', 'other', null))], anyValue).map(obj),
);
const copiedHeader = rollout('session_meta', shuffled([fc.tuple(fc.constant('id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000099', 'parent-1', 5)), fc.tuple(fc.constant('session_id'), fc.constantFrom<J>('s-2', null)), fc.tuple(fc.constant('cwd'), fc.constant<J>('/p'))], anyValue).map(obj));
// Records that hold no usage but mention it: a tool output quoting a token_count line, a message.
const decoy = rollout('response_item', shuffled([fc.tuple(fc.constant('type'), fc.constantFrom<J>('function_call_output', 'message')), fc.tuple(fc.constant('output'), fc.oneof(text, fc.constant<J>('{"type":"token_count","info":{}}'))), fc.tuple(fc.constant('info'), fc.oneof(tokenUsage, anyValue))], anyValue).map(obj));
const source: fc.Arbitrary<J> = fc.oneof(
  fc.constantFrom<J>('cli', 'exec', 'subagent', null),
  fc.constant(obj([['subagent', obj([['thread_spawn', obj([['parent_thread_id', '0199a000-0000-7000-8000-000000000001']])]])]])),
  fc.constant(obj([['subagent', 'review']])),
  anyValue,
);
/** An adversarial first line: the owner's session_meta with every field `takeOwner` reads, in any shape. */
export const codexHeader: fc.Arbitrary<J> = rollout(
  'session_meta',
  shuffled(
    [
      fc.tuple(fc.constant('id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000099', 'parent-1', 5, null)),
      fc.tuple(fc.constant('session_id'), fc.constantFrom<J>('s-2', null)),
      fc.tuple(fc.constant('forked_from_id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000002', null, 3)),
      fc.tuple(fc.constant('parent_thread_id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000003', null)),
      fc.tuple(fc.constant('source'), source),
      fc.tuple(fc.constant('history_base'), fc.oneof(fc.constant(obj([['end_ordinal_exclusive', 4]])), anyValue)),
      fc.tuple(fc.constant('timestamp'), stamp),
      fc.tuple(fc.constant('subagent_history_start_ordinal'), fc.oneof(fc.nat({ max: 9 }), anyValue)),
      fc.tuple(fc.constant('model_provider'), fc.constantFrom<J>('openai', 'azure', null, 1)),
      fc.tuple(fc.constant('cwd'), fc.oneof(fc.constantFrom<J>('/w', 'C:\\w', '/a "b"'), text)),
      fc.tuple(fc.constant('cli_version'), fc.constantFrom<J>('0.50.0', null)),
      fc.tuple(fc.constant('git'), fc.oneof(fc.constant(obj([['branch', 'main']])), fc.constant(obj([['branch', 7]])), anyValue)),
      fc.tuple(fc.constant('instructions'), text),
    ],
    anyValue,
  ).map(obj),
);
/** An adversarial rollout line past the header. */
export const codexLine: fc.Arbitrary<J> = fc.oneof({ weight: 8, arbitrary: tokenCount }, { weight: 1, arbitrary: overriddenTokenCount }, { weight: 2, arbitrary: turnContext }, { weight: 2, arbitrary: usageRecord }, { weight: 1, arbitrary: copiedHeader }, { weight: 2, arbitrary: decoy });
