/**
 * The event cache over database sessions: a warm scan serves unchanged sessions from the cache, resumes a
 * changed one from its RowCursor (only the new rows are read), and gives the totals a cold scan gives.
 * A whole database read as one path (its `-wal` a parse dependency) resumes from its RowCursor too when the
 * `-wal` changed. The server's watched discovery follows commits to a database.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermes } from '../codecs/hermes/index.js';
import { getCodec, registerCodec } from '../src/registry.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { discoverSource } from '../src/scan/discover.js';
import { WatchedDiscovery } from '../src/serve/watch.js';
import { scanUsage } from '../src/scan/index.js';
import { newScanStats, type ScanStats, type UsageRecord } from '../src/scan/types.js';
import { buildHermesDb, INSERT_MESSAGE as HERMES_MESSAGE, turn } from './helpers/hermes-db.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART, INSERT_SESSION, insertSession, sessionRow, writeDb, writeExchange } from './helpers/opencode-db.js';
import { startWriter, tempDirPerTest } from './helpers/sqlite-db.js';

let dir: string;
let ocDir: string;
let ocDb: string;
const writers = tempDirPerTest('sf-dbcache-', (d) => {
  dir = d;
  ocDir = join(d, 'opencode');
  mkdirSync(ocDir);
  ocDb = join(ocDir, 'opencode.db');
});

async function scan(agent: string, roots: string[], cache = true): Promise<{ records: UsageRecord[]; stats: ScanStats }> {
  const stats = newScanStats();
  const records: UsageRecord[] = [];
  for await (const r of scanUsage({ agents: [agent], roots: { [agent]: roots }, env: { HOME: dir }, cache, cachePath: join(dir, 'cache.db'), workers: 0, stats })) records.push(r);
  return { records, stats };
}

const total = (records: readonly UsageRecord[]) => records.reduce((n, r) => n + r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens, 0);

describe('the event cache over database sessions', () => {
  it('warm: unchanged sessions from the cache, a changed one resumed from its RowCursor (new rows only)', async () => {
    buildOpencodeDb(ocDb, 20);
    // more sessions, so that one changed session is a small part of the database
    writeDb(ocDb, (d) => {
      for (let s = 3; s <= 12; s++) insertSession(d, `ses_${s}`, s, 20);
    });
    const cold = await scan('opencode', [ocDir]);
    expect(cold.stats.fullReads).toBe(12);
    const coldBytes = cold.stats.bytesRead;

    const idle = await scan('opencode', [ocDir]);
    expect(idle.stats).toMatchObject({ unchanged: 12, resumed: 0, fullReads: 0, bytesRead: 0 });

    const w = await startWriter(ocDb);
    writers.push(w);
    const x = await writeExchange(w, 'ses_7', 21, { open: true }); // its reply still being written
    const warm = await scan('opencode', [ocDir]);
    expect(warm.stats).toMatchObject({ unchanged: 11, resumed: 1, fullReads: 0 });
    // the resumed read took the new message rows only
    expect(warm.stats.bytesRead).toBeGreaterThan(0);
    expect(warm.stats.bytesRead).toBeLessThan(coldBytes / 100);
    expect(total(warm.records)).toBe(total((await scan('opencode', [ocDir], false)).records));
    expect(warm.records.length).toBe(cold.records.length + 1);

    // a response finishing updates its message in place: the fingerprint moves, and the usage read, seeing
    // that the row changed is its session's last message, takes that message again and replaces its usage
    // event (`replaced.usage`) instead of reading the session again whole
    await w.exec(`UPDATE message SET time_updated = time_updated + 60000, data = json_set(data, '$.tokens.output', 9999, '$.time.completed', 1) WHERE id = '${x.ids.asst}'`);
    const updated = await scan('opencode', [ocDir]);
    expect(updated.stats).toMatchObject({ unchanged: 11, resumed: 1, fullReads: 0 });
    expect(total(updated.records)).toBe(total((await scan('opencode', [ocDir], false)).records));
    expect(total(updated.records)).toBe(total(warm.records) + 9999 - (40 + 21));
    // a message before the last one changed (a reply not completed, then one after it): that session is read
    // again whole (a restart counts as a full read)
    const y = exchange('ses_7', 22, { open: true });
    const z = exchange('ses_7', 23);
    await w.run(INSERT_MESSAGE, [...y.messages, ...z.messages]);
    await w.run(INSERT_PART, [...y.parts, ...z.parts]);
    expect((await scan('opencode', [ocDir])).stats).toMatchObject({ unchanged: 11, resumed: 1, fullReads: 0 });
    await w.exec(`UPDATE message SET time_updated = time_updated + 100000000, data = json_set(data, '$.tokens.output', 5000) WHERE id = '${y.ids.asst}'`);
    const earlier = await scan('opencode', [ocDir]);
    expect(earlier.stats).toMatchObject({ unchanged: 11, resumed: 0, fullReads: 1 });
    expect(total(earlier.records)).toBe(total((await scan('opencode', [ocDir], false)).records));
  });

  it('a streaming last message malformed once, then written back: each warm scan equals a cold one', async () => {
    buildOpencodeDb(ocDb, 3);
    const last = exchange('ses_main', 3).ids.asst;
    // a reply still being written (no `time.completed`), before the cache reads it
    writeDb(ocDb, (d) => d.prepare(`UPDATE message SET data = json_remove(data, '$.time.completed') WHERE id = ?`).run(last));
    await scan('opencode', [ocDir]);
    const sorted = (records: readonly UsageRecord[]) => records.map((r) => JSON.stringify([r.dedupKey, r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.costUsd])).sort();
    const step = async (sql: string) => {
      writeDb(ocDb, (d) => d.prepare(sql).run(last));
      const warm = await scan('opencode', [ocDir]);
      expect(warm.stats).toMatchObject({ resumed: 1, fullReads: 0 });
      const cold = await scan('opencode', [ocDir], false);
      expect(sorted(warm.records)).toEqual(sorted(cold.records));
      return warm.records;
    };
    // the row caught half-written: skipped and counted, its usage gone; then whole again, its usage back
    const valid = (await scan('opencode', [ocDir], false)).records.length;
    expect(await step("UPDATE message SET time_updated = time_updated + 60000, data = '{\"role\":' WHERE id = ?")).toHaveLength(valid - 1);
    const data = JSON.stringify({ ...(JSON.parse(exchange('ses_main', 3).messages[1]?.[4] as string) as object), finish: 'stop' });
    expect(await step(`UPDATE message SET time_updated = time_updated + 60000, data = '${data}' WHERE id = ?`)).toHaveLength(valid);
  });

  it('Hermes: a change to a session\u2019s row alone (a rename, the gateway\u2019s totals) reaches a warm list and report', async () => {
    const home = join(dir, 'hermes');
    mkdirSync(home);
    const db = join(home, 'state.db');
    buildHermesDb(db);
    const cachePath = join(dir, 'cache.db');
    const list = async () => new Map((await createSessionManager({ env: { HOME: dir }, roots: { hermes: [home] }, cachePath }).list('hermes', { subagents: true })).map((s) => [s.sessionId, s.title]));
    expect((await list()).get('s_branch')).toBe('Try another way');
    const cold = await scan('hermes', [home]);
    expect((await scan('hermes', [home])).stats).toMatchObject({ unchanged: 4, resumed: 0, fullReads: 0 });
    const w = await startWriter(db);
    writers.push(w);
    await w.exec("UPDATE sessions SET title = 'Renamed by hand' WHERE id = 's_branch'");
    expect((await list()).get('s_branch')).toBe('Renamed by hand');
    await w.exec("UPDATE sessions SET input_tokens = 80000 WHERE id = 's_task'");
    const warm = await scan('hermes', [home]);
    // the usage kinds' entries of s_branch (renamed) and s_task are read again; the other two stand
    expect(warm.stats).toMatchObject({ unchanged: 2 });
    expect(total(warm.records)).toBe(total((await scan('hermes', [home], false)).records));
    // s_task's row had no totals: its per-model row (1,001 input) stands, and the rest of the row's 80,000 comes on top
    expect(total(warm.records)).toBe(total(cold.records) + 80_000 - 1001);
  });

  it('a database read as one path: its -wal changed (the file did not), the read resumes from the RowCursor', async () => {
    // a codec whose sessions are whole databases (Cursor's CLI keeps one chat per store.db): Hermes's reader
    // over a state.db given as one path, whose parse dependency is its -wal
    registerCodec({ ...hermes, id: 'db-per-session', aliases: [], nativeSearch: undefined, discover: undefined as never, discoverSync: (roots) => roots.map((r) => ({ agent: 'db-per-session', path: r, root: r })) });
    const db = join(dir, 'state.db');
    buildHermesDb(db);
    expect(hermes.getParseDependencies(db)).toEqual([`${db}-wal`]);
    const cold = await scan('db-per-session', [db]);
    expect(cold.stats.fullReads).toBe(1);
    const w = await startWriter(db);
    writers.push(w);
    await w.run(HERMES_MESSAGE, turn('s_task', 20));
    await w.run(HERMES_MESSAGE, turn('s_task', 21));
    const warm = await scan('db-per-session', [db]);
    expect(warm.stats).toMatchObject({ unchanged: 0, resumed: 1, fullReads: 0 });
    expect(warm.stats.bytesRead).toBeLessThan(cold.stats.bytesRead);
    expect(total(warm.records)).toBe(total(cold.records));
    expect(total(warm.records)).toBe(total((await scan('db-per-session', [db], false)).records));
  });

  it('the server\u2019s watched discovery sees a commit to the -wal and equals a full discovery', async () => {
    buildOpencodeDb(ocDb, 2);
    const opencodeCodec = getCodec('opencode');
    const w = new WatchedDiscovery();
    const check = async () => {
      await new Promise((r) => setTimeout(r, 50));
      const full = await discoverSource(opencodeCodec, [ocDir]);
      expect(await w.source(opencodeCodec, [ocDir], () => discoverSource(opencodeCodec, [ocDir]))).toEqual(full);
      return full;
    };
    try {
      const first = await check();
      const writer = await startWriter(ocDb);
      writers.push(writer);
      await check(); // the writer opened the database: -wal and -shm appeared
      await writeExchange(writer, 'ses_main', 3);
      const after = await check();
      expect(after.find((f) => f.path.endsWith('#ses_main'))?.size).toBeGreaterThan(first.find((f) => f.path.endsWith('#ses_main'))?.size as number);
      await writer.run(INSERT_SESSION, [sessionRow('ses_new', 9)]);
      expect((await check()).map((f) => f.path.split('#')[1])).toEqual(['ses_main', 'ses_child', 'ses_new']);
    } finally {
      w.close();
    }
  });
});
