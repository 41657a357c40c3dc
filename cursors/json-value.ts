/**
 * Readers of loosely typed JSON values, for codecs that walk an agent's parsed documents: an object, a non-blank
 * string, the objects of an array, an ISO time. Each answers undefined (or an empty list) for a value of another
 * shape, so a codec reads a field it may not find without a check of its own.
 */

/** A JSON object. */
export type JsonRecord = Record<string, unknown>;

/** `v` when it is a JSON object (not an array, not null). */
export const rec = (v: unknown): JsonRecord | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonRecord) : undefined);

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
