/**
 * What a codec's `detect` looks at: the first record of a file's head, for JSONL (the first line) and for a
 * whole JSON document (the keys before its first nested value). Pure, over bytes the registry read.
 */

type Json = Record<string, unknown>;

/** The first non-empty line of `head`, parsed, when it is a complete JSON object. */
export function firstJsonLine(head: Buffer): Json | undefined {
  const text = head.toString('utf8');
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '') continue;
    try {
      const v = JSON.parse(t) as unknown;
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The `"key": "value"` string pairs (first value per key, at any depth) in the first `limit` bytes of a JSON
 * document: enough to recognise a whole-document format from the keys it opens with.
 */
export function headStrings(head: Buffer, limit = 4096): Map<string, string> {
  const text = head.subarray(0, limit).toString('utf8');
  const out = new Map<string, string>();
  if (!text.trimStart().startsWith('{')) return out;
  for (const m of text.matchAll(/"([A-Za-z_][\w]*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) if (!out.has(m[1] as string)) out.set(m[1] as string, m[2] as string);
  return out;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * The tables an SQLite database's head declares: the names in the `CREATE TABLE` statements of its schema, which
 * SQLite keeps as text in `sqlite_master`, on the first pages of a database that made its tables first. Empty
 * for a head that is not an SQLite database's. Names may be quoted with backticks, double quotes or brackets.
 */
export function sqliteTablesIn(head: Buffer): Set<string> {
  const out = new Set<string>();
  if (head.length < 16 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) return out;
  for (const m of head.toString('latin1').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?[`"[]?([A-Za-z_][\w]*)[`"\]]?\s*\(/gi)) out.add(m[1] as string);
  return out;
}
