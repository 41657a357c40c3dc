/**
 * `serve` and databases: a session that an agent adds to a database it already has (opencode.db, Hermes's
 * state.db) shows in the next served `sessions list` and `cost report`, with no sweep: a change of the database
 * or its `-wal` re-lists that database's sessions (src/serve/watch.ts). The writers keep their connections open,
 * so the new rows live in the `-wal` only, as while the agent runs. A change of the `-wal`'s or `-shm`'s ctime
 * alone (what every read as root does: SQLite re-owns them to the database's owner) is no change: the server
 * does not refresh on it, so it does not refresh on its own reads; the same for a Cursor chat store, a session
 * file that is a database itself.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeServed } from '../src/cli/served-compute.js';
import { runServedCommand } from '../src/cli/served.js';
import { runCli } from '../src/cli/run.js';
import { RACY_MS } from '../cursors/listing-memo.js';
import { startServer, type ServerHandle } from '../src/serve/server.js';
import { buildHermesDb, INSERT_MESSAGE as HERMES_MESSAGE, INSERT_SESSION as HERMES_SESSION, turn, UPSERT_USAGE, usage } from './helpers/hermes-db.js';
import { buildOpencodeDb, emptyOpencodeDb, INSERT_SESSION, insertExchange, sessionRow } from './helpers/opencode-db.js';
import { sink } from './sessions-helpers.js';
import { appendChatTurn, CHAT_ID, WORKSPACE_HASH, writeChatStore } from './cursor-helpers.js';

let home: string;
let env: NodeJS.ProcessEnv;
let server: ServerHandle;
let socket: string;
let ocDb: string;
let hermesDb: string;
let emptyDb: string;

/** One command through the server (it must answer) and locally: both outputs, which must be equal. */
async function both(args: string[]): Promise<string> {
  const out = sink();
  const err = sink();
  const served = await runServedCommand(args, { stdout: out, stderr: err, env: { ...env, SESSIONFOLD_SOCKET: socket, SESSIONFOLD_CACHE: join(home, 'served.db') }, cwd: home });
  expect(served).toBe(0);
  const lout = sink();
  const lerr = sink();
  expect(await runCli(args, { stdout: lout, stderr: lerr, env: { ...env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: join(home, 'local.db') } })).toBe(0);
  expect({ out: out.text(), err: err.text() }).toEqual({ out: lout.text(), err: lerr.text() });
  return out.text();
}

const ids = async (agent: string): Promise<string[]> => (JSON.parse(await both(['sessions', 'list', agent, '--json', '--subagents'])) as { sessionId: string }[]).map((s) => s.sessionId).sort();
/** The sessions of `agent` in a served `cost report` (which discovers through the server's watcher). */
const costed = async (agent: string): Promise<string[]> =>
  Object.keys((JSON.parse(await both(['cost', 'report', '--json', '--group-by', 'session', '--agent', agent, '--tz', 'UTC'])) as { breakdowns: Record<string, unknown> }).breakdowns)
    .map((k) => k.slice(k.lastIndexOf(':') + 1))
    .sort();

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'sf-serve-db-'));
  const data = join(home, 'data');
  mkdirSync(join(data, 'opencode'), { recursive: true });
  mkdirSync(join(home, '.hermes'));
  ocDb = join(data, 'opencode', 'opencode.db');
  emptyDb = join(data, 'opencode', 'opencode-beta.db');
  hermesDb = join(home, '.hermes', 'state.db');
  buildOpencodeDb(ocDb, 2);
  buildHermesDb(hermesDb);
  // a second channel's database that has no session yet
  emptyOpencodeDb(emptyDb);
  env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: data, XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), TZ: 'UTC' };
  socket = join(home, 'sf.sock');
  // no sweep for an hour: only the notifications can show the new sessions
  server = await startServer({ socket, compute: computeServed, sweepMs: 3_600_000 });
});

afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('serve sees sessions added inside a database', () => {
  it('opencode: a new session row (and its messages) in the -wal of a database the agent holds open', async () => {
    const db = new Database(ocDb); // the agent, still running: its commits stay in the -wal
    try {
      db.prepare('SELECT count(*) FROM session').get();
      expect(await ids('opencode')).toEqual(['ses_child', 'ses_main']);
      expect(await costed('opencode')).toEqual(['ses_child', 'ses_main']);
      db.prepare(INSERT_SESSION).run(...sessionRow('ses_new', 9));
      insertExchange(db, 'ses_new', 1);
      expect(await ids('opencode')).toEqual(['ses_child', 'ses_main', 'ses_new']);
      expect(await costed('opencode')).toEqual(['ses_child', 'ses_main', 'ses_new']);
    } finally {
      db.close();
    }
    expect(server.stats.discovery.full).toBeGreaterThan(0);
  }, 60_000);

  it('opencode: the first session of a database that had none, its -wal already there', async () => {
    const db = new Database(emptyDb);
    try {
      db.prepare('SELECT count(*) FROM session').get(); // the agent's connection: the -wal exists from here on
      expect(await costed('opencode')).not.toContain('ses_beta');
      const full = server.stats.discovery.full;
      db.prepare(INSERT_SESSION).run(...sessionRow('ses_beta', 3));
      insertExchange(db, 'ses_beta', 1);
      expect(await costed('opencode')).toContain('ses_beta');
      expect(await ids('opencode')).toContain('ses_beta');
      expect(server.stats.discovery.full).toBe(full); // from the notifications, not a discovery from scratch
    } finally {
      db.close();
    }
  }, 60_000);

  it('hermes: a new session row in state.db\'s -wal', async () => {
    const db = new Database(hermesDb);
    try {
      db.prepare('SELECT count(*) FROM sessions').get();
      expect(await ids('hermes')).toEqual(['s_branch', 's_cont', 's_root', 's_task']);
      const before = await costed('hermes');
      db.prepare(HERMES_SESSION).run('s_late', 'cli', 'claude-sonnet-4-6', '{}', null, 1767000900, null, null, '/work/app', 'main', 'anthropic', 'A late one');
      for (const r of turn('s_late', 20)) db.prepare(HERMES_MESSAGE).run(...r);
      db.prepare(UPSERT_USAGE).run(...usage('s_late', 'claude-sonnet-4-6', 1));
      expect(await ids('hermes')).toEqual(['s_branch', 's_cont', 's_late', 's_root', 's_task']);
      expect(await costed('hermes')).toEqual([...before, 's_late'].sort());
    } finally {
      db.close();
    }
    // nothing fell back to a sweep: every later discovery of these sources came from the notifications
    expect(server.stats.discovery.relisted).toBeGreaterThan(0);
  }, 60_000);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wait until the server has refreshed nothing for `quietMs`; false when it still refreshes after `maxMs`. */
async function quiet(quietMs: number, maxMs: number): Promise<boolean> {
  const end = Date.now() + maxMs;
  let seen = server.stats.refreshes;
  let since = Date.now();
  while (Date.now() < end) {
    await sleep(50);
    if (server.stats.refreshes !== seen) {
      seen = server.stats.refreshes;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return true;
  }
  return false;
}

/**
 * Serve beside an agent that keeps its database `db` open (its -wal and -shm stay): idle, the server does not
 * refresh, even when the -wal's and -shm's ctime moves; `write` (a commit) starts refreshes, and `listed`
 * (a served command) then shows `written`.
 */
async function idleBeside(db: string, listed: () => Promise<string[]>, write: () => void, written: string): Promise<void> {
  expect(existsSync(`${db}-wal`) && existsSync(`${db}-shm`)).toBe(true);
  // written long ago: only a stamp old enough is trusted to say "unchanged" (git's racily clean rule)
  const t = (Date.now() - 60_000) / 1000;
  for (const f of [db, `${db}-wal`]) utimesSync(f, t, t);
  expect(await listed()).not.toContain(written);
  // as root, each read re-owns the -wal: a server that took that for a change would refresh forever
  expect(await quiet(500, 3 * RACY_MS)).toBe(true);
  const refreshes = server.stats.refreshes;
  // their ctime alone moves, for any user: the same mode again
  const stats = [`${db}-wal`, `${db}-shm`].map((f) => [f, statSync(f)] as const);
  for (const [f, st] of stats) chmodSync(f, st.mode & 0o7777);
  for (const [f, st] of stats) expect([statSync(f).size, statSync(f).mtimeMs]).toEqual([st.size, st.mtimeMs]);
  await sleep(500);
  expect(server.stats.refreshes).toBe(refreshes);
  // a commit still counts: the server works ahead on it, and serves it
  write();
  expect(await quiet(500, 3 * RACY_MS)).toBe(true);
  expect(server.stats.refreshes).toBeGreaterThan(refreshes);
  expect(await listed()).toContain(written);
}

describe('serve and a database the agent keeps open', () => {
  it('opencode: refreshes on a write, not on a change of the -wal’s or -shm’s ctime alone', async () => {
    const db = new Database(ocDb); // the agent: a writer that never checkpoints
    db.pragma('wal_autocheckpoint = 0');
    try {
      db.prepare(INSERT_SESSION).run(...sessionRow('ses_idle', 11));
      await idleBeside(ocDb, () => costed('opencode'), () => insertExchange(db, 'ses_idle', 1), 'ses_idle');
    } finally {
      db.close();
    }
  }, 60_000);

  it('cursor: the same for a CLI chat store, a session file that is itself a database', async () => {
    const store = join(home, '.cursor', 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
    const db = writeChatStore(store); // cursor-agent, still running
    db.pragma('wal_autocheckpoint = 0');
    try {
      // the report's scan discovers through the server's watcher (Cursor records no usage: its sources say so)
      const titles = async (): Promise<string[]> => {
        const report = JSON.parse(await both(['cost', 'report', '--agent', 'cursor', '--json'])) as { sources: { files: number }[] };
        expect(report.sources.reduce((n, x) => n + x.files, 0)).toBe(1);
        return (JSON.parse(await both(['sessions', 'list', 'cursor', '--json'])) as { title: string }[]).map((r) => r.title);
      };
      expect(await titles()).toEqual(['Build failure']);
      await idleBeside(store, titles, () => appendChatTurn(db, [{ role: 'user', content: '<user_query>Thanks.</user_query>' }], 'Build fixed'), 'Build fixed');
    } finally {
      db.close();
    }
  }, 60_000);
});
