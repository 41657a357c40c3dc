/**
 * The server's watched discovery (src/serve/watch.ts) and a database's `-wal` whose stamp did not move (its
 * ctime alone did: a read as root, or the same mode set again). A stamp recorded under RACY_MS old does not
 * vouch: the event marks the database's sessions, so the next query lists them again, but starts no refresh
 * (`maybe`). A stamp recorded when it was old enough does: the event changes nothing (`unchanged`). A stamp
 * that moved starts a refresh (`changed`).
 */
import { chmodSync, mkdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RACY_MS } from '../cursors/listing-memo.js';
import { getCodec } from '../src/registry.js';
import { discoverSource } from '../src/scan/discover.js';
import { WatchedDiscovery } from '../src/serve/watch.js';
import { buildOpencodeDb, INSERT_SESSION, sessionRow } from './helpers/opencode-db.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

let ocDir: string;
let ocDb: string;
tempDirPerTest('sf-watch-stamps-', (d) => {
  ocDir = join(d, 'opencode');
  mkdirSync(ocDir);
  ocDb = join(ocDir, 'opencode.db');
});

const open: { close(): void }[] = [];
afterEach(() => {
  for (const x of open.splice(0)) x.close();
});

/** Long enough for the kernel's events to reach the watch callbacks. */
const events = (): Promise<void> => new Promise((r) => setTimeout(r, 150));

describe('a database -wal event whose stamp did not move', () => {
  it('marks the sessions without a refresh while the stamp is new, and is no change once it is old', async () => {
    buildOpencodeDb(ocDb, 2);
    const agent = new Database(ocDb); // OpenCode, still running: its -wal stays
    agent.pragma('wal_autocheckpoint = 0');
    agent.prepare(INSERT_SESSION).run(...sessionRow('ses_a', 5));
    let refreshes = 0;
    const w = new WatchedDiscovery(() => refreshes++);
    open.push(agent, w);
    const codec = getCodec('opencode');
    const discover = () => w.source(codec, [ocDir], () => discoverSource(codec, [ocDir]));
    const wal = `${ocDb}-wal`;
    const sameMode = () => chmodSync(wal, statSync(wal).mode & 0o7777);

    await discover();
    // A commit: the -wal's stamp moved. It starts a refresh, and its new stamp is too new to vouch.
    agent.prepare(INSERT_SESSION).run(...sessionRow('ses_b', 6));
    await events();
    expect(refreshes).toBeGreaterThan(0);
    expect((await discover()).map((f) => f.path.split('#')[1])).toContain('ses_b');
    await events();

    // `maybe`: the same stamp, not vouched for: no refresh, but the next query lists the database again.
    let before = { refreshes, relisted: w.stats.relisted };
    sameMode();
    await events();
    expect(refreshes).toBe(before.refreshes);
    await discover();
    expect(w.stats.relisted).toBe(before.relisted + 1);

    // The -wal's mtime set back: a moved stamp (a refresh), recorded old enough to vouch.
    const old = (Date.now() - 30 * RACY_MS) / 1000;
    utimesSync(wal, old, old);
    await events();
    expect(refreshes).toBeGreaterThan(before.refreshes);
    await discover();
    await events();

    // `unchanged`: the same stamp, vouched for: no refresh, and the next query is answered from the cache.
    before = { refreshes, relisted: w.stats.relisted };
    const cached = w.stats.cached;
    sameMode();
    await events();
    expect(refreshes).toBe(before.refreshes);
    await discover();
    expect([w.stats.relisted, w.stats.cached]).toEqual([before.relisted, cached + 1]);
  });
});
