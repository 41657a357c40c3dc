/**
 * Where OpenCode keeps sessions: `Global.Path.data` = `$XDG_DATA_HOME/opencode` (default
 * `~/.local/share/opencode`), holding its database and, from before the database, the `storage/` JSON tree.
 * The database is `opencode.db` for the release channels and `opencode-<channel>.db` for any other build,
 * the channel's characters outside `[A-Za-z0-9._-]` made `-` (anomalyco/opencode
 * `packages/opencode/src/storage/db.ts` @ 89d1ccc3: `latest` and `beta`; `packages/core/src/database/database.ts`
 * @ 4dba5c9f: `latest`, `beta` and `prod`, or with `OPENCODE_DISABLE_CHANNEL_DB` set). The build's channel is
 * compiled in and unknown here, so every one of those names in the folder is read (`isDatabaseName`).
 *
 * `OPENCODE_DB` names the one database OpenCode opens instead (absolute, or relative to the data folder), or
 * `:memory:` for none on disk: the default roots are then that database alone, or none (descriptor.ts
 * `getDatabaseRoots`, which the registry calls without loading this module).
 *
 * A root may be that data folder, a `storage/` folder, a database file, or an `opencode export` JSON file.
 * Each session of a database is a record path `<db>#<session id>` (cursors/sqlite.ts `recordPath`) with a
 * fingerprint of its rows for a stat (db.ts `listDatabaseSessions`, listing.ts); each session of a tree is its
 * `session/<project>/<id>.json` file.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { memoizedListing, sqliteFileStamp } from '../../cursors/listing-memo.js';
import { recordPath, SCAN_CACHE_KIB, withSqliteSnapshot } from '../../cursors/sqlite.js';
import { fileId, fullListing, isListingState, nextListing, sessionsOf } from './listing.js';
import { CODEC_ID, PARSER_VERSION } from './descriptor.js';
import { followEntry } from '../../cursors/list-dir.js';

export { getOpencodeRoots } from './descriptor.js';

const DATABASE_NAME = /^opencode(?:-[A-Za-z0-9._-]*)?\.db$/;

/** `opencode.db`, or `opencode-<channel>.db` with the characters OpenCode leaves in a channel's name. */
export function isDatabaseName(name: string): boolean {
  return DATABASE_NAME.test(name);
}

/** Which agent's files these are: OpenCode's, or those of a fork that keeps them OpenCode's way (Kilo CLI). */
export interface OpencodeFlavor {
  agent: string;
  isDatabaseName: (name: string) => boolean;
  /**
   * The agent never rewrites a settled message in a way a read for `session` and `usage` sees (README.md,
   * "Messages that have settled", cited from OpenCode's source), so such reads and discovery's listing take
   * messages by rowid and read again only the open ones; false: they walk every message for one updated.
   */
  settledMessages: boolean;
}

export const OPENCODE_FLAVOR: OpencodeFlavor = { agent: CODEC_ID, isDatabaseName, settledMessages: true };

/** What is at `p`; undefined for nothing, something else, or what cannot be stat'ed (a locked folder). */
const kindOf = (p: string): 'file' | 'dir' | undefined => {
  const k = followEntry(p);
  return k === undefined ? undefined : k === 'dir' ? 'dir' : 'file';
};

function names(dir: string): { name: string; dir: boolean; file: boolean }[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** Goes up whenever the listing (listing.ts) of an unchanged database would differ, or its shape does. */
const LISTING_VERSION = 5;

/**
 * The sessions of one database, as record paths; a database that cannot be read gives none. Their listing is
 * a pass over every row, kept in `options.listingMemo` while the database and its `-wal` are unchanged (the
 * `-wal` stamped without its ctime, which a read as root moves: cursors/listing-memo.ts) and brought up to
 * date from there when they changed (listing.ts `nextListing`).
 */
export function* databaseFiles(db: string, root: string, agent: string = CODEC_ID, options?: DiscoverOptions, settled = true): Generator<SessionFile> {
  let sessions;
  try {
    const state = memoizedListing(options?.listingMemo, `opencode-db:${db}`, `${CODEC_ID}@${PARSER_VERSION}.l${LISTING_VERSION}${settled ? '' : 'w'}`, [db, `${db}-wal`], isListingState, (previous, ids) => {
      const file = ids?.[0] ?? fileId(db);
      // every query of a listing visits each page once (counts, ranges, grouped passes): a small page cache
      return withSqliteSnapshot(db, (d) => (previous === undefined ? fullListing(d, file, settled) : nextListing(d, file, previous, settled)), { cacheKiB: SCAN_CACHE_KIB });
    }, sqliteFileStamp);
    sessions = sessionsOf(state);
  } catch {
    return;
  }
  for (const s of sessions) {
    const f: SessionFile = { agent, path: recordPath(db, s.id), root, sessionId: s.id, size: s.size, mtimeMs: s.mtimeMs };
    if (s.parentId !== undefined) f.subagent = true;
    yield f;
  }
}

/** The session files of a storage tree: `session/<project>/<id>.json`. */
function* treeFiles(storage: string, root: string, agent: string): Generator<SessionFile> {
  const sessionDir = join(storage, 'session');
  for (const project of names(sessionDir)) {
    if (!project.dir) continue;
    for (const f of names(join(sessionDir, project.name))) {
      if (f.file && f.name.endsWith('.json')) yield { agent, path: join(sessionDir, project.name, f.name), root };
    }
  }
}

/** Every session under the roots: databases first (by name), then the storage tree. */
export function* discoverOpencode(roots: readonly string[], flavor: OpencodeFlavor = OPENCODE_FLAVOR, options?: DiscoverOptions): Generator<SessionFile> {
  const { agent, settledMessages } = flavor;
  for (const root of roots) {
    const kind = kindOf(root);
    if (kind === 'file') {
      if (root.endsWith('.json')) yield { agent, path: root, root };
      else yield* databaseFiles(root, root, agent, options, settledMessages);
      continue;
    }
    if (kind !== 'dir') continue;
    for (const e of names(root)) if (e.file && flavor.isDatabaseName(e.name)) yield* databaseFiles(join(root, e.name), root, agent, options, settledMessages);
    const storage = kindOf(join(root, 'storage', 'session')) === 'dir' ? join(root, 'storage') : kindOf(join(root, 'session')) === 'dir' ? root : undefined;
    if (storage !== undefined) yield* treeFiles(storage, root, agent);
  }
}
