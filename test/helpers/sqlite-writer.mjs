/**
 * An agent writing its database, in a process of its own (fcntl locks are per process, so a writer in the
 * test's own process would share the reader's locks and prove nothing). Driven over IPC:
 *   { id, exec: sql }                     run statements
 *   { id, run: sql, params: [[...], ...] } run one statement per parameter list, each its own transaction
 *   { id, loop: { sqls: [sql, ...] } }    commit the statements as one transaction, again and again, until
 *                                         { id, stop: true }; replies { commits, maxCommitMs, errors }
 *   { id, close: true }                   close the database (checkpoint, -wal and -shm removed) and exit
 * Every reply is { id, ok: true, ... } or { id, ok: false, error }. The database opens in WAL mode with a
 * busy timeout of 0: a commit that had to wait on a reader would fail, and is counted.
 */
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 0');
let looping;

function reply(msg) {
  process.send(msg);
}

process.on('message', (m) => {
  try {
    if (m.exec !== undefined) {
      db.exec(m.exec);
      reply({ id: m.id, ok: true });
    } else if (m.run !== undefined) {
      const st = db.prepare(m.run);
      for (const p of m.params) st.run(...p);
      reply({ id: m.id, ok: true });
    } else if (m.loop !== undefined) {
      const sts = m.loop.sqls.map((s) => db.prepare(s));
      const tx = db.transaction(() => {
        for (const st of sts) st.run();
      });
      looping = { commits: 0, maxCommitMs: 0, errors: 0, stop: false };
      const state = looping;
      const step = () => {
        if (state.stop) return;
        const t0 = performance.now();
        try {
          tx();
          state.commits++;
        } catch {
          state.errors++;
        }
        state.maxCommitMs = Math.max(state.maxCommitMs, performance.now() - t0);
        setImmediate(step);
      };
      step();
      reply({ id: m.id, ok: true });
    } else if (m.stop !== undefined) {
      looping.stop = true;
      reply({ id: m.id, ok: true, commits: looping.commits, maxCommitMs: looping.maxCommitMs, errors: looping.errors });
    } else if (m.close !== undefined) {
      db.close();
      reply({ id: m.id, ok: true });
      process.exit(0);
    }
  } catch (e) {
    reply({ id: m.id, ok: false, error: String(e) });
  }
});
reply({ id: 0, ok: true, ready: true });
