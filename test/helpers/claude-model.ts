/**
 * Adversarial Claude-like transcript lines over the shared JSON model (json-model.ts): random key order,
 * `usage` objects in content, tool inputs and tool results, ids and models of every kind, numbers of every
 * shape. Shared by the scanner's tests (claude-usage-scan) and the native engine's (native-engines).
 */
import fc from 'fast-check';
import { anyValue, type J, num, obj, scalar, shuffled, text } from './json-model.js';

/** The session id the generated lines name (and the file name of a transcript that holds them). */
export const CLAUDE_SID = '0f0f0f0f-1111-4222-8333-444444444444';
const SID = CLAUDE_SID;


const tokenValue: fc.Arbitrary<J> = fc.oneof({ weight: 8, arbitrary: fc.nat({ max: 200_000 }) }, { weight: 1, arbitrary: num }, { weight: 1, arbitrary: fc.constantFrom<J>(null, '12', true) });
export const usageObj: fc.Arbitrary<J> = shuffled(
  [
    fc.tuple(fc.constant('input_tokens'), tokenValue),
    fc.tuple(fc.constant('output_tokens'), tokenValue),
    fc.tuple(fc.constant('cache_creation_input_tokens'), tokenValue),
    fc.tuple(fc.constant('cache_read_input_tokens'), tokenValue),
    fc.tuple(fc.constant('cache_creation'), fc.oneof(shuffled([fc.tuple(fc.constant('ephemeral_5m_input_tokens'), tokenValue), fc.tuple(fc.constant('ephemeral_1h_input_tokens'), tokenValue)], tokenValue).map(obj), scalar)),
    fc.tuple(fc.constant('server_tool_use'), shuffled([fc.tuple(fc.constant('web_search_requests'), tokenValue), fc.tuple(fc.constant('web_fetch_requests'), tokenValue)], tokenValue).map(obj)),
    fc.tuple(fc.constant('output_tokens_details'), fc.oneof(fc.constant(obj([['thinking_tokens', 12]])), scalar)),
    fc.tuple(fc.constant('speed'), fc.constantFrom<J>('fast', 'standard', null, 3)),
    fc.tuple(fc.constant('service_tier'), fc.constantFrom<J>('standard', null)),
  ],
  tokenValue,
).map(obj);
const block: fc.Arbitrary<J> = fc.oneof(
  fc.tuple(text).map(([t]) => obj([['type', 'text'], ['text', t]])),
  fc.tuple(text, text).map(([t, s]) => obj([['type', 'thinking'], ['thinking', t], ['signature', s]])),
  fc.tuple(text, anyValue, usageObj).map(([n, input, u]) => obj([['type', 'tool_use'], ['id', 'toolu_1'], ['name', n], ['input', obj([['usage', u], ['message', obj([['usage', input]])], ['x', input]])]])),
  fc.tuple(text, usageObj).map(([t, u]) => obj([['type', 'tool_result'], ['content', t], ['usage', u]])),
);
const messageObj: fc.Arbitrary<J> = shuffled(
  [
    fc.tuple(fc.constant('id'), fc.oneof(fc.constant<J>('msg_01ABC'), text, fc.constant<J>(null))),
    fc.tuple(fc.constant('type'), fc.constant<J>('message')),
    fc.tuple(fc.constant('role'), fc.constant<J>('assistant')),
    fc.tuple(fc.constant('model'), fc.constantFrom<J>('claude-sonnet-4-5-20250929', '<synthetic>', 'us.anthropic.claude-opus-4-6-v1:0', 'anthropic/claude-sonnet-4.5', 'glm-4.6', 3)),
    fc.tuple(fc.constant('content'), fc.oneof({ weight: 5, arbitrary: fc.array(block, { maxLength: 4 }) }, { weight: 1, arbitrary: text })),
    fc.tuple(fc.constant('stop_reason'), fc.constantFrom<J>(null, 'end_turn', 'tool_use')),
    fc.tuple(fc.constant('usage'), fc.oneof({ weight: 8, arbitrary: usageObj }, { weight: 1, arbitrary: anyValue })),
  ],
  fc.oneof(usageObj, anyValue),
).map(obj);
/** An adversarial Claude-like transcript line (most of them assistant lines with a usage object). */
export const claudeLine: fc.Arbitrary<J> = shuffled(
  [
    fc.tuple(fc.constant('parentUuid'), fc.constantFrom<J>(null, 'p-1')),
    fc.tuple(fc.constant('isSidechain'), fc.boolean()),
    fc.tuple(fc.constant('cwd'), fc.constantFrom<J>('/w', 'C:\\w', '/a "b"', '')),
    fc.tuple(fc.constant('sessionId'), fc.constantFrom<J>(SID, 'other', 7)),
    // a `/branch` copy's stamp: a line naming another session this way was copied from it
    fc.tuple(fc.constant('forkedFrom'), fc.oneof(fc.constantFrom<J>(SID, 'origin', '', 7).map((id) => obj([['sessionId', id], ['messageUuid', 'u-1']])), anyValue)),
    fc.tuple(fc.constant('message'), fc.oneof({ weight: 9, arbitrary: messageObj }, { weight: 1, arbitrary: anyValue })),
    fc.tuple(fc.constant('requestId'), fc.oneof(fc.constant<J>('req_1'), text)),
    fc.tuple(fc.constant('type'), fc.constantFrom<J>('assistant', 'user')),
    fc.tuple(fc.constant('uuid'), fc.oneof(fc.constant<J>('a-1'), text)),
    fc.tuple(fc.constant('timestamp'), fc.constantFrom<J>('2026-03-01T00:00:00.000Z', '[trimmed]', 5)),
    fc.tuple(fc.constant('costUSD'), fc.oneof(num, fc.constant<J>('0.1'))),
    fc.tuple(fc.constant('toolUseResult'), fc.tuple(usageObj, anyValue).map(([u, v]) => obj([['usage', u], ['totalTokens', v]]))),
  ],
  fc.oneof(messageObj, anyValue),
).map(obj);
