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
import { CODEX_HEADER_FIELDS, CODEX_HEADER_PROJECTION, CODEX_USAGE_FIELDS, CODEX_USAGE_PROJECTION } from '../codecs/codex/prefilter.js';
import { type CompiledProjection, type FieldProjection, scanFields, scanFieldsJs } from '../cursors/scan-fields.js';
import { parseSync } from '../cursors/sync.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { LOCAL_FIXTURES, meta, REAL_DIR, REAL_FIXTURES } from './codex-helpers.js';
import { applyDamage, plainCollectedKeys, damage, type J, noLf, PLAIN, serialize, style } from './helpers/json-model.js';
import { codexHeader, codexLine } from './helpers/codex-model.js';

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

// ---- generated rollout lines: helpers/codex-model.ts ----

const noNewline = (st: fc.Arbitrary<Parameters<typeof serialize>[1]>) => st.map((s) => ({ ...s, spaces: s.spaces.filter((x) => x !== '\n') }));

/**
 * Plain serializations of `lines` through `fields`: each answer equals the JavaScript walk's, and the scanner
 * answers exactly when every collected key is plain (only an escaped key inside a collected object, random keys
 * such as "\\", sends a valid line to JSON.parse). Returns how many it answered.
 */
function plainAnswers(lines: fc.Arbitrary<J>, fields: CompiledProjection, projection: FieldProjection, seed: number): number {
  let answered = 0;
  fc.assert(
    fc.property(lines, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (l, order) => {
      const b = Buffer.from(serialize(l, { ...PLAIN, seed: order }));
      const got = scanFields(b, fields);
      expect(got).toEqual(scanFieldsJs(b, fields));
      expect(got !== undefined).toBe(plainCollectedKeys(l, projection));
      if (got !== undefined) answered++;
    }),
    { numRuns: 300, seed },
  );
  return answered;
}

describe('codex fast field scan inside the core (property)', () => {
  it('answers for plain generated usage lines itself, with the JavaScript walk’s answer', () => {
    expect(plainAnswers(codexLine, CODEX_USAGE_FIELDS, CODEX_USAGE_PROJECTION, 73)).toBeGreaterThan(200);
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
      { numRuns: 300, seed: 95 },
    );
    expect(usage).toBeGreaterThan(30);
  });

  it('reads a session_meta first line through its header projection, with the events of JSON.parse', () => {
    const fileLine = (l: fc.Arbitrary<J>): fc.Arbitrary<Buffer> =>
      fc.oneof(
        { weight: 6, arbitrary: fc.tuple(l, noNewline(style)).map(([v, st]) => Buffer.from(serialize(v, st))) },
        { weight: 1, arbitrary: fc.tuple(l, noNewline(style), damage).map(([v, st, d]) => noLf(applyDamage(Buffer.from(serialize(v, st)), d))) },
      );
    let sessions = 0;
    let answered = 0;
    fc.assert(
      fc.property(fileLine(codexHeader), fc.array(fileLine(codexLine), { maxLength: 6 }), fc.integer({ min: 1, max: 64 }), (head, ls, chunk) => {
        if (scanFields(head, CODEX_HEADER_FIELDS) !== undefined) answered++;
        const content = Buffer.concat([head, ...ls].flatMap((l) => [l, Buffer.from('\n')]));
        for (const kinds of KINDS) {
          let want: SessionfoldEvent[] | Error;
          try {
            want = run(parseCore, content, FILE, kinds);
          } catch (e) {
            want = e as Error;
          }
          if (want instanceof Error) {
            expect(() => run(fastCore, content, FILE, kinds)).toThrow(want.message);
            continue;
          }
          sessions += want.filter((e) => e.type === 'session').length;
          expect(run(fastCore, content, FILE, kinds)).toEqual(want);
          expect(run(fastCore, content, FILE, kinds, chunk)).toEqual(want);
        }
      }),
      { numRuns: 400, seed: 41 },
    );
    expect(sessions).toBeGreaterThan(100);
    expect(answered).toBeGreaterThan(100);
  });

  it('answers for plain generated headers itself, with the JavaScript walk’s answer', () => {
    expect(plainAnswers(codexHeader, CODEX_HEADER_FIELDS, CODEX_HEADER_PROJECTION, 29)).toBeGreaterThan(200);
  });
});
