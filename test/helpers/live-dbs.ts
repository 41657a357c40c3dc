/**
 * The four database agents (OpenCode, Hermes, Goose, Cursor) in one scratch home, each database held open by
 * a writer process of its own with autocheckpoint off, as while the agent runs: every database has its -wal
 * and -shm, and the rows each writer commits after the builder live in the -wal only. `snapshotDbFiles`
 * records each database file's bytes, size and mtime, to show a command only read them.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CHAT_ID, WORKSPACE_HASH, writeChatStore, writeStateDb } from '../cursor-helpers.js';
import { writeGooseDb } from '../goose-helpers.js';
import { buildHermesDb, INSERT_MESSAGE as HERMES_MESSAGE, turn, UPSERT_USAGE, usage } from './hermes-db.js';
import { buildOpencodeDb, writeExchange } from './opencode-db.js';
import { startWriter, type Writer } from './sqlite-db.js';

/** The Goose session the writer adds after the builder: it lives in the -wal only. */
export const GOOSE_LIVE = '20260527_1';
export const GOOSE_LIVE_TEXT = 'Which tests are flaky?';

export interface LiveDbs {
  home: string;
  /** The CLI's environment: every agent's folder under `home`, the socket off. */
  env: NodeJS.ProcessEnv;
  opencode: string;
  hermes: string;
  goose: string;
  chatStore: string;
  ideState: string;
  /** Close the writers (checkpoint: -wal and -shm go) and remove the home. */
  close(): Promise<void>;
}

/** A writer on `path` that never checkpoints by itself, so its commits stay in the -wal. */
async function liveWriter(path: string): Promise<Writer> {
  const w = await startWriter(path);
  await w.exec('PRAGMA wal_autocheckpoint = 0');
  return w;
}

/**
 * The builders' databases under a new home (Hermes's with its reset session), then a writer per database: OpenCode's ses_main gains exchange 4,
 * Hermes's s_cont turn 9 and a usage row, Goose a session (GOOSE_LIVE), the Cursor stores a header change.
 */
export async function buildLiveDbs(): Promise<LiveDbs> {
  const home = mkdtempSync(join(tmpdir(), 'sf-live-dbs-'));
  const data = join(home, 'data');
  const config = join(home, 'config');
  const opencode = join(data, 'opencode', 'opencode.db');
  const hermes = join(home, '.hermes', 'state.db');
  const goose = join(data, 'goose', 'sessions', 'sessions.db');
  const chatStore = join(home, '.cursor', 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
  const ideState = join(config, 'Cursor', 'User', 'globalStorage', 'state.vscdb');
  mkdirSync(join(data, 'opencode'), { recursive: true });
  mkdirSync(join(home, '.hermes'));
  buildOpencodeDb(opencode, 3);
  buildHermesDb(hermes, { reset: true });
  writeGooseDb(goose);
  writeChatStore(chatStore).close();
  writeStateDb(ideState).close();
  const writers: Writer[] = [];
  try {
    for (const p of [opencode, hermes, goose, chatStore, ideState]) writers.push(await liveWriter(p));
    const [oc, he, go, chat, ide] = writers as [Writer, Writer, Writer, Writer, Writer];
    await writeExchange(oc, 'ses_main', 4);
    await he.run(HERMES_MESSAGE, turn('s_cont', 9));
    await he.run(UPSERT_USAGE, [usage('s_cont', 'claude-sonnet-4-6', 9)]);
    await go.run('INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      [GOOSE_LIVE, 'Flaky tests', 'user', '/home/dev/app', '2026-05-27 08:00:00', '2026-05-27 08:01:00', 700, 600, 100],
    ]);
    await go.run('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)', [
      [GOOSE_LIVE, 'user', JSON.stringify([{ type: 'text', text: GOOSE_LIVE_TEXT }]), 1779868800, JSON.stringify({ userVisible: true, agentVisible: true })],
    ]);
    await chat.exec('PRAGMA user_version = 1');
    await ide.exec('PRAGMA user_version = 1');
  } catch (e) {
    for (const w of writers) await w.kill();
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  for (const p of [opencode, hermes, goose, chatStore, ideState]) {
    if (!existsSync(`${p}-wal`) || !existsSync(`${p}-shm`) || statSync(`${p}-wal`).size === 0) throw new Error(`${p}: no live -wal and -shm`);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: data,
    XDG_CONFIG_HOME: config,
    XDG_CACHE_HOME: join(home, 'cache'),
    SESSIONFOLD_SOCKET: 'off',
    NO_COLOR: '1',
    COLUMNS: '200',
    TZ: 'UTC',
  };
  return {
    home,
    env,
    opencode,
    hermes,
    goose,
    chatStore,
    ideState,
    async close() {
      for (const w of writers) await w.close().catch(() => w.kill());
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export type DbFilesSnapshot = Record<string, { sha: string; size: number; mtimeMs: number } | 'absent'>;

/** Each database's main file, -wal and -shm: the sha-256 of its bytes, its size and mtime ('absent' when missing). */
export function snapshotDbFiles(dbs: readonly string[]): DbFilesSnapshot {
  const out: DbFilesSnapshot = {};
  for (const db of dbs) {
    for (const p of [db, `${db}-wal`, `${db}-shm`]) {
      if (!existsSync(p)) {
        out[p] = 'absent';
        continue;
      }
      const s = statSync(p);
      out[p] = { sha: createHash('sha256').update(readFileSync(p)).digest('hex'), size: s.size, mtimeMs: s.mtimeMs };
    }
  }
  return out;
}

/**
 * `sql` on a private copy of a live database and its -wal (the copy replays the -wal when it opens), so the
 * answer holds the rows only the -wal has, and the agent's files are never opened.
 */
export function sqlOnLiveCopy<T>(db: string, sql: string, ...params: unknown[]): T[] {
  const dir = mkdtempSync(join(tmpdir(), 'sf-live-copy-'));
  const copy = join(dir, 'copy.db');
  copyFileSync(db, copy);
  copyFileSync(`${db}-wal`, `${copy}-wal`);
  const d = new Database(copy);
  try {
    return d.prepare(sql).all(...params) as T[];
  } finally {
    d.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
