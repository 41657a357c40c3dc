/**
 * `parsesAsDate` (cursors/date-string.ts) decides the agents' `YYYY-MM-DDTHH:MM:SS[.fraction]Z` itself and
 * must answer exactly as `!Number.isNaN(Date.parse(s))` for every string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsesAsDate } from '../cursors/date-string.js';

const byDateParse = (s: string): boolean => !Number.isNaN(Date.parse(s));
const two = (n: number): string => String(n).padStart(2, '0');

describe('parsesAsDate', () => {
  it('answers as Date.parse for every month and day, the range edges and fraction lengths', () => {
    const seen: string[] = [];
    for (let mo = 0; mo <= 13; mo++) {
      for (let d = 0; d <= 32; d++) seen.push(`2025-${two(mo)}-${two(d)}T12:00:00Z`, `2024-${two(mo)}-${two(d)}T00:00:00.000Z`);
    }
    for (const h of [0, 23, 24, 25, 99]) for (const mi of [0, 59, 60]) for (const sec of [0, 59, 60, 61]) seen.push(`2025-06-15T${two(h)}:${two(mi)}:${two(sec)}Z`, `2025-06-15T${two(h)}:${two(mi)}:${two(sec)}.000Z`);
    for (let n = 0; n <= 12; n++) seen.push(`2025-06-15T12:34:56${n === 0 ? '.' : `.${'7'.repeat(n)}`}Z`);
    for (const y of ['0000', '0001', '0099', '1969', '1970', '9999']) seen.push(`${y}-01-01T00:00:00Z`);
    seen.push('2025-06-15T12:34:56', '2025-06-15T12:34:56z', '2025-06-15 12:34:56Z', '2025-06-15T12:34:56+00:00', '+002025-06-15T12:34:56Z', '2025-6-15T12:34:56Z');
    seen.push('', '[trimmed]', '2025', '2025-06-15', '2025-06-15T12:34Z', '2025-06-15T1a:34:56Z', '2025-06-15T12:34:56.1a3Z', ' 2025-06-15T12:34:56Z');
    let plain = 0;
    for (const s of seen) {
      expect(parsesAsDate(s), s).toBe(byDateParse(s));
      if (byDateParse(s)) plain++;
    }
    expect(plain).toBeGreaterThan(400);
  });

  it('answers as Date.parse for generated and mutated timestamps', () => {
    const iso = fc.date({ min: new Date(Date.UTC(0, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }).map((d) => d.toISOString());
    const mutated = fc.tuple(iso, fc.nat(), fc.constantFrom('0', '9', ':', '-', '.', 'T', 'Z', ' ', '', 'x', '00')).map(([s, at, c]) => {
      const i = at % (s.length + 1);
      return at % 2 === 0 ? s.slice(0, i) + c + s.slice(i + 1) : s.slice(0, i) + c + s.slice(i);
    });
    fc.assert(
      fc.property(fc.oneof(iso, mutated, fc.string({ maxLength: 30 })), (s) => {
        expect(parsesAsDate(s)).toBe(byDateParse(s));
      }),
      { numRuns: 20_000, seed: 17 },
    );
  });
});
