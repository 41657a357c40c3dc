/**
 * `threads.db` stamped per thread (`Codec.dependencyStamp`, cursors/record-stamps.ts). Zed rewrites the
 * database at each save of any thread; a thread's read takes its own row and nothing else of the database
 * (index.ts `rowEvents`), so the row stamps it: its columns' digest, blob included. Equal stamps, equal rows,
 * equal events.
 */
import type { DiscoverOptions } from '../../cursors/protocol/codec.js';
import { recordStamper, rowStamp } from '../../cursors/record-stamps.js';
import type { SqliteDatabase } from '../../cursors/sqlite.js';
import { PARSER_VERSION } from './descriptor.js';
import { CODEC_ID } from './paths.js';

/** Goes up whenever the stamps of the same rows would differ. */
const STAMP_VERSION = 2;

/** Every row's stamp by thread id (cursors/record-stamps.ts `rowStamp`: every column, the blob by its bytes). */
function rowStamps(d: SqliteDatabase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of d.prepare('SELECT * FROM threads').iterate() as IterableIterator<Record<string, unknown>>) {
    if (typeof row.id === 'string') out[row.id] = rowStamp(row);
  }
  return out;
}

/** `Codec.dependencyStamp` of a thread's record path: its row's stamp (`rowStamp`). */
export const zedDependencyStamp: (file: string, dependency: string, options?: DiscoverOptions) => string | undefined = recordStamper('zed-rows', `${CODEC_ID}@${PARSER_VERSION}.s${STAMP_VERSION}`, rowStamps);
