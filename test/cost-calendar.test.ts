import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, isoWeekKey, parseDateInZone, periodStart, ZoneCalendar } from '../src/cost/calendar.js';
import { eventTime } from '../src/cost/filter.js';

const ZONES = ['UTC', 'Europe/Paris', 'America/Los_Angeles', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Adelaide', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns'];

/** The slow, obviously right answer: a fresh formatter per instant. */
function referenceDay(ms: number, timeZone: string): string {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}`;
}

describe('ZoneCalendar', () => {
  it.each(ZONES)('day keys in %s match Intl at random instants (DST transitions included)', (tz) => {
    const cal = new ZoneCalendar(tz);
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('2019-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }), (ms) => {
        expect(cal.dayKey(ms)).toBe(referenceDay(ms, tz));
      }),
      { numRuns: 3000, seed: 42 },
    );
  });

  it('day keys are right on both sides of a DST switch (Europe/Paris, 2026-03-29 01:00Z)', () => {
    const cal = new ZoneCalendar('Europe/Paris');
    const t = Date.parse('2026-03-29T01:00:00Z');
    for (const d of [-1, 0, 1, 60_000, 3_600_000, -3_600_000]) expect(cal.dayKey(t + d)).toBe(referenceDay(t + d, 'Europe/Paris'));
    expect(cal.offsetAt(t - 1)).toBe(3_600_000);
    expect(cal.offsetAt(t)).toBe(7_200_000);
  });

  it('ISO weeks start on Monday and belong to the year of their Thursday', () => {
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
    expect(isoWeekKey(day('2026-01-01'))).toBe('2026-W01');
    expect(isoWeekKey(day('2025-12-29'))).toBe('2026-W01');
    expect(isoWeekKey(day('2025-12-28'))).toBe('2025-W52');
    expect(isoWeekKey(day('2021-01-03'))).toBe('2020-W53');
    expect(isoWeekKey(day('2021-01-04'))).toBe('2021-W01');
  });

  it('toInstant inverts dayKey at midnight', () => {
    for (const tz of ZONES) {
      const cal = new ZoneCalendar(tz);
      const t = cal.toInstant(2026, 7, 15);
      expect(cal.dayKey(t)).toBe('2026-07-15');
      expect(cal.dayKey(t - 1)).toBe('2026-07-14');
    }
  });

  it('rejects an unknown zone', () => {
    expect(() => new ZoneCalendar('Nowhere/Special')).toThrow(/Invalid option timeZone/);
  });
});

describe('parseDateInZone', () => {
  const paris = new ZoneCalendar('Europe/Paris');
  it('reads a bare date as the start of that day in the zone, or its end', () => {
    expect(parseDateInZone('2026-01-01', paris).toISOString()).toBe('2025-12-31T23:00:00.000Z');
    expect(parseDateInZone('20260101', paris).toISOString()).toBe('2025-12-31T23:00:00.000Z');
    expect(parseDateInZone('2026-01-01', paris, true).toISOString()).toBe('2026-01-01T22:59:59.999Z');
    expect(parseDateInZone('2026-07-01', paris).toISOString()).toBe('2026-06-30T22:00:00.000Z');
  });

  it('reads a wall time in the zone and an ISO instant as given', () => {
    expect(parseDateInZone('2026-01-01T10:30', paris).toISOString()).toBe('2026-01-01T09:30:00.000Z');
    expect(parseDateInZone('2026-01-01T10:30:00Z', paris).toISOString()).toBe('2026-01-01T10:30:00.000Z');
    expect(parseDateInZone('2026-01-01T10:30:00+02:00', paris).toISOString()).toBe('2026-01-01T08:30:00.000Z');
  });

  it.each(['yesterday', '2026-13-01', '2026-01-01T25'])('rejects %s', (s) => {
    expect(() => parseDateInZone(s, paris)).toThrow(/Invalid option since/);
  });
});

describe('eventTime', () => {
  it('reads codec timestamps exactly like Date.parse', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('1990-01-01T00:00:00Z'), max: Date.parse('2099-12-31T23:59:59Z') }), fc.constantFrom(0, 1, 2, 3, 6, 9), (ms, fraction) => {
        const iso = new Date(ms).toISOString(); // 2026-01-05T09:00:10.123Z
        const ts = fraction === 3 ? iso : fraction === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 20)}${`${iso.slice(20, 23)}000000`.slice(0, fraction)}Z`;
        expect(eventTime(ts)).toBe(Date.parse(ts));
      }),
      { numRuns: 3000, seed: 3 },
    );
  });

  it('reads every field combination of the fast path as Date.UTC does (overflowing days and hour 24 included)', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        // years from 1970, so that every expected value is a number (a NaN on both sides could not fail);
        // fractions of none to 9 digits (eventTime reads the first three)
        fc.record({ y: fc.integer({ min: 1970, max: 9999 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 31 }), h: fc.integer({ min: 0, max: 24 }), mi: fc.integer({ min: 0, max: 59 }), s: fc.integer({ min: 0, max: 59 }), frac: fc.stringMatching(/^[0-9]{0,9}$/) }),
        ({ y, mo, d, h, mi, s, frac }) => {
          const ts = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${frac === '' ? '' : `.${frac}`}Z`;
          const want = Date.UTC(y, mo - 1, d, h, mi, s, Number(`${frac}000`.slice(0, 3)));
          if (want <= 0) return; // only 1970-01-01T00:00:00.000Z: the sentinel, NaN below
          expect(eventTime(ts)).toBe(want);
        },
      ),
      { numRuns: 5000, seed: 11 },
    );
    for (let days = -800_000; days <= 3_000_000; days += 997) {
      const [y, m, d] = civilFromDays(days);
      expect(daysFromCivil(y, m, d)).toBe(days);
    }
    expect(eventTime('2025-02-31T00:00:00Z')).toBe(Date.UTC(2025, 1, 31));
    expect(eventTime('1969-12-31T23:59:59.999Z')).toBeNaN(); // before 1970: no time, as for the sentinel
    expect(eventTime('1970-01-01T00:00:00.000Z')).toBeNaN();
    expect(eventTime('1000-01-01T00:00:00Z')).toBeNaN();
    expect(eventTime('0099-01-01T00:00:00Z')).toBe(Date.UTC(99, 0, 1));
  });

  it('falls back to Date.parse for other forms and is NaN for missing or sentinel times', () => {
    expect(eventTime('2026-01-05T10:00:00+02:00')).toBe(Date.parse('2026-01-05T08:00:00Z'));
    expect(eventTime('2026-01-05')).toBe(Date.parse('2026-01-05T00:00:00Z'));
    expect(eventTime('1970-01-01T00:00:00.000Z')).toBeNaN();
    expect(eventTime('')).toBeNaN();
    expect(eventTime('2026-01-0xT10:00:00Z')).toBeNaN();
  });
});

describe('periodStart (cost report --last)', () => {
  // Wednesday 2026-03-04 01:30 UTC is Tuesday 2026-03-03 evening in New York (UTC-5).
  const now = Date.UTC(2026, 2, 4, 1, 30);
  it.each([
    ['UTC', 'day', 0, '2026-03-04T00:00:00.000Z'],
    ['UTC', 'day', 3, '2026-03-01T00:00:00.000Z'],
    ['UTC', 'week', 0, '2026-03-02T00:00:00.000Z'],
    ['UTC', 'week', 2, '2026-02-16T00:00:00.000Z'],
    ['UTC', 'month', 0, '2026-03-01T00:00:00.000Z'],
    ['UTC', 'month', 14, '2025-01-01T00:00:00.000Z'],
    ['America/New_York', 'day', 0, '2026-03-03T05:00:00.000Z'],
    ['America/New_York', 'week', 0, '2026-03-02T05:00:00.000Z'],
    // Two months back crosses no DST change; March 8 (spring forward) is after now.
    ['America/New_York', 'month', 2, '2026-01-01T05:00:00.000Z'],
  ] as const)('%s %s back %i starts at %s', (tz, unit, back, iso) => {
    expect(new Date(periodStart(new ZoneCalendar(tz), unit, back, now)).toISOString()).toBe(iso);
  });
});
