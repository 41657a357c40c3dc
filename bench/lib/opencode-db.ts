/**
 * A large OpenCode database for the warm-read benchmarks (bench/sqlite-warm.ts, the opencode-warm topic):
 * OpenCode's real tables (test/helpers/opencode-db.ts) in WAL mode, exchanges round robin over the sessions,
 * each text part padded as a large tool output, until the file reaches a size; then 500 more exchanges
 * (1,000 messages, 3,000 parts) into one session or spread over all of them.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { exchange, INSERT_MESSAGE, INSERT_PART, INSERT_SESSION, OPENCODE_DDL, sessionRow } from '../../test/helpers/opencode-db.js';

const PAD = 'x'.repeat(3000); // a part's text: a large tool output, as OpenCode stores them

/** Insert exchanges round robin over `sessions` sessions until the database at `db` holds `bytes`; the exchanges made. */
export function generateOpencodeDb(db: string, bytes: number, sessions: number): number {
  mkdirSync(dirname(db), { recursive: true });
  const d = new Database(db);
  d.pragma('journal_mode = WAL');
  d.exec(OPENCODE_DDL);
  d.prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)').run('prj_1', '/work/proj', 1, 1);
  for (let s = 0; s < sessions; s++) d.prepare(INSERT_SESSION).run(...sessionRow(`ses_${s}`, s));
  const m = d.prepare(INSERT_MESSAGE);
  const p = d.prepare(INSERT_PART);
  let n = 0;
  const batch = d.transaction((from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      const x = exchange(`ses_${i % sessions}`, Math.floor(i / sessions) + 1);
      for (const r of x.messages) m.run(...r);
      for (const r of x.parts) {
        const row = [...r];
        const data = JSON.parse(row[5] as string) as { type: string; text?: string };
        if (data.type === 'text') row[5] = JSON.stringify({ ...data, text: `${data.text} ${PAD}` });
        p.run(...row);
      }
    }
  });
  while (statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0) < bytes) {
    batch(n, 2000);
    n += 2000;
    d.pragma('wal_checkpoint(TRUNCATE)');
  }
  d.close();
  return n;
}

/** 500 more exchanges from exchange number `from` (1,000 messages, 3,000 parts): into one session, or round robin over all `sessions`. */
export function appendExchanges(db: string, from: number, spread: 'one' | 'all', sessions: number): void {
  const d = new Database(db);
  const m = d.prepare(INSERT_MESSAGE);
  const p = d.prepare(INSERT_PART);
  d.transaction(() => {
    for (let i = from; i < from + 500; i++) {
      const x = exchange(spread === 'all' ? `ses_${i % sessions}` : 'ses_0', i + 1); // later than every message before, in every session
      for (const r of x.messages) m.run(...r);
      for (const r of x.parts) p.run(...r);
    }
  })();
  d.close();
}

/** The exchanges already in a database (two messages each): the next one's number. */
export function exchangesIn(db: string): number {
  const d = new Database(db, { readonly: true });
  const n = (d.prepare('SELECT count(*) AS n FROM message').get() as { n: number }).n / 2;
  d.close();
  return n;
}
