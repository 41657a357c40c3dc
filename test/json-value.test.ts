/**
 * The loose JSON readers every codec shares (cursors/json-value.ts): the object test, and the epoch-milliseconds time, whose
 * copies in the codecs came in two readings: any time a Date holds, and the 2000–2200 window of a field that
 * may hold seconds instead.
 */
import { describe, expect, it } from 'vitest';
import { epochTime, isRec, msTime, rec } from '../cursors/json-value.js';

const MS_2000 = Date.UTC(2000, 0, 1);
const MS_2200 = Date.UTC(2200, 0, 1);

describe('msTime', () => {
  it('reads any positive count a Date holds, dropping a fraction of a millisecond', () => {
    expect(msTime(1_700_000_000_123.9)).toBe('2023-11-14T22:13:20.123Z');
    expect(msTime(1)).toBe('1970-01-01T00:00:00.001Z');
    expect(msTime(8.64e15)).toBe(new Date(8.64e15).toISOString());
  });

  it('refuses what is not a positive finite count within a Date', () => {
    for (const v of [0, -1, 8.64e15 + 1, Infinity, NaN, '1700000000000', null, undefined, {}]) expect(msTime(v)).toBeUndefined();
  });

  it('with plausible, reads only a time strictly between 2000 and 2200', () => {
    expect(msTime(1_700_000_000_000, { plausible: true })).toBe('2023-11-14T22:13:20.000Z');
    expect(msTime(1_700_000_000, { plausible: true })).toBeUndefined(); // seconds, not milliseconds
    expect(msTime(1_700_000_000)).toBe(new Date(1_700_000_000).toISOString());
    expect(msTime(MS_2000, { plausible: true })).toBeUndefined();
    expect(msTime(MS_2000 + 1, { plausible: true })).toBe('2000-01-01T00:00:00.001Z');
    expect(msTime(MS_2200 - 1, { plausible: true })).toBe(new Date(MS_2200 - 1).toISOString());
    expect(msTime(MS_2200, { plausible: true })).toBeUndefined();
  });
});

describe('epochTime', () => {
  it('reads seconds below 1e11 and milliseconds above, a bigint as a number, within 2000-2200', () => {
    expect(epochTime(1_700_000_000)).toBe('2023-11-14T22:13:20.000Z');
    expect(epochTime(1_700_000_000_123)).toBe('2023-11-14T22:13:20.123Z');
    expect(epochTime(1_700_000_000n)).toBe('2023-11-14T22:13:20.000Z');
    for (const v of [0, -1, 900_000_000, MS_2200, 1e20, NaN, '1700000000', null, undefined]) expect(epochTime(v)).toBeUndefined();
  });
});

describe('isRec and rec', () => {
  it('take a JSON object, never an array or null', () => {
    for (const v of [{}, { a: 1 }, Object.create(null)]) expect([isRec(v), rec(v)]).toEqual([true, v]);
    for (const v of [null, undefined, [], [{}], 'x', 1, true]) expect([isRec(v), rec(v)]).toEqual([false, undefined]);
  });
});
