/**
 * The exact fast usage scanner (cursors/scan-fields.ts) against JSON.parse: on adversarial generated
 * Claude-like lines (random key order, spacing, duplicate keys, escaped keys, `usage` keys inside content and
 * tool inputs and tool results, `"usage"` inside strings, escapes, unicode, lone surrogates, numbers of every
 * shape), on corrupted lines (truncated, bytes inserted or deleted, lines run together), and on every real
 * and constructed fixture. Whenever the scanner answers, its answer is the projection of JSON.parse's; when
 * JSON.parse throws, the scanner never answers. And the whole core gives the same events either way.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileProjection, createClaudeCore, scanFields, USAGE_LINE_FIELDS, type FieldProjection } from '../codecs/claude/index.js';
import { parseSync } from '../cursors/sync.js';
import { scanFieldsJs } from '../cursors/scan-fields.js';
import { nativeKernel } from '../cursors/native.js';
import { normalizeReadOptions } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { applyDamage, plainCollectedKeys, damage, noLf, PLAIN, serialize, style } from './helpers/json-model.js';
import { claudeLine as line, CLAUDE_SID as SID } from './helpers/claude-model.js';
import { jsonlFiles } from './helpers/files.js';

const REAL = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const CONSTRUCTED = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
/** A parent whose agent_progress lines copy its subagents' usage under `data.message` (its README). */
const PROGRESS = fileURLToPath(new URL('../fixtures/claude/progress/projects/', import.meta.url));
const FIELDS = compileProjection(USAGE_LINE_FIELDS);
const FILE = `/home/u/.claude/projects/-w/${SID}.jsonl`;
const fastCore = createClaudeCore();
/** Both walks: the native kernel's when it is built (cursors/native.ts), and the JavaScript one. */
const WALKS: [string, typeof scanFields][] = [
  [nativeKernel() !== undefined ? 'native kernel' : 'JavaScript walk (no kernel built)', scanFields],
  ['JavaScript walk', scanFieldsJs],
];
const parseCore = createClaudeCore({ fastScan: false });

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The projection of a parsed value, written independently of the scanner. */
function project(v: Record<string, unknown>, p: FieldProjection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, sub] of Object.entries(p)) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    out[k] = sub === true || !isObject(x) ? x : project(x, sub);
  }
  return out;
}

/** JSON.parse's answer for a line: the projection, or 'malformed' where the codec skips the line. */
function reference(line: Buffer): Record<string, unknown> | 'malformed' {
  let v: unknown;
  try {
    v = JSON.parse(line.toString('utf8'));
  } catch {
    return 'malformed';
  }
  return isObject(v) ? project(v, USAGE_LINE_FIELDS) : 'malformed';
}

/** The scanner agrees with JSON.parse, or leaves the line to it. Returns whether it answered. */
function expectAgrees(line: Buffer, scan: typeof scanFields = scanFields): boolean {
  const fast = scan(line, FIELDS);
  if (fast === undefined) return false;
  expect(fast).toEqual(reference(line));
  return true;
}

// ---- Claude-like lines: helpers/claude-model.ts ----

describe.each(WALKS)('claude usage scanner (%s): agrees with JSON.parse or leaves the line to it', (_walk, scan) => {
  it('reads plain Claude-like lines itself, with the same fields as JSON.parse (property)', () => {
    let answered = 0;
    fc.assert(
      fc.property(line, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), (l, seed) => {
        const b = Buffer.from(serialize(l, { ...PLAIN, seed }));
        // Compact JSON (JSON.stringify escapes control characters) whose collected keys need no escape: the
        // scanner must answer, and agree.
        if (!plainCollectedKeys(l, USAGE_LINE_FIELDS)) {
          expectAgrees(b, scan);
          return;
        }
        expect(scan(b, FIELDS)).toEqual(reference(b));
        answered++;
      }),
      { numRuns: 400, seed: 86 },
    );
    expect(answered).toBeGreaterThan(300);
  });

  it('agrees on lines with any spacing, duplicate keys, escaped keys and escaped values (property)', () => {
    let answered = 0;
    fc.assert(
      fc.property(line, style, (l, st) => {
        if (expectAgrees(Buffer.from(serialize(l, st)), scan)) answered++;
        return true;
      }),
      { numRuns: 600, seed: 98 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('never answers for a line JSON.parse rejects: truncated, a byte added or removed, lines run together (property)', () => {
    let rejected = 0;
    fc.assert(
      fc.property(line, style, damage, (l, st, d) => {
        const b = applyDamage(Buffer.from(serialize(l, st)), d);
        const fast = scan(b, FIELDS);
        const ref = reference(b);
        if (ref === 'malformed') {
          rejected++;
          expect(fast).toBeUndefined();
        } else if (fast !== undefined) expect(fast).toEqual(ref);
      }),
      { numRuns: 1500, seed: 115 },
    );
    expect(rejected).toBeGreaterThan(300);
  });

  it('handles the edge cases one by one', () => {
    const f = (s: string) => scan(Buffer.from(s), FIELDS);
    expect(f('{}')).toEqual({});
    expect(f('  {"uuid" : "u"}  ')).toEqual({ uuid: 'u' });
    // the last duplicate wins, and a second message replaces the first one whole
    expect(f('{"message":{"id":"a","usage":{"input_tokens":1}},"message":{"model":"m"}}')).toEqual({ message: { model: 'm' } });
    expect(f('{"message":{"usage":{"input_tokens":1},"usage":{"output_tokens":2}}}')).toEqual({ message: { usage: { output_tokens: 2 } } });
    expect(f('{"message":{"usage":{"input_tokens":1}},"message":null}')).toEqual({ message: null });
    // usage keys elsewhere are not the message's
    expect(f('{"toolUseResult":{"usage":{"input_tokens":5}},"message":{"content":[{"input":{"usage":{"output_tokens":7}}}]}}')).toEqual({ message: {} });
    // "usage" inside a string, escaped quotes and backslash runs before a closing quote
    expect(f('{"message":{"content":"say \\"usage\\":{} \\\\","id":"m\\\\"}}')).toEqual({ message: { id: 'm\\' } });
    expect(f('{"uuid":"\\u0041\\/\\n"}')).toEqual({ uuid: 'A/\n' });
    // escaped keys and raw control characters go to JSON.parse
    expect(f('{"message":{"us\\u0061ge":{"input_tokens":1}}}')).toBeUndefined();
    expect(f('{"uu\\u0069d":"x"}')).toBeUndefined();
    expect(f('{"uuid":\t"x"}')).toBeUndefined();
    expect(f('{"uuid":"a\u0001"}')).toBeUndefined();
    for (const raw of ['\t', '\r', '\n', '\u001f', '\u0000']) expect(f(`{"message":{"content":"a${raw}b"}}`)).toBeUndefined();
    // invalid JSON is never answered
    for (const bad of ['', ' ', '[]', '"x"', '{', '{"a":}', '{"a":1,}', '{"a" 1}', '{"a":01}', '{"a":1.}', '{"a":-}', '{"a":tru}', '{"a":truex}', '{"a":"\\x"}', '{"a":"\\u12"}', '{"a":1}x', '{"a":1}{"b":2}', '{"a":[1,]}', '{"a":[1 2]}', '\uFEFF{}', '{"a":"b"\\}']) {
      expect(f(bad), bad).toBeUndefined();
      expect(reference(Buffer.from(bad)), bad).toBe('malformed');
    }
    // deep nesting falls back instead of recursing without end
    expect(f(`{"a":${'['.repeat(300)}${']'.repeat(300)}}`)).toBeUndefined();
    expect(f(`{"a":${'['.repeat(100)}${']'.repeat(100)},"uuid":"u"}`)).toEqual({ uuid: 'u' });
    // numbers decode as JSON.parse decodes them
    expect(f('{"costUSD":0.1,"message":{"usage":{"input_tokens":123456789012345,"output_tokens":1e3,"cache_read_input_tokens":-0}}}')).toEqual(
      reference(Buffer.from('{"costUSD":0.1,"message":{"usage":{"input_tokens":123456789012345,"output_tokens":1e3,"cache_read_input_tokens":-0}}}')),
    );
  });

  it('checks lines at any byte alignment (strings are checked 4 bytes at a time)', () => {
    const text = '{"message":{"content":"ab\\\\\\"cd\\u00e9\\n","usage":{"input_tokens":1}},"uuid":"u"}';
    const big = Buffer.alloc(text.length + 8);
    for (let shift = 0; shift < 4; shift++) {
      big.write(text, shift);
      const b = big.subarray(shift, shift + Buffer.byteLength(text));
      expect(scan(b, FIELDS)).toEqual(reference(b));
      // a control byte anywhere, in a string or not, makes the line invalid
      for (let i = 0; i < b.length; i++) {
        const saved = b[i] as number;
        b[i] = 0x01;
        expect(scan(b, FIELDS)).toBeUndefined();
        b[i] = saved;
      }
    }
  });
});

function lines(content: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let s = 0;
  for (let i = content.indexOf(10); i !== -1; s = i + 1, i = content.indexOf(10, s)) out.push(content.subarray(s, i));
  if (s < content.length) out.push(content.subarray(s));
  return out;
}

function run(core: typeof fastCore, content: Buffer | string, file: string, kinds: EventKind[], chunkSize?: number): SessionfoldEvent[] {
  return parseSync(core, content, { file, kinds, ...(chunkSize !== undefined && { chunkSize }) });
}

describe('claude usage scanner over the fixtures', async () => {
  const files = [...(await jsonlFiles(REAL)), ...(await jsonlFiles(CONSTRUCTED)), ...(await jsonlFiles(PROGRESS))];

  it.each(files.map((f) => [f.slice(f.indexOf('fixtures/')), f]))('%s: every usage line agrees, and the core gives the same events', async (_name, file) => {
    const content = await readFile(file);
    for (const l of lines(content)) if (l.includes('"usage"')) expectAgrees(l);
    for (const kinds of [['usage'], ['session', 'usage']] as EventKind[][]) {
      const want = run(parseCore, content, file, kinds);
      expect(run(fastCore, content, file, kinds)).toEqual(want);
      expect(run(fastCore, content, file, kinds, 7)).toEqual(want);
    }
  });

  it('reads the usage lines of the real fixtures itself, leaving only the odd ones to JSON.parse', async () => {
    const state = fastCore.init({ file: FILE, options: normalizeReadOptions({ kinds: ['usage'] }) });
    for (const file of await jsonlFiles(REAL)) {
      let start = 0;
      for (const l of lines(await readFile(file))) {
        try {
          fastCore.line(state, l, start, () => {});
        } catch {
          // malformed lines are the reader's to count
        }
        start += l.length + 1;
      }
    }
    expect(state.scanned.fast).toBeGreaterThan(40);
    expect(state.scanned.fallback).toBe(0);
  });
});

describe('claude usage scanner inside the core (property)', () => {
  it('gives the same events as JSON.parse of every line, for usage and cost reads, whole and chunked', () => {
    const opening = JSON.stringify({ type: 'user', cwd: '/w', sessionId: SID, uuid: 'u0', message: { role: 'user', content: 'go' } });
    const titleLine = fc.constantFrom(
      JSON.stringify({ type: 'custom-title', customTitle: 'T', sessionId: SID }),
      '{"type" : "ai-title","aiTitle":"A usage title"}',
      JSON.stringify({ type: 'ai-title', aiTitle: { usage: 1 } }),
    );
    const fileLine: fc.Arbitrary<Buffer> = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(line, style).map(([l, st]) => Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') }))) },
      { weight: 2, arbitrary: fc.tuple(line, style, damage).map(([l, st, d]) => noLf(applyDamage(Buffer.from(serialize(l, { ...st, spaces: st.spaces.filter((x) => x !== '\n') })), d))) },
      { weight: 1, arbitrary: titleLine.map((t) => Buffer.from(t)) },
    );
    fc.assert(
      fc.property(fc.array(fileLine, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 64 }), (ls, chunk) => {
        const content = Buffer.concat([opening, ...ls].flatMap((l) => [Buffer.from(l), Buffer.from('\n')]));
        for (const kinds of [['usage'], ['session', 'usage'], ['session']] as EventKind[][]) {
          const want = run(parseCore, content, FILE, kinds);
          expect(run(fastCore, content, FILE, kinds)).toEqual(want);
          expect(run(fastCore, content, FILE, kinds, chunk)).toEqual(want);
        }
      }),
      { numRuns: 150 },
    );
  });
});
