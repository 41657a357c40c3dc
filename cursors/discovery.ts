/**
 * A codec's `discover`, `discoverSync` and `locate` from its listing, for a codec whose listing names every
 * session by its native id: `locate` walks the listing until it meets the id. A database codec lists its
 * sessions as record paths with `databaseRecords`.
 */
import { join } from 'node:path';
import type { Codec, SessionFile } from './protocol/codec.js';
import { FILE, fileStat, listDir } from './list-dir.js';
import { recordPath } from './record-path.js';
import type { SqliteDatabase } from './sqlite.js';

export function fromSyncListing(list: (roots: readonly string[]) => Iterable<SessionFile>): Pick<Codec, 'discover' | 'discoverSync' | 'locate'> {
  return {
    discoverSync: list,
    async *discover(roots: readonly string[]) {
      yield* list(roots);
    },
    async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
      for (const f of list(roots)) if (f.sessionId === nativeId) return f;
      return undefined;
    },
  };
}

export function fromListing(discover: (roots: readonly string[]) => AsyncIterable<SessionFile>): Pick<Codec, 'discover' | 'locate'> {
  return {
    discover,
    async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
      for await (const f of discover(roots)) if (f.sessionId === nativeId) return f;
      return undefined;
    },
  };
}

/**
 * A session a database lists: its id, and whether it is a sub-agent's; `size` and `mtimeMs` when the row says
 * what of it changes (a length, a time of its last write), which then stand for the session's stat in place of
 * the database file's: a write to another session leaves them as they were. A codec that gives them must make
 * the database a dependency it stamps per session (`Codec.dependencyStamp`), for the change they cannot see.
 */
export interface DatabaseRecord {
  id: string;
  subagent?: boolean;
  size?: number;
  mtimeMs?: number;
}

/** A record's SessionFile: the database's, under the record path, with the record's own stat when it has one. */
function recordFile(f: SessionFile, r: DatabaseRecord): SessionFile {
  const out: SessionFile = { ...f, path: recordPath(f.path, r.id), sessionId: r.id };
  if (r.subagent === true) out.subagent = true;
  if (r.size !== undefined && r.mtimeMs !== undefined) {
    out.size = r.size;
    out.mtimeMs = r.mtimeMs;
    delete out.ino;
    delete out.ctimeMs;
  }
  return out;
}

/**
 * The sessions of each database in `files` as record paths (cursors/record-path.ts), `list` run on a read-only
 * snapshot of each. The SQLite driver loads at the first database; one that cannot be read as the agent's
 * (another program's file, or one being replaced) gives no session this time.
 */
export async function* databaseRecords(agent: string, files: Iterable<SessionFile>, list: (d: SqliteDatabase) => DatabaseRecord[]): AsyncGenerator<SessionFile> {
  for (const f of files) {
    let records: DatabaseRecord[] = [];
    try {
      const { agentSnapshot } = await import('./sqlite-events.js');
      records = agentSnapshot(agent, f.path, list);
    } catch {
      // not the agent's database this time: no sessions from it
    }
    for (const r of records) yield recordFile(f, r);
  }
}

/**
 * The file `name` in `dir` as `agent`'s SessionFile under `root`, with the stats its listing took; undefined
 * when `dir` holds no such file (a database codec's one database per folder: Crush, Goose, Z Code, Zed).
 */
export function namedFileIn(agent: string, root: string, dir: string, name: string): SessionFile | undefined {
  const e = listDir(dir).find((x) => x.kind === FILE && x.name === name);
  const st = e === undefined ? undefined : fileStat(dir, e);
  return st === undefined ? undefined : { agent, path: join(dir, name), root, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
}
