/**
 * `threads.db` stamped per thread (`Codec.dependencyStamp`, cursors/record-stamps.ts). Zed rewrites the
 * database at each save of any thread; a thread's read takes its own row and nothing else of the database
 * (index.ts `rowEvents`), so the row stamps it: its columns' digest, blob included. Equal stamps, equal rows,
 * equal events.
 */
import type { DiscoverOptions } from '../../cursors/protocol/codec.js';
import { createHash64 } from '../../cursors/ids.js';
import { recordStamper } from '../../cursors/record-stamps.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { PARSER_VERSION } from './descriptor.js';
import { CODEC_ID } from './paths.js';

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 1;

/**
 * A row's stamp: its columns in order, each by name, kind and length, then the XXH64 of their bytes (a blob's
 * as they are, a text's in UTF-8), by the kernel's synchronous hash (cursors/ids.ts `createHash64`: the stamps
 * are taken during discovery, before xxhash-wasm may have started).
 */
export function rowStamp(row: Record<string, unknown>): string {
  const h = createHash64();
  const shape: string[] = [];
  for (const [k, v] of Object.entries(row)) {
    const bytes = v instanceof Uint8Array ? v : Buffer.from(typeof v === 'string' ? v : String(v), 'utf8');
    shape.push(`${k}:${v instanceof Uint8Array ? 'b' : v === null ? 'z' : typeof v}:${bytes.byteLength}`);
    h.update(bytes);
  }
  return `${shape.join(',')}/${h.digest()}`;
}

/** Every row's stamp by thread id. */
function rowStamps(d: SqliteDatabase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of d.prepare('SELECT * FROM threads').iterate() as IterableIterator<Record<string, unknown>>) {
    if (typeof row.id === 'string') out[row.id] = rowStamp(row);
  }
  return out;
}

/** `Codec.dependencyStamp` of a thread's record path: its row's stamp (`rowStamp`). */
export const zedDependencyStamp: (file: string, dependency: string, options?: DiscoverOptions) => string | undefined = recordStamper('zed-rows', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, rowStamps);
