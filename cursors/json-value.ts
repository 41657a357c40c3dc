/**
 * Readers of loosely typed JSON values, for codecs that walk an agent's parsed documents: an object, a non-blank
 * string, the objects of an array, an ISO time. Each answers undefined (or an empty list) for a value of another
 * shape, so a codec reads a field it may not find without a check of its own.
 */

/** A JSON object. */
export type JsonRecord = Record<string, unknown>;

/** Whether `v` is a JSON object (not an array, not null). */
export const isRec = (v: unknown): v is JsonRecord => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `v` when it is a JSON object (not an array, not null). */
export const rec = (v: unknown): JsonRecord | undefined => (isRec(v) ? v : undefined);

/** `v` when it is a string with a non-blank character. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The objects of `v` when it is an array; others in it are left out. */
export const recs = (v: unknown): JsonRecord[] => (Array.isArray(v) ? v.map(rec).filter((x): x is JsonRecord => x !== undefined) : []);

/** An ISO-8601 time string as ISO, when it parses. */
export function isoOf(v: unknown): string | undefined {
  const s = str(v);
  const ms = s === undefined ? NaN : Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The latest time a Date holds, in milliseconds since the epoch. */
const MAX_DATE_MS = 8.64e15;
/** 2000-01-01 and 2200-01-01 in milliseconds since the epoch. */
const MS_2000 = 946_684_800_000;
const MS_2200 = 7_258_118_400_000;

/**
 * A count of milliseconds since the epoch as an ISO time; undefined for anything else. By default any
 * positive count a Date holds; with `plausible`, only one strictly between 2000 and 2200, for a field an
 * agent may also fill with seconds or with another number, which that window tells from milliseconds.
 * A fraction of a millisecond is dropped.
 */
export function msTime(v: unknown, options: { plausible?: boolean } = {}): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  const inRange = options.plausible === true ? v > MS_2000 && v < MS_2200 : v > 0 && v <= MAX_DATE_MS;
  return inRange ? new Date(Math.trunc(v)).toISOString() : undefined;
}

/**
 * A count since the epoch in seconds or milliseconds (a number, or a bigint as SQLite may give a column) as an
 * ISO time; undefined outside 2000-2200 (`msTime`'s `plausible`). A count below 1e11 is seconds: as
 * milliseconds it would fall in 1973, as seconds it reaches 5138.
 */
export function epochTime(v: unknown): string | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number') return undefined;
  return msTime(n < 1e11 ? n * 1000 : n, { plausible: true });
}
