/**
 * Several sessions of one database read together (`Codec.readBatch`: one snapshot, one pass over the rows)
 * give what reading each session alone gives (events, start, cursor, counts), and their stored events plus
 * what the warm reads add equal a cold read of each session: after appends into one session and into many,
 * after rows updated in place and a row deleted. The database, `-wal` and `-shm` stay byte- and
 * mtime-unchanged. Real databases with OpenCode's (and Hermes's, Goose's) tables in WAL mode, written by
 * another process.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { goose } from '../codecs/goose/index.js';
import { hermes } from '../codecs/hermes/index.js';
import { opencode } from '../codecs/opencode/index.js';
import type { Codec, ReadCursor, ResumeStart, RowCursor } from '../cursors/protocol/codec.js';
import { getParserString, newReadInfo, type ReadInfo } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { databaseIdentity, recordPath, withSqliteSnapshot } from '../cursors/sqlite.js';
import { readPartitionsSince } from '../cursors/sqlite-batch.js';
import { partitionSources, readRowsSince, type PartitionedSource } from '../cursors/sqlite-rows.js';
import { scanUsage } from '../src/scan/index.js';
import { newScanStats, type ScanStats, type UsageRecord } from '../src/scan/types.js';
import { S_BAD, S_EMPTY, S_LEDGER, S_MAIN, S_SUB, writeGooseDb } from './goose-helpers.js';
import { buildHermesDb, INSERT_MESSAGE as HERMES_MESSAGE, turn, UPSERT_USAGE, usage } from './helpers/hermes-db.js';
import { buildOpencodeDb, exchange, insertExchange, insertSession, writeDb, writeExchange } from './helpers/opencode-db.js';
import { startWriter, tempDirPerTest } from './helpers/sqlite-db.js';

let dir: string;
let ocDir: string;
let ocDb: string;
const SESSIONS = ['ses_main', 'ses_child', 'ses_3', 'ses_4', 'ses_5', 'ses_6'];
const writers = tempDirPerTest('sf-batch-', (d) => {
  dir = d;
  ocDir = join(d, 'opencode');
  mkdirSync(ocDir);
  ocDb = join(ocDir, 'opencode.db');
  buildOpencodeDb(ocDb, 3);
  writeDb(ocDb, (db) => {
    for (const [k, s] of SESSIONS.slice(2).entries()) insertSession(db, s, k + 3, 3);
  });
});

interface Read {
  events: SessionfoldEvent[];
  start: ResumeStart | undefined;
  cursor: ReadCursor | undefined;
  info: ReadInfo;
}

const kinds: SessionfoldEvent['type'][] = ['session', 'message', 'usage', 'tool_call', 'tool_result'];

function optionsFor(r: Read, from: ReadCursor | undefined) {
  return { kinds, info: r.info, resume: { from, onStart: (s: ResumeStart) => (r.start = s), onCursor: (u: { cursor: ReadCursor }) => (r.cursor = u.cursor) } };
}

const blank = (): Read => ({ events: [], start: undefined, cursor: undefined, info: newReadInfo() });

async function readAlone(session: string, from: ReadCursor | undefined): Promise<Read> {
  const r = blank();
  for await (const e of opencode.read(recordPath(ocDb, session), optionsFor(r, from))) r.events.push(e);
  return r;
}

/** One `readBatch` of the sessions `ids` of `db`, each from its cursor; what each read gave. */
async function readBatchOf(codec: Codec, db: string, ids: readonly string[], cursors: ReadonlyMap<string, ReadCursor | undefined>, opts = optionsFor): Promise<Read[]> {
  const reads = ids.map(blank);
  const its = await (codec.readBatch as NonNullable<Codec['readBatch']>)(ids.map((s, i) => ({ file: recordPath(db, s), options: opts(reads[i] as Read, cursors.get(s)) })));
  for (const [i, it] of its.entries()) for await (const e of it) reads[i]?.events.push(e);
  return reads;
}

const readTogether = (sessions: readonly string[], cursors: ReadonlyMap<string, ReadCursor | undefined>): Promise<Read[]> => readBatchOf(opencode, ocDb, sessions, cursors);

/** Bytes and mtime of the database and the files beside it. */
function filesOf(db: string): Record<string, { bytes: string; mtimeMs: number } | null> {
  const out: Record<string, { bytes: string; mtimeMs: number } | null> = {};
  for (const f of [db, `${db}-wal`, `${db}-shm`]) {
    const s = statSync(f, { throwIfNoEntry: false });
    out[f] = s === undefined ? null : { bytes: readFileSync(f).toString('base64'), mtimeMs: s.mtimeMs };
  }
  return out;
}

describe('sessions of one database read as a batch', () => {
  it('equal reads of each session alone and cold reads: appends into one and many sessions, updates in place, a deletion; no byte written', async () => {
    const w = await startWriter(ocDb); // live: -wal and -shm on disk
    writers.push(w);
    const cursors = new Map<string, ReadCursor | undefined>();
    const stored = new Map<string, SessionfoldEvent[]>();
    // the first batch has no cursors: every session is read whole, as alone
    const first = await readTogether(SESSIONS, cursors);
    for (const [i, s] of SESSIONS.entries()) {
      const alone = await readAlone(s, undefined);
      expect(first[i]).toEqual(alone);
      expect(alone.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
      cursors.set(s, alone.cursor);
      stored.set(s, alone.events);
    }

    /** One warm batch against each session read alone from the same cursors, and the stored events against cold reads. */
    const step = async (): Promise<Map<string, ResumeStart>> => {
      const files = filesOf(ocDb);
      const batch = await readTogether(SESSIONS, cursors);
      const starts = new Map<string, ResumeStart>();
      for (const [i, s] of SESSIONS.entries()) {
        const got = batch[i] as Read;
        expect(got).toEqual(await readAlone(s, cursors.get(s)));
        const start = got.start as ResumeStart;
        starts.set(s, start);
        stored.set(s, start.restarted ? got.events : [...(stored.get(s) ?? []), ...got.events]);
        cursors.set(s, got.cursor);
        expect(stored.get(s)).toEqual((await readAlone(s, undefined)).events);
      }
      expect(filesOf(ocDb)).toEqual(files);
      return starts;
    };

    // nothing new: every session resumes and yields nothing
    for (const start of (await step()).values()) expect(start).toMatchObject({ restarted: false });
    expect(SESSIONS.every((s) => cursors.get(s) !== undefined)).toBe(true);

    // three exchanges into one session
    for (let n = 10; n < 13; n++) await writeExchange(w, 'ses_main', n);
    let starts = await step();
    expect([...starts.values()].every((s) => !s.restarted)).toBe(true);
    expect(stored.get('ses_main')?.filter((e) => e.type === 'usage')).toHaveLength(6);

    // one exchange into every session
    for (const s of SESSIONS) await writeExchange(w, s, 20);
    starts = await step();
    expect([...starts.values()].every((s) => !s.restarted)).toBe(true);
    for (const s of SESSIONS) expect(stored.get(s)?.some((e) => e.type === 'usage' && e.timestamp !== '' && e.outputTokens === 60 + 7)).toBe(true);

    // in place: a tool part of a finished message (its output rewritten), an assistant message (its tokens),
    // a message's part deleted; the other sessions get a new exchange meanwhile
    const tool = exchange('ses_3', 1).parts[3] as unknown[];
    const toolData = JSON.parse(tool[5] as string) as { state: { output: string } };
    toolData.state.output = 'rewritten\n';
    await w.run('UPDATE part SET data = ?, time_updated = time_updated + 100000000 WHERE id = ?', [[JSON.stringify(toolData), tool[0]]]);
    const asst = 'msg_ses_4_0002b';
    await w.run(`UPDATE message SET data = json_set(data, '$.tokens.output', 500), time_updated = time_updated + 100000000 WHERE id = ?`, [[asst]]);
    await w.run('DELETE FROM part WHERE id = ?', [['prt_msg_ses_5_0001a_1']]);
    for (const s of ['ses_main', 'ses_child', 'ses_6']) await writeExchange(w, s, 30);
    starts = await step();
    expect(starts.get('ses_3')).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(starts.get('ses_4')).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(starts.get('ses_5')).toMatchObject({ restarted: true, reason: 'row-deleted' });
    for (const s of ['ses_main', 'ses_child', 'ses_6']) expect(starts.get(s)).toMatchObject({ restarted: false });
    expect(stored.get('ses_3')?.some((e) => e.type === 'tool_result' && JSON.stringify(e).includes('rewritten'))).toBe(true);
    expect(stored.get('ses_4')?.some((e) => e.type === 'usage' && e.outputTokens === 500 + 7)).toBe(true);

    // a session gone since discovery fails alone; the others of the batch are read
    const gone = await (opencode.readBatch as NonNullable<typeof opencode.readBatch>)(
      ['ses_main', 'ses_nope'].map((s) => ({ file: recordPath(ocDb, s), options: { resume: { from: cursors.get(s) } } })),
    );
    const [main, nope] = gone as [AsyncIterable<SessionfoldEvent>, AsyncIterable<SessionfoldEvent>];
    for await (const _ of main) expect.unreachable('nothing new in ses_main');
    await expect(async () => {
      for await (const _ of nope) expect.unreachable();
    }).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('one walk of each table and the partitions’ own index walks give the same rows and cursors', async () => {
    const sources: PartitionedSource[] = [
      { name: 'message', table: 'message', columns: 'id, session_id, data', updated: 'time_updated', partition: 'session_id' },
      { name: 'part', table: 'part', columns: 'id, message_id, data', updated: 'time_updated', partition: 'session_id' },
    ];
    const parser = getParserString(opencode);
    const identity = databaseIdentity(ocDb) as NonNullable<ReturnType<typeof databaseIdentity>>;
    const read = (fn: (db: Database.Database) => unknown) => withSqliteSnapshot(ocDb, fn);
    // one session ahead of the others, so the update marks differ between partitions
    writeDb(ocDb, (d) => insertExchange(d, 'ses_3', 30));
    let cursors = read((db) => SESSIONS.map((s) => readRowsSince(db, partitionSources(sources, s), undefined, parser, identity).cursor)) as RowCursor[];
    const w = await startWriter(ocDb);
    writers.push(w);
    for (const s of SESSIONS.slice(0, 4)) await writeExchange(w, s, 40);
    // updated in place with a later time; and the walk's lowest update mark lets ses_3's rows of exchange 30
    // through, which its own mark filters out
    await w.run('UPDATE part SET time_updated = time_updated + 100000000 WHERE id = ?', [['prt_msg_ses_6_0003b_4']]);
    await w.run('UPDATE message SET time_updated = time_updated + 100000000 WHERE id = ?', [['msg_ses_child_0001a']]);
    const reads = SESSIONS.map((key, i) => ({ key, from: cursors[i] }));
    const [walked, indexed, alone] = read((db) => [
      readPartitionsSince(db, sources, reads, parser, identity, { walkShare: 0 }),
      readPartitionsSince(db, sources, reads, parser, identity, { walkShare: Number.POSITIVE_INFINITY }),
      reads.map((r) => readRowsSince(db, partitionSources(sources, r.key), r.from, parser, identity)),
    ]) as [ReturnType<typeof readRowsSince>[], ReturnType<typeof readRowsSince>[], ReturnType<typeof readRowsSince>[]];
    expect(walked).toEqual(alone);
    expect(indexed).toEqual(alone);
    expect(alone.map((r) => r.reason)).toEqual([undefined, 'row-changed', undefined, undefined, undefined, 'row-changed']);
    expect(alone[0]?.rows.message).toHaveLength(2);
    expect(alone[0]?.rows.part).toHaveLength(6);
    // and from those cursors, with nothing new: nothing, by both ways
    cursors = walked.map((r) => r.cursor);
    const again = SESSIONS.map((key, i) => ({ key, from: cursors[i] }));
    const quiet = read((db) => readPartitionsSince(db, sources, again, parser, identity, { walkShare: 0 })) as ReturnType<typeof readRowsSince>[];
    expect(quiet.every((r) => !r.restarted && r.rows.message?.length === 0 && r.rows.part?.length === 0)).toBe(true);
  });
});

async function scan(cache: boolean, workers = 0): Promise<{ records: UsageRecord[]; stats: ScanStats }> {
  const stats = newScanStats();
  const records: UsageRecord[] = [];
  for await (const r of scanUsage({ agents: ['opencode'], roots: { opencode: [ocDir] }, env: { HOME: dir }, cache, cachePath: join(dir, 'cache.db'), workers, stats })) records.push(r);
  return { records, stats };
}

const key = (r: UsageRecord): string => `${r.file} ${r.dedupKey} ${r.inputTokens} ${r.outputTokens} ${r.cacheReadTokens} ${r.cacheWriteTokens} ${r.costUsd}`;
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

describe('the event cache reads the changed sessions of a database as one batch', () => {
  it('a warm scan and a warm `cost report` equal cold ones after appends into every session and an update in place', async () => {
    const cold = await scan(true);
    expect(cold.stats.fullReads).toBe(SESSIONS.length);
    const w = await startWriter(ocDb);
    writers.push(w);
    // replies still being written: their later writes below are read again
    for (const s of SESSIONS) await writeExchange(w, s, 50, { open: true });
    let files = filesOf(ocDb);
    // the batch is one task, run on a worker thread here
    const warm = await scan(true, 1);
    expect(warm.stats).toMatchObject({ resumed: SESSIONS.length, fullReads: 0, failed: 0, workers: 1 });
    expect(warm.records.map(key).sort()).toEqual((await scan(false)).records.map(key).sort());
    expect(warm.records).toHaveLength(cold.records.length + SESSIONS.length);
    expect(filesOf(ocDb)).toEqual(files);

    await w.run(`UPDATE message SET data = json_set(data, '$.tokens.input', 999), time_updated = time_updated + 100000000 WHERE id = ?`, [['msg_ses_3_0050b']]);
    await writeExchange(w, 'ses_6', 51);
    const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg-cache'), XDG_CONFIG_HOME: join(dir, 'config'), TZ: 'UTC', SESSIONFOLD_SOCKET: 'off' };
    const report = async (...extra: string[]) =>
      JSON.parse((await promisify(execFile)(process.execPath, [CLI, 'cost', 'report', '--json', '--group-by', 'agent', '--agent', 'opencode', ...extra], { env })).stdout) as Record<string, unknown>;
    await report(); // fills the CLI's cache
    await writeExchange(w, 'ses_child', 52);
    await w.run(`UPDATE message SET data = json_set(data, '$.tokens.cache.read', 5), time_updated = time_updated + 200000000 WHERE id = ?`, [['msg_ses_4_0050b']]);
    files = filesOf(ocDb);
    const warmReport = await report();
    const coldReport = await report('--no-cache');
    expect(warmReport.inputTokens).toBeGreaterThan(0);
    expect(warmReport).toEqual(coldReport);
    expect(filesOf(ocDb)).toEqual(files);
  }, 60_000);
});

describe('Hermes: sessions of state.db read as a batch', () => {
  it('equal reads of each session alone and cold reads after new messages in several sessions and a usage row updated', async () => {
    const db = join(dir, 'state.db');
    buildHermesDb(db);
    const ids = ['s_root', 's_cont', 's_branch', 's_task'];
    const one = async (codec: Codec, s: string, from: ReadCursor | undefined): Promise<Read> => {
      const r = blank();
      for await (const e of codec.read(recordPath(db, s), optionsFor(r, from))) r.events.push(e);
      return r;
    };
    const w = await startWriter(db);
    writers.push(w);
    const cursors = new Map<string, ReadCursor | undefined>();
    const stored = new Map<string, SessionfoldEvent[]>();
    for (const s of ids) {
      const r = await one(hermes, s, undefined);
      cursors.set(s, r.cursor);
      stored.set(s, r.events);
    }
    const step = async (): Promise<ResumeStart[]> => {
      const files = filesOf(db);
      const reads = await readBatchOf(hermes, db, ids, cursors);
      for (const [i, s] of ids.entries()) {
        const got = reads[i] as Read;
        expect(got).toEqual(await one(hermes, s, cursors.get(s)));
        stored.set(s, got.start?.restarted ? got.events : [...(stored.get(s) ?? []), ...got.events]);
        cursors.set(s, got.cursor);
        expect(stored.get(s)).toEqual((await one(hermes, s, undefined)).events);
      }
      expect(filesOf(db)).toEqual(files);
      return reads.map((r) => r.start as ResumeStart);
    };
    for (const s of ['s_root', 's_branch', 's_task']) await w.run(HERMES_MESSAGE, turn(s, 20));
    expect((await step()).map((st) => st.restarted)).toEqual([false, false, false, false]);
    await w.run(UPSERT_USAGE, [usage('s_cont', 'claude-sonnet-4-6', 9)]);
    for (const s of ids) await w.run(HERMES_MESSAGE, turn(s, 21));
    const starts = await step();
    expect(starts.map((st) => st.restarted)).toEqual([false, true, false, false]);
    expect(starts[1]?.reason).toBe('row-changed');
  });
});

describe('Goose: sessions of sessions.db read as a batch', () => {
  it.each([13, 17])('schema %i: equal reads of each session alone and cold reads, for usage and for the whole conversation, after new messages, a token count updated and calls recorded', async (version) => {
    const db = join(dir, `goose-${version}`, 'sessions.db');
    writeGooseDb(db, { version });
    const ids = version >= 15 ? [S_MAIN, S_SUB, S_EMPTY, S_BAD, S_LEDGER] : [S_MAIN, S_SUB, S_EMPTY, S_BAD];
    const w = await startWriter(db);
    writers.push(w);
    for (const kindsAsked of [['session', 'usage'], kinds] as SessionfoldEvent['type'][][]) {
      const opts = (r: Read, from: ReadCursor | undefined) => ({ ...optionsFor(r, from), kinds: kindsAsked });
      const one = async (s: string, from: ReadCursor | undefined): Promise<Read> => {
        const r = blank();
        for await (const e of goose.read(recordPath(db, s), opts(r, from))) r.events.push(e);
        return r;
      };
      const cursors = new Map<string, ReadCursor | undefined>();
      const stored = new Map<string, SessionfoldEvent[]>();
      let replacedSeen = 0;
      for (const s of ids) {
        const r = await one(s, undefined);
        cursors.set(s, r.cursor);
        stored.set(s, r.events);
      }
      const step = async (): Promise<void> => {
        const files = filesOf(db);
        const reads = await readBatchOf(goose, db, ids, cursors, opts);
        for (const [i, s] of ids.entries()) {
          const got = reads[i] as Read;
          expect(got).toEqual(await one(s, cursors.get(s)));
          const start = got.start as ResumeStart;
          // a resumed read yields again the last `replaced.usage` usage events (Goose counts tokens in place)
          const base = [...(stored.get(s) ?? [])];
          for (let k = base.length - 1, n = start.replaced.usage ?? 0; k >= 0 && n > 0; k--) {
            if (base[k]?.type === 'usage') {
              base.splice(k, 1);
              n--;
            }
          }
          replacedSeen += start.replaced.usage ?? 0;
          stored.set(s, start.restarted ? got.events : [...base, ...got.events]);
          cursors.set(s, got.cursor);
          expect(stored.get(s)).toEqual((await one(s, undefined)).events);
        }
        expect(filesOf(db)).toEqual(files);
      };
      const msg = 'INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)';
      const text = (t: string) => JSON.stringify([{ type: 'text', text: t }]);
      await w.run(msg, [
        [S_MAIN, 'user', text(`one more ${kindsAsked.length}`), 1779700000, '{"userVisible":true,"agentVisible":true}'],
        [S_SUB, 'assistant', text('and lib.rs'), 1779700001, '{"userVisible":true,"agentVisible":true}'],
      ]);
      await step();
      await w.run('UPDATE sessions SET accumulated_input_tokens = accumulated_input_tokens + 100, accumulated_total_tokens = accumulated_total_tokens + 100 WHERE id = ?', [[S_MAIN]]);
      await w.run(msg, [[S_BAD, 'user', text('again'), 1779786100, '{"userVisible":true,"agentVisible":true}']]);
      await step();
      if (version >= 15) {
        // calls as Goose records them: a ledger row each, and the totals
        const call = `INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction)
                      VALUES (?, ?, 'claude-sonnet-4-5-20250929', 800, 40, 840, 500, 0, NULL, 'estimated', 0)`;
        await w.run(call, [[S_LEDGER, 1779900000], [S_MAIN, 1779900001]]);
        await w.run('UPDATE sessions SET accumulated_input_tokens = accumulated_input_tokens + 800, accumulated_output_tokens = accumulated_output_tokens + 40 WHERE id = ?', [[S_LEDGER]]);
        await step();
      }
      expect(replacedSeen).toBeGreaterThan(0);
    }
  });
});
