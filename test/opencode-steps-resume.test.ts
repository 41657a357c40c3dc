/**
 * OpenCode reads whose kinds take nothing from parts but the step parts (`session`, `usage`: the cost
 * report's) resume without walking `part`: new parts by a range on the rowid, the parts of new messages
 * through `part_message_id_id_idx`, deletions by the count and by the row at the watermark. Each case is
 * read three ways (one session alone, the whole database, a batch of both sessions), and the events held
 * plus what the warm read adds (or what a restarted read gives) equal a cold read of the same kinds, in
 * order (the whole database's as a set: its resumed events follow every session's): after appends, after tool parts rewritten in place (a tool finishing, prune's `time.compacted`),
 * after a step-finish added to an old message (with and without its message written), after a revert's
 * deletions, after a deleted top row whose rowid a new part (or message) takes, with a part written before
 * its message, and while a reply streams and completes. The rows each warm read takes show that a part
 * updated in place is never read, nor a completed reply written again.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART, insertExchange, insertRows, writeDb, type ExchangeOptions } from './helpers/opencode-db.js';
import { asAlone } from './helpers/row-cursor.js';
import { emptyRead, readCounted, resumeOptions, type Read } from './helpers/row-resume.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

const USAGE: EventKind[] = ['session', 'usage'];
const FULL: EventKind[] = ['session', 'message', 'usage', 'tool_call', 'tool_result'];
const SESSIONS = ['ses_main', 'ses_child'];
/** The cases a change is read for both ways: the cost report's kinds and every kind. */
const BOTH_KINDS: [name: string, kinds: EventKind[]][] = [
  ['usage', USAGE],
  ['full', FULL],
];

let db: string;
tempDirPerTest('sf-oc-steps-', (dir) => {
  db = join(dir, 'opencode.db');
  buildOpencodeDb(db, 3);
});

const readOne = (path: string, kinds: EventKind[], from?: ReadCursor): Promise<Read> => readCounted(opencode, path, from, kinds);

/** One `readBatch` of both sessions, each for its kinds and from its cursor. */
async function readBatch(kinds: readonly EventKind[][], froms: readonly (ReadCursor | undefined)[]): Promise<Read[]> {
  const reads = SESSIONS.map(emptyRead);
  const infos = reads.map((r, i) => resumeOptions(r, froms[i], kinds[i] ?? []));
  const its = await (opencode.readBatch as NonNullable<typeof opencode.readBatch>)(SESSIONS.map((s, i) => ({ file: recordPath(db, s), options: infos[i]?.options ?? {} })));
  for (const [i, it] of its.entries()) for await (const e of it) reads[i]?.events.push(e);
  reads.forEach((r, i) => (r.rows = infos[i]?.info.lines ?? 0));
  return reads;
}

/** One path read warm after each change: the events it holds, its cursor, and each warm read's start and rows. */
class Follower {
  held: SessionfoldEvent[] = [];
  cursor: ReadCursor | undefined;
  /** `sorted`: the whole database, whose resumed events come after every session's, where a cold read interleaves them by session. */
  constructor(
    readonly path: string,
    readonly kinds: EventKind[],
    readonly sorted = false,
  ) {}
  async prime(): Promise<void> {
    const r = await readOne(this.path, this.kinds);
    this.held = r.events;
    this.cursor = r.cursor;
  }
  /** A warm read; then the held events must equal a cold read's. */
  async warm(): Promise<Read> {
    const r = await readOne(this.path, this.kinds, this.cursor);
    this.take(r);
    const cold = (await readOne(this.path, this.kinds)).events;
    const order = (es: readonly SessionfoldEvent[]) => (this.sorted ? es.map((e) => JSON.stringify(e)).sort() : es);
    expect(order(this.held)).toEqual(order(cold));
    return r;
  }
  /** A resumed read's events after the held ones, less the last events of each kind it yields again (`replaced`). */
  take(r: Read): void {
    if (r.start?.restarted !== false) this.held = r.events;
    else {
      const kept = [...this.held];
      for (const [kind, n] of Object.entries(r.start.replaced)) {
        for (let left = n ?? 0, i = kept.length - 1; left > 0 && i >= 0; i--) {
          if (kept[i]?.type !== kind) continue;
          kept.splice(i, 1);
          left--;
        }
      }
      this.held = [...kept, ...r.events];
    }
    this.cursor = r.cursor;
  }
}

/** Every way of reading: ses_main alone, the whole database, both sessions as a batch (for `kinds`). */
class Readers {
  alone: Follower;
  whole: Follower;
  batch: Follower[];
  constructor(readonly kinds: EventKind[]) {
    this.alone = new Follower(recordPath(db, 'ses_main'), kinds);
    this.whole = new Follower(db, kinds, true);
    this.batch = SESSIONS.map((s) => new Follower(recordPath(db, s), kinds));
  }
  async prime(): Promise<void> {
    for (const f of [this.alone, this.whole, ...this.batch]) await f.prime();
  }
  /** Each way warm; the batch's reads equal each session's alone from the same cursors. Their starts and rows. */
  async warm(): Promise<{ alone: Read; whole: Read; batch: Read[] }> {
    const batch = await readBatch(
      SESSIONS.map(() => this.kinds),
      this.batch.map((f) => f.cursor),
    );
    for (const [i, f] of this.batch.entries()) {
      const r = batch[i] as Read;
      expect(asAlone(r)).toEqual(await readOne(f.path, this.kinds, f.cursor));
      f.take(r);
      expect(f.held).toEqual((await readOne(f.path, this.kinds)).events);
    }
    return { alone: await this.alone.warm(), whole: await this.whole.warm(), batch };
  }
}

const write = (fn: (w: Database.Database) => void, foreignKeys = true): void => writeDb(db, fn, foreignKeys);

const addExchange = (session: string, n: number, opts: ExchangeOptions = {}): void => write((w) => void insertExchange(w, session, n, opts));

const partData = (id: string): Record<string, unknown> => {
  const d = new Database(db, { readonly: true });
  const row = d.prepare('SELECT data FROM part WHERE id = ?').get(id) as { data: string };
  d.close();
  return JSON.parse(row.data) as Record<string, unknown>;
};

const rewritePart = (id: string, data: Record<string, unknown>): void =>
  write((w) => w.prepare('UPDATE part SET data = ?, time_updated = time_updated + 100000000 WHERE id = ?').run(JSON.stringify(data), id));

/** The message's tokens and cost removed (no update time: before the cursors are taken), so its usage comes from its steps. */
const dropTokens = (id: string): void =>
  write((w) => {
    const row = w.prepare('SELECT data FROM message WHERE id = ?').get(id) as { data: string };
    const { tokens: _t, cost: _c, ...rest } = JSON.parse(row.data) as Record<string, unknown>;
    w.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(rest), id);
  });

/** The message made a reply OpenCode has not completed (no `time.completed`; no update time: before the cursors are taken). */
const reopen = (id: string): void =>
  write((w) => {
    const row = w.prepare('SELECT data FROM message WHERE id = ?').get(id) as { data: string };
    const data = JSON.parse(row.data) as { time: Record<string, unknown> };
    w.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify({ ...data, time: { created: data.time.created } }), id);
  });

/** A message's data rewritten as `change` gives it, with a later update time. */
const rewriteMessage = (id: string, change: (data: Record<string, unknown>) => Record<string, unknown>, bump = 100000000): void =>
  write((w) => {
    const row = w.prepare('SELECT data FROM message WHERE id = ?').get(id) as { data: string };
    w.prepare('UPDATE message SET data = ?, time_updated = time_updated + ? WHERE id = ?').run(JSON.stringify(change(JSON.parse(row.data) as Record<string, unknown>)), bump, id);
  });

const usageOf = (events: readonly SessionfoldEvent[], messageId: string) => events.find((e) => e.type === 'usage' && e.messageId === messageId);

describe('opencode usage reads resume without walking part', () => {
  it('appends: only the new rows', async () => {
    const r = new Readers(USAGE);
    await r.prime();
    addExchange('ses_main', 4);
    const { alone, whole, batch } = await r.warm();
    for (const x of [alone, whole, ...batch]) expect(x.start).toMatchObject({ restarted: false });
    expect(alone.rows).toBe(2 + 6 + 1); // two messages, six parts, the session row
    expect(whole.rows).toBe(2 + 6 + 2);
    expect(batch.map((b) => b.rows)).toEqual([2 + 6 + 1, 1]);
    expect(alone.events.map((e) => e.type)).toEqual(['usage']);
    // a new message that sorts before the last one read: starts over
    addExchange('ses_main', 0);
    const early = await r.warm();
    for (const x of [early.alone, early.whole, early.batch[0]]) expect(x?.start).toMatchObject({ restarted: true, reason: 'row-changed' });
  });

  it('tool parts rewritten in place (a tool finishing, prune) are not read, and change nothing; a full read starts over', async () => {
    addExchange('ses_main', 4, { tool: 'running' });
    const usage = new Readers(USAGE);
    const full = new Readers(FULL);
    await usage.prime();
    await full.prime();
    // the running tool finishes; prune marks an old completed tool output compacted
    const running = partData('prt_msg_ses_main_0004b_3') as { state: Record<string, unknown> };
    rewritePart('prt_msg_ses_main_0004b_3', { ...running, state: { ...running.state, status: 'completed', output: 'done', time: { start: 1, end: 2 } } });
    const old = partData('prt_msg_ses_main_0001b_3') as { state: { time: Record<string, unknown> } };
    rewritePart('prt_msg_ses_main_0001b_3', { ...old, state: { ...old.state, output: '[Old tool result content cleared]', time: { ...old.state.time, compacted: 3 } } });
    const u = await usage.warm();
    for (const x of [u.alone, u.whole, ...u.batch]) {
      expect(x.start).toMatchObject({ restarted: false });
      expect(x.events).toEqual([]);
    }
    expect(u.alone.rows).toBe(1); // the session row: no part
    expect(u.whole.rows).toBe(2);
    const f = await full.warm();
    expect(f.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(f.alone.events.filter((e) => e.type === 'tool_result').map((e) => (e as { output: unknown }).output)).toContain('done');
  });

  it('a step-finish added to an old message not completed, with its message written in the same step and without: starts that session over', async () => {
    reopen('msg_ses_main_0002b'); // a reply OpenCode never completed (its process killed): not settled, so read again when written
    const r = new Readers(USAGE);
    await r.prime();
    const before = usageOf(r.alone.held, 'msg_ses_main_0002b');
    expect(before).toMatchObject({ singleRequest: true });
    // a second step of exchange 2, written as OpenCode writes it: a new part, then the message's tokens
    const step = { type: 'step-finish', reason: 'stop', cost: 0.5, tokens: { input: 10, output: 20, reasoning: 0, cache: { read: 30, write: 0 } } };
    write((w) => w.prepare(INSERT_PART).run('prt_msg_ses_main_0002b_9', 'msg_ses_main_0002b', 'ses_main', 1, 1, JSON.stringify(step)));
    let got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(got.batch[1]?.start).toMatchObject({ restarted: false });
    expect(usageOf(r.alone.held, 'msg_ses_main_0002b')).toMatchObject({ singleRequest: false, outputTokens: before?.type === 'usage' ? before.outputTokens : -1 });
    rewriteMessage('msg_ses_main_0002b', (data) => {
      const d = data as { tokens: { output: number }; cost: number };
      return { ...d, cost: d.cost + 0.5, tokens: { ...d.tokens, output: d.tokens.output + 20 } };
    });
    got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(usageOf(r.alone.held, 'msg_ses_main_0002b')).toMatchObject({ singleRequest: false, outputTokens: (before?.type === 'usage' ? before.outputTokens : 0) + 20 });
  });

  it('a message without tokens takes its steps: a step-finish added later is seen', async () => {
    dropTokens('msg_ses_main_0003b');
    const r = new Readers(USAGE);
    await r.prime();
    const step = { type: 'step-finish', reason: 'stop', cost: 0.25, tokens: { input: 1, output: 1000, reasoning: 0, cache: { read: 0, write: 0 } } };
    write((w) => w.prepare(INSERT_PART).run('prt_msg_ses_main_0003b_9', 'msg_ses_main_0003b', 'ses_main', 1, 1, JSON.stringify(step)));
    const got = await r.warm();
    expect(got.whole.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(usageOf(r.whole.held, 'msg_ses_main_0003b')).toMatchObject({ singleRequest: false });
  });

  it('a revert: the last message and its parts removed, then parts of the message kept; each starts over', async () => {
    addExchange('ses_main', 4);
    const r = new Readers(USAGE);
    await r.prime();
    write((w) => {
      w.prepare('DELETE FROM part WHERE message_id = ?').run('msg_ses_main_0004b');
      w.prepare('DELETE FROM message WHERE id = ?').run('msg_ses_main_0004b');
    });
    let got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(usageOf(r.alone.held, 'msg_ses_main_0004b')).toBeUndefined();
    // a revert to a part: the parts after it go, its message stays as it was
    write((w) => w.prepare('DELETE FROM part WHERE id IN (?, ?)').run('prt_msg_ses_main_0003b_4', 'prt_msg_ses_main_0003b_5'));
    got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(got.batch[1]?.start).toMatchObject({ restarted: false });
  });

  it('the top part deleted and its rowid taken by a new part: starts over (the count alone balances)', async () => {
    // the top row of part is ses_child's last step-finish; without tokens on its message, its usage came from it
    dropTokens('msg_ses_child_0003b');
    const fresh = new Readers(USAGE);
    await fresh.prime();
    expect(usageOf(fresh.whole.held, 'msg_ses_child_0003b')).toBeDefined();
    const top = () => {
      const d = new Database(db, { readonly: true });
      const t = d.prepare('SELECT max(rowid) AS r FROM part').get() as { r: number };
      d.close();
      return t.r;
    };
    const mark = top();
    write((w) => w.prepare('DELETE FROM part WHERE id = ?').run('prt_msg_ses_child_0003b_5'));
    addExchange('ses_child', 4); // six parts: the first takes the deleted rowid
    expect(top()).toBe(mark + 5);
    const got = await fresh.warm();
    expect(got.whole.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(got.batch[1]?.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(usageOf(fresh.whole.held, 'msg_ses_child_0003b')).toBeUndefined();
  });

  it('the top message deleted and its rowid taken by a new message: starts over (the count alone balances)', async () => {
    const r = new Readers(USAGE);
    await r.prime();
    // the top row of message is ses_child's last reply; its parts stay (no cascade), so only messages move
    write((w) => w.prepare('DELETE FROM message WHERE id = ?').run('msg_ses_child_0003b'), false);
    addExchange('ses_child', 4); // its prompt takes the deleted rowid, its reply the next: one row more, one above the mark
    const got = await r.warm();
    expect(got.whole.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(got.batch[1]?.start).toMatchObject({ restarted: true, reason: 'row-deleted' });
    expect(got.alone.start).toMatchObject({ restarted: false });
    expect(usageOf(r.whole.held, 'msg_ses_child_0003b')).toBeUndefined();
  });

  it.each(BOTH_KINDS)('%s: a part written before its message: read with the message, through the message index', async (_name, kinds) => {
    const r = new Readers(kinds);
    await r.prime();
    const x = exchange('ses_main', 4);
    // its reply without tokens: its usage comes from the step-finish part alone
    const reply = x.messages[1] as unknown[];
    const { tokens: _t, cost: _c, ...rest } = JSON.parse(reply[4] as string) as Record<string, unknown>;
    reply[4] = JSON.stringify(rest);
    write((w) => {
      for (const p of x.parts) w.prepare(INSERT_PART).run(...p);
    }, false);
    let got = await r.warm(); // parts of no message: the read starts over, as a full read ignores them
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    write((w) => {
      for (const m of x.messages) w.prepare(INSERT_MESSAGE).run(...m);
    });
    got = await r.warm();
    for (const g of [got.alone, got.whole, got.batch[0]]) expect(g?.start).toMatchObject({ restarted: false });
    expect(got.alone.rows).toBe(2 + 6 + 1); // the messages, their six parts from the index, the session row
    expect(usageOf(got.alone.events, x.ids.asst)).toMatchObject({ singleRequest: true, outputTokens: 40 + 4 + 7 });
  });

  it('a reply streaming as the last message: taken again with its parts, its usage replaced, no restart', async () => {
    const x = exchange('ses_main', 4, { tool: 'running' });
    const [user, reply] = x.messages as [unknown[], unknown[]];
    const done = JSON.parse(reply[4] as string) as Record<string, unknown> & { tokens: { output: number }; time: { created: number; completed: number } };
    const { tokens: _t, cost: _c, finish: _f, ...rest } = done;
    // until its last write, a reply has no `time.completed` (OpenCode's processor sets it at the end)
    const streaming = { ...rest, time: { created: done.time.created } };
    const open = (output: number) => ({ ...done, tokens: { ...done.tokens, output }, time: { created: done.time.created } });
    // each write later than every row before it (exchange 5's included), as OpenCode's clock has it
    const setReply = (data: Record<string, unknown>, bump: number) =>
      write((w) => w.prepare('UPDATE message SET data = ?, time_updated = ? WHERE id = ?').run(JSON.stringify(data), (reply[3] as number) + bump * 1_000_000, x.ids.asst));
    write((w) => {
      w.prepare(INSERT_MESSAGE).run(...user);
      w.prepare(INSERT_MESSAGE).run(...reply.slice(0, 4), JSON.stringify(streaming));
      for (const p of x.parts.slice(0, 5)) w.prepare(INSERT_PART).run(...p); // no step-finish yet
    });
    const r = new Readers(USAGE);
    await r.prime();
    expect(usageOf(r.alone.held, x.ids.asst)).toBeUndefined();
    // its first step ends: the step-finish part, then the reply with the step's tokens
    write((w) => w.prepare(INSERT_PART).run(...(x.parts[5] as unknown[])));
    setReply(open(done.tokens.output), 100);
    let got = await r.warm();
    for (const g of [got.alone, got.batch[0]]) expect(g?.start).toEqual({ restarted: false, replaced: { usage: 0 } });
    expect(got.whole.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(got.alone.events.map((e) => e.type)).toEqual(['usage']);
    expect(got.alone.rows).toBe(1 + 5 + 1); // the reply, its five parts, the session row
    // a second step: its parts, then the reply's tokens summed; and the tool rewritten in place meanwhile
    const step2 = { type: 'step-finish', reason: 'stop', cost: 0.5, tokens: { input: 10, output: 20, reasoning: 0, cache: { read: 30, write: 0 } } };
    write((w) => {
      w.prepare(INSERT_PART).run(`${x.ids.asst}_6`, x.ids.asst, 'ses_main', 1, 1, JSON.stringify({ type: 'step-start' }));
      w.prepare(INSERT_PART).run(`${x.ids.asst}_7`, x.ids.asst, 'ses_main', 1, 1, JSON.stringify(step2));
    });
    setReply(open(done.tokens.output + 20), 200);
    got = await r.warm();
    for (const g of [got.alone, got.batch[0]]) expect(g?.start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect(usageOf(r.alone.held, x.ids.asst)).toMatchObject({ singleRequest: false, outputTokens: done.tokens.output + 20 + 7 });
    expect(r.alone.held.filter((e) => e.type === 'usage' && e.messageId === x.ids.asst)).toHaveLength(1);
    // written again while the next exchange comes in: still the last message the cursor read
    setReply(open(done.tokens.output + 30), 300);
    addExchange('ses_main', 5);
    got = await r.warm();
    expect(got.alone.start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect(got.alone.events.map((e) => e.type)).toEqual(['usage', 'usage']);
    // no longer the last message: a change to it starts over, as before; so does it completing
    setReply(open(done.tokens.output + 40), 400);
    got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    setReply({ ...done, tokens: { ...done.tokens, output: done.tokens.output + 40 } }, 500);
    got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(usageOf(r.alone.held, x.ids.asst)).toMatchObject({ outputTokens: done.tokens.output + 40 + 7, timestamp: new Date(done.time.completed).toISOString() });
    // completed: written again without a change to its usage (OpenCode's loop sets an error or a structured
    // output after the processor's last write): not read again, nothing restarts
    setReply({ ...done, tokens: { ...done.tokens, output: done.tokens.output + 40 }, error: { name: 'StructuredOutputError', data: { message: 'none', retries: 0 } } }, 600);
    got = await r.warm();
    for (const g of [got.alone, got.whole, ...got.batch]) expect(g.start).toMatchObject({ restarted: false });
    expect(got.alone.rows).toBe(1); // the session row
    expect(got.alone.events).toEqual([]);
    // the last message, not completed, moving in the order: starts over
    const next = exchange('ses_main', 6);
    write((w) => {
      w.prepare(INSERT_MESSAGE).run(...(next.messages[0] as unknown[]));
      const data = JSON.parse((next.messages[1] as unknown[])[4] as string) as { time: { created: number } };
      w.prepare(INSERT_MESSAGE).run(...(next.messages[1] as unknown[]).slice(0, 4), JSON.stringify({ ...data, time: { created: data.time.created } }));
    });
    await r.warm();
    rewriteMessage(next.ids.asst, (data) => ({ ...data, time: { created: 1 } }), 700_000_000);
    got = await r.warm();
    expect(got.alone.start).toMatchObject({ restarted: true, reason: 'row-changed' });
  });

  it.each(BOTH_KINDS)('%s: a new message whose own creation time sorts before the last one (its column does not) starts over', async (_name, kinds) => {
    const r = new Readers(kinds);
    await r.prime();
    const x = exchange('ses_main', 4);
    // `data.time.created` is what places a message (a cold read, the cursor); its column says later. Still
    // after the session's creation: an older reply would be a fork's copy (README "Forks of a session")
    for (const m of x.messages) {
      const data = JSON.parse(m[4] as string) as { time: { created: number } };
      m[4] = JSON.stringify({ ...data, time: { ...data.time, created: data.time.created - 15_000 } });
    }
    write((w) => insertRows(w, x));
    const got = await r.warm();
    for (const g of [got.alone, got.whole, got.batch[0]]) expect(g?.start).toMatchObject({ restarted: true, reason: 'row-changed' });
    expect(r.alone.held.filter((e) => e.type === 'usage').map((e) => (e as { messageId?: string }).messageId)).toContain(x.ids.asst);
  });

  it('one batch of a usage read and a full read gives what each alone gives', async () => {
    const kindsOf = [USAGE, FULL];
    const cold = await Promise.all(SESSIONS.map((s, i) => readOne(recordPath(db, s), kindsOf[i] as EventKind[])));
    addExchange('ses_main', 4);
    addExchange('ses_child', 4);
    const reads = await readBatch(
      kindsOf,
      cold.map((c) => c.cursor),
    );
    for (const [i, s] of SESSIONS.entries()) {
      expect(asAlone(reads[i] as Read)).toEqual(await readOne(recordPath(db, s), kindsOf[i] as EventKind[], cold[i]?.cursor));
      expect(reads[i]?.start).toMatchObject({ restarted: false });
    }
    expect(reads[0]?.events.map((e) => e.type)).toEqual(['usage']);
    expect(reads[1]?.events.map((e) => e.type)).toContain('tool_result');
  });

  it('a usage cursor never resumes a full read, nor a full cursor a usage read', async () => {
    const u = await readOne(db, USAGE);
    const f = await readOne(db, FULL);
    expect((await readOne(db, FULL, u.cursor)).start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
    expect((await readOne(db, USAGE, f.cursor)).start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
  });
});
