/**
 * Kilo CLI's settled replies are not trusted to stay as they are (`OpencodeFlavor.settledMessages` false):
 * Kilo's processor writes a subagent's cost into its parent's reply (`reconcileCost`), which may land after
 * the parent completed. So a warm usage read of `kilo.db`, and discovery's listing brought up to date, see a
 * completed reply rewritten with another cost, where OpenCode's codec (which trusts settled messages) reads
 * no row for the same write. The databases are the test's own (test/helpers/opencode-db.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kilo } from '../codecs/kilo/index.js';
import { fileId, fullListing, nextListing, sessionsOf } from '../codecs/opencode/listing.js';
import { opencode } from '../codecs/opencode/index.js';
import { newReadInfo, type Codec, type ReadCursor } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath, withSqliteSnapshot } from '../cursors/sqlite.js';
import { buildOpencodeDb, writeDb } from './helpers/opencode-db.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

const USAGE: EventKind[] = ['session', 'usage'];
const PARENT_REPLY = 'msg_ses_main_0002b';

let dir: string;

tempDirPerTest('sf-kilo-settled-', (d) => (dir = d));

interface Read {
  events: SessionfoldEvent[];
  cursor: ReadCursor | undefined;
  rows: number;
}

async function readUsage(codec: Codec, path: string, from?: ReadCursor): Promise<Read> {
  const info = newReadInfo();
  const r: Read = { events: [], cursor: undefined, rows: 0 };
  const options = { kinds: USAGE, info, resume: { ...(from && { from }), onCursor: (u: { cursor: ReadCursor }) => (r.cursor = u.cursor) } };
  for await (const e of codec.read(path, options)) r.events.push(e);
  r.rows = info.lines;
  return r;
}

const costOf = (events: readonly SessionfoldEvent[], id: string): number | undefined => {
  const e = events.find((x) => x.type === 'usage' && JSON.stringify(x).includes(id));
  return e?.type === 'usage' ? e.costUsd : undefined;
};

/** A database under `folder` named `name`, and the reconcileCost-style write: the completed parent reply's cost raised. */
function setUp(folder: string, name: string): { db: string; reconcile: () => void } {
  mkdirSync(join(dir, folder));
  const db = join(dir, folder, name);
  buildOpencodeDb(db, 3);
  const reconcile = () =>
    writeDb(db, (d) => d.prepare(`UPDATE message SET data = json_set(data, '$.cost', 9.5), time_updated = ? WHERE id = ?`).run(Date.now() * 10, PARENT_REPLY));
  return { db, reconcile };
}

describe('Kilo CLI: a completed reply rewritten with another cost', () => {
  it('a warm usage read of kilo.db sees it, as a cold read does; OpenCode\'s trusting read takes no row', async () => {
    const k = setUp('kilo', 'kilo.db');
    const o = setUp('opencode', 'opencode.db');
    const kPath = recordPath(k.db, 'ses_main');
    const oPath = recordPath(o.db, 'ses_main');
    const kFirst = await readUsage(kilo, kPath);
    const oFirst = await readUsage(opencode, oPath);
    expect(costOf(kFirst.events, PARENT_REPLY)).not.toBe(9.5);
    expect(costOf(kFirst.events, PARENT_REPLY)).toBe(costOf(oFirst.events, PARENT_REPLY));
    k.reconcile();
    o.reconcile();
    const kWarm = await readUsage(kilo, kPath, kFirst.cursor);
    const kCold = await readUsage(kilo, kPath);
    expect(costOf(kCold.events, PARENT_REPLY)).toBe(9.5);
    // the walk found the row: the read starts over or takes the reply again, and ends with the new cost
    expect(costOf(kWarm.events, PARENT_REPLY)).toBe(9.5);
    // OpenCode never writes a settled reply so; its read does not look, and reads its session row alone
    const oWarm = await readUsage(opencode, oPath, oFirst.cursor);
    expect(oWarm.rows).toBe(1);
    expect(kWarm.rows).toBeGreaterThan(1);
    expect(oWarm.events.filter((e) => e.type === 'usage')).toEqual([]);
  });

  it('discovery\'s listing of kilo.db brought up to date moves with it, equal to a full listing', () => {
    const k = setUp('kilo', 'kilo.db');
    const list = () => withSqliteSnapshot(k.db, (d) => fullListing(d, fileId(k.db), false));
    const old = list();
    expect(old.message.open).toEqual({});
    k.reconcile();
    const next = withSqliteSnapshot(k.db, (d) => nextListing(d, fileId(k.db), old, false));
    expect(next).toEqual(list());
    const main = (s: ReturnType<typeof sessionsOf>) => s.find((x) => x.id === 'ses_main')?.mtimeMs;
    expect(main(sessionsOf(next))).toBeGreaterThan(main(sessionsOf(old)) as number);
    // through the codec's discovery too
    const files = [...kilo.discoverSync!([join(dir, 'kilo')])];
    expect(files.find((f) => f.sessionId === 'ses_main')?.mtimeMs).toBe(main(sessionsOf(next)));
  });
});
