/**
 * codecs/codex/tokens.ts's counter tests (anyDecrease, fitsWithin, isZeroTok, eqTok), field by field: each
 * spells Tok's fields out, so each field must decide on its own, and a field Tok gains must be added there
 * (the list below is Tok's keys, which `satisfies` has the compiler check against Tok).
 */
import { describe, expect, it } from 'vitest';
import { anyDecrease, eqTok, fitsWithin, isZeroTok, type Tok } from '../codecs/codex/tokens.js';

const BASE: Tok = { input: 100, cached: 40, cacheWrite: 10, output: 30, reasoning: 5, total: 130 };
/** Tok's fields, from a literal of the type (a field Tok gains fails to compile until it is listed). */
const FIELDS = Object.keys({ input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0 } satisfies Record<keyof Tok, number>) as (keyof Tok)[];
const ZERO: Tok = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0 };

describe('the Codex counter tests, field by field', () => {
  it.each(FIELDS)('%s alone decides a decrease, a fit, a zero (total aside) and an equality', (f) => {
    const lower = { ...BASE, [f]: BASE[f] - 1 };
    const higher = { ...BASE, [f]: BASE[f] + 1 };
    expect(anyDecrease(lower, BASE)).toBe(true);
    expect(anyDecrease(higher, BASE)).toBe(false);
    expect(fitsWithin(higher, BASE)).toBe(false);
    expect(fitsWithin(lower, BASE)).toBe(true);
    // a count of total alone is no token (the fill_to_context_window row, tokens.ts isZeroTok)
    expect(isZeroTok({ ...ZERO, [f]: 1 })).toBe(f === 'total');
    expect(eqTok(higher, BASE)).toBe(false);
    expect(eqTok(BASE, higher)).toBe(false);
  });

  it('holds a counter equal to itself, and the zero counter zero', () => {
    expect(anyDecrease(BASE, BASE)).toBe(false);
    expect(fitsWithin(BASE, BASE)).toBe(true);
    expect(eqTok(BASE, { ...BASE })).toBe(true);
    expect(isZeroTok(ZERO)).toBe(true);
    expect(isZeroTok(BASE)).toBe(false);
  });
});
