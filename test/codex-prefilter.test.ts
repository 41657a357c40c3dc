/**
 * Codex's byte pre-filter read where a line lies (`mayHoldUsageAt`, for the lines the WebAssembly pass walks)
 * against the same rules written with Buffer views, strings and searches (the reference below): the same
 * answer for every line, wherever it sits in a larger buffer and whatever bytes surround it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasAnyMarker } from '../cursors/core.js';
import { CODEX_USAGE_MARKERS, mayHoldUsage, mayHoldUsageAt } from '../codecs/codex/prefilter.js';

/** The pre-filter as views and strings: the head's first `"type":"`, its value, the payload's type. */
function reference(line: Buffer): boolean {
  if (line[0] !== 0x7b) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const head = line.subarray(0, Math.min(line.length, 256));
  const i = head.indexOf('"type":"');
  if (i < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  for (let j = 1; j < i; j++) if (head[j] === 0x7b || head[j] === 0x5b) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const start = i + 8;
  const end = head.indexOf(0x22, start);
  if (end < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const type = head.toString('latin1', start, end);
  if (type === 'session_meta' || type === 'turn_context' || type === 'token_usage_record') return true;
  if (type !== 'event_msg') return false;
  if (head.indexOf('","payload":{"type":"', end) !== end) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  const pStart = end + 21;
  const pEnd = head.indexOf(0x22, pStart);
  if (pEnd < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
  return head.toString('latin1', pStart, pEnd) === 'token_count';
}

const TYPES = ['session_meta', 'turn_context', 'token_usage_record', 'event_msg', 'response_item', 'compacted', 'event_ms', 'token_count', ''];
const PAYLOAD_TYPES = ['token_count', 'agent_message', 'token_coun', 'token_countx', 'message', ''];

/** Lines of Codex's shape and near misses: spacing, key order, braces before the type, heads cut at 256 bytes. */
const lineArb = fc
  .record({
    pad: fc.nat({ max: 300 }),
    padChar: fc.constantFrom('a', '{', '[', '"', ' ', 'é'),
    type: fc.constantFrom(...TYPES),
    payloadType: fc.constantFrom(...PAYLOAD_TYPES),
    sep: fc.constantFrom('","payload":{"type":"', '", "payload": {"type": "', '","payload":{"kind":"', '"'),
    lead: fc.constantFrom('{"timestamp":"', '{ "timestamp":"', '["', '{"x":{"y":1},"t":"', ''),
    tail: fc.constantFrom('"}}', '","info":null}}', ' token_count', '', 'turn_context"}'),
  })
  .map(({ pad, padChar, type, payloadType, sep, lead, tail }) => Buffer.from(`${lead}${padChar.repeat(pad)}","type":"${type}${sep}${payloadType}${tail}`));

describe('codex pre-filter read in place (mayHoldUsageAt)', () => {
  it('answers as the view-and-string rules for every line, wherever it lies in a buffer', () => {
    fc.assert(
      fc.property(lineArb, fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 300 }), (line, before, after) => {
        const b = Buffer.concat([before, line, after]);
        const want = reference(line);
        expect(mayHoldUsage(line)).toBe(want);
        expect(mayHoldUsageAt(b, before.length, before.length + line.length)).toBe(want);
      }),
      { numRuns: 3000, seed: 16 },
    );
  });

  it('answers as the reference on random bytes and on an empty line inside a buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.nat({ max: 400 }), (bytes, cut) => {
        const b = Buffer.from(bytes);
        const to = Math.min(cut, b.length);
        expect(mayHoldUsageAt(b, 0, to)).toBe(reference(b.subarray(0, to)));
      }),
      { numRuns: 2000, seed: 17 },
    );
    const b = Buffer.from('{"type":"session_meta"}');
    expect(mayHoldUsageAt(b, 0, 0)).toBe(false);
    expect(mayHoldUsageAt(b, 5, 5)).toBe(false);
  });
});
