/**
 * Codex usage-only reads take the fields of a line past the header with the exact field scanner
 * (cursors/scan-fields.ts, CODEX_USAGE_FIELDS) instead of JSON.parse. Both ways must give the same events:
 * on every real and checked-in rollout, and on generated rollouts whose lines come in any key order and
 * spacing, with duplicate keys, escaped keys, decoy usage objects in other records, and byte damage.
 */
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodexCore } from '../codecs/codex/parse.js';
import { CODEX_USAGE_FIELDS, CODEX_USAGE_PROJECTION } from '../codecs/codex/prefilter.js';
import { scanFields, scanFieldsJs } from '../cursors/scan-fields.js';
import { parseSync } from '../cursors/sync.js';
import type { EventKind, SessionfoldEvent } from '../src/events.js';
import { LOCAL_FIXTURES, meta, REAL_DIR, REAL_FIXTURES } from './codex-helpers.js';
import { anyValue, applyDamage, plainCollectedKeys, damage, type J, noLf, num, obj, PLAIN, serialize, shuffled, style, text } from './helpers/json-model.js';

const fastCore = createCodexCore();
const parseCore = createCodexCore({ fastScan: false });
const FILE = '/h/.codex/sessions/2025/11/05/rollout-2025-11-05T12-00-00-0199a000-0000-7000-8000-000000000099.jsonl';
const KINDS: EventKind[][] = [['usage'], ['session', 'usage']];

function run(core: typeof fastCore, content: Buffer, file: string, kinds: EventKind[], chunkSize?: number): SessionfoldEvent[] {
  return parseSync(core, content, { file, kinds, ...(chunkSize !== undefined && { chunkSize }) });
}

describe('codex fast field scan over the fixtures', () => {
  const files = [...REAL_FIXTURES.map((n) => `${REAL_DIR}${n}.jsonl`), ...LOCAL_FIXTURES];
  it.each(files.map((f) => [f.slice(f.indexOf('fixtures/')), f]))('%s: the same events as JSON.parse of every line', async (_name, file) => {
    const content = await readFile(file);
    for (const kinds of KINDS) {
      const want = run(parseCore, content, file, kinds);
      expect(run(fastCore, content, file, kinds)).toEqual(want);
      expect(run(fastCore, content, file, kinds, 5)).toEqual(want);
    }
  });

  it('reads the usage lines of the real rollouts itself', async () => {
    let answered = 0;
    let candidates = 0;
    for (const n of REAL_FIXTURES) {
      for (const l of (await readFile(`${REAL_DIR}${n}.jsonl`)).toString('utf8').split('\n')) {
        if (!l.includes('"token_count"') && !l.includes('"turn_context"')) continue;
        candidates++;
        const b = Buffer.from(l);
        const fields = scanFields(b, CODEX_USAGE_FIELDS);
        expect(fields).toEqual(scanFieldsJs(b, CODEX_USAGE_FIELDS));
        if (fields !== undefined) answered++;
      }
    }
    expect(candidates).toBeGreaterThan(15);
    expect(answered).toBe(candidates);
  });
});

// ---- generated rollout lines over the shared JSON model ----

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

const tokenCount = rollout(
  'event_msg',
  shuffled(
    [
      fc.tuple(fc.constant('type'), fc.constantFrom<J>('token_count', 'token_count', 'agent_message')),
      fc.tuple(fc.constant('info'), fc.oneof(fc.constant<J>(null), shuffled([fc.tuple(fc.constant('total_token_usage'), tokenUsage), fc.tuple(fc.constant('last_token_usage'), tokenUsage), fc.tuple(fc.constant('model_context_window'), tokenValue)], tokenUsage).map(obj))),
      fc.tuple(fc.constant('rate_limits'), fc.oneof(anyValue, tokenUsage)),
    ],
    anyValue,
  ).map(obj),
);
const turnContext = rollout(
  'turn_context',
  shuffled([fc.tuple(fc.constant('cwd'), fc.constant<J>('/w')), fc.tuple(fc.constant('model'), fc.constantFrom<J>('gpt-5', 'gpt-5-codex', 'o3', '', 4)), fc.tuple(fc.constant('model_provider'), fc.constantFrom<J>('openai', 'azure', null))], anyValue).map(obj),
);
const usageRecord = rollout(
  'token_usage_record',
  shuffled([fc.tuple(fc.constant('response_id'), fc.oneof(fc.constantFrom<J>('resp_1', 'resp_2', 'resp_3'), text)), fc.tuple(fc.constant('usage'), tokenUsage), fc.tuple(fc.constant('thread_id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000099', 'other', null))], anyValue).map(obj),
);
const copiedHeader = rollout('session_meta', shuffled([fc.tuple(fc.constant('id'), fc.constantFrom<J>('0199a000-0000-7000-8000-000000000099', 'parent-1', 5)), fc.tuple(fc.constant('session_id'), fc.constantFrom<J>('s-2', null)), fc.tuple(fc.constant('cwd'), fc.constant<J>('/p'))], anyValue).map(obj));
// Records that hold no usage but mention it: a tool output quoting a token_count line, a message.
const decoy = rollout('response_item', shuffled([fc.tuple(fc.constant('type'), fc.constantFrom<J>('function_call_output', 'message')), fc.tuple(fc.constant('output'), fc.oneof(text, fc.constant<J>('{"type":"token_count","info":{}}'))), fc.tuple(fc.constant('info'), fc.oneof(tokenUsage, anyValue))], anyValue).map(obj));
const codexLine: fc.Arbitrary<J> = fc.oneof({ weight: 8, arbitrary: tokenCount }, { weight: 2, arbitrary: turnContext }, { weight: 2, arbitrary: usageRecord }, { weight: 1, arbitrary: copiedHeader }, { weight: 2, arbitrary: decoy });

const noNewline = (st: fc.Arbitrary<Parameters<typeof serialize>[1]>) => st.map((s) => ({ ...s, spaces: s.spaces.filter((x) => x !== '\n') }));

describe('codex fast field scan inside the core (property)', () => {
  it('answers for plain generated usage lines itself, with the JavaScript walk’s answer', () => {
    let answered = 0;
    fc.assert(
      fc.property(codexLine, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (l, seed) => {
        const b = Buffer.from(serialize(l, { ...PLAIN, seed }));
        const fields = scanFields(b, CODEX_USAGE_FIELDS);
        expect(fields).toEqual(scanFieldsJs(b, CODEX_USAGE_FIELDS));
        // Only an escaped key inside a collected object (random keys such as "\\") sends a valid line to JSON.parse.
        expect(fields !== undefined).toBe(plainCollectedKeys(l, CODEX_USAGE_PROJECTION));
        if (fields !== undefined) answered++;
      }),
      { numRuns: 300 },
    );
    expect(answered).toBeGreaterThan(200);
  });

  it('gives the same events as JSON.parse of every line, whole and chunked', () => {
    const header = JSON.stringify(meta('0199a000-0000-7000-8000-000000000099', 0));
    const fileLine: fc.Arbitrary<Buffer> = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(codexLine, noNewline(style)).map(([l, st]) => Buffer.from(serialize(l, st))) },
      { weight: 1, arbitrary: fc.tuple(codexLine, noNewline(style), damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, st)), d))) },
    );
    let usage = 0;
    fc.assert(
      fc.property(fc.array(fileLine, { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 64 }), (ls, chunk) => {
        const content = Buffer.concat([Buffer.from(header), ...ls].flatMap((l) => [l, Buffer.from('\n')]));
        for (const kinds of KINDS) {
          const want = run(parseCore, content, FILE, kinds);
          usage += want.filter((e) => e.type === 'usage').length;
          expect(run(fastCore, content, FILE, kinds)).toEqual(want);
          expect(run(fastCore, content, FILE, kinds, chunk)).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
    expect(usage).toBeGreaterThan(30);
  });
});
