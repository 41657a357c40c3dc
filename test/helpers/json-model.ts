/**
 * A JSON model with duplicate keys, a serializer with adversarial spacing and escapes, and byte-level damage:
 * the generators the exact field scanner's property tests share (Claude, Codex, the native kernel).
 */
import fc from 'fast-check';
import type { FieldProjection } from '../../cursors/scan-fields.js';

export type J = null | boolean | number | string | J[] | { entries: [string, J][] };
export const obj = (entries: [string, J][]): J => ({ entries });

export interface Style {
  /** Whitespace choices (indexes cycle through `seed`). */
  spaces: string[];
  /** Escape one character of these keys with \uXXXX. */
  escapeKeys: Set<string>;
  /** Write these string values with \u escapes for ASCII letters. */
  escapeValues: boolean;
  seed: number[];
}

export function serialize(v: J, st: Style): string {
  let n = 0;
  const sp = () => st.spaces[(st.seed[n++ % st.seed.length] as number) % st.spaces.length] as string;
  const str = (s: string, isKey: boolean): string => {
    let out = JSON.stringify(s);
    if ((isKey && st.escapeKeys.has(s)) || (!isKey && st.escapeValues && /[a-z]/.test(s))) {
      const i = out.search(/[a-z]/);
      out = `${out.slice(0, i)}\\u${out.charCodeAt(i).toString(16).padStart(4, '0')}${out.slice(i + 1)}`;
    }
    return out;
  };
  const go = (x: J): string => {
    if (x === null || typeof x === 'boolean' || typeof x === 'number') return JSON.stringify(x);
    if (typeof x === 'string') return str(x, false);
    if (Array.isArray(x)) return `[${sp()}${x.map(go).join(`${sp()},${sp()}`)}${sp()}]`;
    return `{${sp()}${x.entries.map(([k, val]) => `${str(k, true)}${sp()}:${sp()}${go(val)}`).join(`${sp()},${sp()}`)}${sp()}}`;
  };
  return `${sp()}${go(v)}${sp()}`;
}

export const TRICKY = ['"usage"', '"usage":{"input_tokens":9}', '\\', '\\"', '"', '{', '}', '[', ']', ',', ':', 'usage', '"message":{', '\u0000', '\t', '\n', '😀', 'é', '世界', '\u2028', '\uD800', '\uDFFF', '-title"'];
export const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.array(fc.constantFrom(...TRICKY), { maxLength: 6 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
export const num: fc.Arbitrary<number> = fc.oneof(fc.nat({ max: 2_000_000 }), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 1e21, 2 ** 53 + 2, 0.1, 1.5e-7));
export const KEY_NAMES = ['usage', 'message', 'id', 'model', 'input_tokens', 'output_tokens', 'type', 'text', 'requestId', 'uuid', 'content', 'x'];
export const key = fc.oneof(fc.constantFrom(...KEY_NAMES), fc.string({ maxLength: 6 }));
export const scalar: fc.Arbitrary<J> = fc.oneof(fc.constant(null), fc.boolean(), num, text);
export const { value: anyValue } = fc.letrec<{ value: J }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(obj),
  ),
}));

/** Entries in random order, some dropped, some duplicated with a decoy value first. */
export function shuffled(entries: fc.Arbitrary<[string, J]>[], decoy: fc.Arbitrary<J>): fc.Arbitrary<[string, J][]> {
  return fc
    .tuple(fc.tuple(...entries), fc.array(fc.boolean(), { minLength: entries.length, maxLength: entries.length }), fc.array(fc.nat(), { minLength: entries.length, maxLength: entries.length }), fc.array(fc.tuple(fc.nat(), decoy), { maxLength: 2 }), fc.array(fc.tuple(key, anyValue), { maxLength: 2 }))
    .map(([all, keep, order, decoys, extra]) => {
      const kept = all.filter((_, i) => keep[i] !== false || i % 3 === 0);
      const out = kept.map((e, i) => [order[i] ?? 0, e] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
      for (const [at, v] of decoys) if (out.length > 0) out.splice(at % out.length, 0, [(out[at % out.length] as [string, J])[0], v]);
      return [...out, ...extra];
    });
}

export const PLAIN: Omit<Style, 'seed'> = { spaces: [''], escapeKeys: new Set(), escapeValues: false };
export const style: fc.Arbitrary<Style> = fc.record({
  spaces: fc.constantFrom<string[]>([''], ['', ' '], ['', ' ', '  ', '\t', '\r', '\n']),
  escapeKeys: fc.oneof({ weight: 4, arbitrary: fc.constant(new Set<string>()) }, { weight: 1, arbitrary: fc.subarray(['usage', 'message', 'id', 'model', 'uuid', 'input_tokens', 'text', 'x']).map((a) => new Set(a)) }),
  escapeValues: fc.boolean(),
  seed: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
});

export type Damage = ['truncate', number] | ['insert', number, string] | ['delete', number] | ['repeat', number, number] | ['runTogether', number];

/** Byte-level damage: truncation, a byte inserted or deleted, a slice repeated, two lines run together. */
export const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.tuple(fc.constant('truncate' as const), fc.nat()),
  fc.tuple(fc.constant('insert' as const), fc.nat(), fc.constantFrom(...'"\\{}[],:x0 \u0001\t\u001fe-.'.split(''))),
  fc.tuple(fc.constant('delete' as const), fc.nat()),
  fc.tuple(fc.constant('repeat' as const), fc.nat(), fc.integer({ min: 1, max: 40 })),
  fc.tuple(fc.constant('runTogether' as const), fc.nat()),
);

export function applyDamage(b: Buffer, d: Damage): Buffer {
  const at = d[1] % (b.length + 1);
  switch (d[0]) {
    case 'truncate':
      return b.subarray(0, at);
    case 'insert':
      return Buffer.concat([b.subarray(0, at), Buffer.from(d[2]), b.subarray(at)]);
    case 'delete':
      return Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
    case 'repeat':
      return Buffer.concat([b.subarray(0, at), b.subarray(at, at + d[2]), b.subarray(at)]);
    case 'runTogether':
      return Buffer.concat([b.subarray(0, at), b]);
  }
}

/** A line feed can only end a line: one that damage brings in becomes a space. */
export const noLf = (b: Buffer): Buffer => Buffer.from(b.map((c) => (c === 10 ? 32 : c)));

/** True when no key the scanner collects needs an escape (such keys are left to JSON.parse by design). */
export function plainCollectedKeys(v: J, p: FieldProjection): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return true;
  return v.entries.every(([k, x]) => {
    if (JSON.stringify(k).includes('\\')) return false;
    const sub = Object.prototype.hasOwnProperty.call(p, k) ? p[k] : undefined;
    return sub === undefined || sub === true || plainCollectedKeys(x, sub);
  });
}
