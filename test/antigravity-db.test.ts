/**
 * Antigravity's conversation databases (codecs/antigravity/README.md, "Tokens"): real SQLite files with the
 * readers' tables in a temp HOME, beside the real step-log fixtures. Token totals are computed by hand from
 * the blobs below; a malformed blob is skipped and counted; a conversation with a step log and a database is
 * one session whose usage is counted once; the built CLI reports the tokens; nothing in the agent's folders
 * changes (bytes, mtimes, listing).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antigravity, decodeGenRow, priceModelName } from '../codecs/antigravity/index.js';
import Database from 'better-sqlite3';
import { newReadInfo, type CursorUpdate, type ReadCursor, type ResumeStart, type SessionFile } from '../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { ProtobufError } from '../cursors/protobuf.js';
import { ANTIGRAVITY_LAYOUT, layOutAntigravity, transcriptOf } from './helpers/antigravity-layout.js';
import { buildAntigravityDb, genBlob, trajectoryBlob, usageBlob } from './helpers/antigravity-db.js';
import { codecSplitTotals } from './helpers/usage-totals.js';

const run = promisify(execFile);
const CLI = join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'src', 'cli', 'main.cjs');
const SMALL = ANTIGRAVITY_LAYOUT['agent-sessions-cli-small.jsonl']!;
const DRIFT = ANTIGRAVITY_LAYOUT['agent-sessions-cli-schema-drift.jsonl']!;
const T0 = 1767225600; // 2026-01-01T00:00:00Z

let home: string;
let cliRoot: string;
let ideDb: string;
let smallDb: string;

/** Every file and folder under `dir`: path, size, mtime and sha256 of the bytes. */
function tree(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    const s = statSync(p);
    out.push(`${relative(dir, p)} ${s.isDirectory() ? 'dir' : `${s.size} ${s.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`}`);
  }
  return out.sort();
}

async function events(file: string, info = newReadInfo()): Promise<SessionfoldEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of antigravity.read(file, { info })) out.push(e);
  return out;
}

const usageOf = (es: SessionfoldEvent[]) => es.filter((e): e is UsageEvent => e.type === 'usage');
const reasoning = (us: UsageEvent[]) => us.reduce((n, u) => n + u.reasoningTokens, 0);

async function cli(args: string[]): Promise<string> {
  const env = { PATH: process.env.PATH, HOME: home, TZ: 'UTC', NO_COLOR: '1', COLUMNS: '200', XDG_CACHE_HOME: join(home, '.cache') };
  return (await run(process.execPath, [CLI, ...args], { cwd: home, env, maxBuffer: 16 << 20 })).stdout;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-antigravity-db-'));
  cliRoot = join(home, '.gemini', 'antigravity-cli');
  await layOutAntigravity(cliRoot);
  mkdirSync(join(cliRoot, 'conversations'), { recursive: true });
  smallDb = join(cliRoot, 'conversations', `${SMALL}.db`);
  const r1 = genBlob({ name: 'gemini-3-flash-a', seconds: T0 + 10, usage: usageBlob({ 1: 1132, 2: 1200, 3: 300, 5: 800, 9: 120, 10: 180, 11: 'r-1' }) });
  buildAntigravityDb(smallDb, [
    r1,
    // no model named: the row before's; no #3: #9 + #10; a retry of its own
    genBlob({ seconds: T0 + 20, usage: usageBlob({ 2: 50, 5: 1900, 10: 40, 11: 'r-2' }), retries: [usageBlob({ 2: 30, 3: 5, 11: 'r-2a' })] }),
    Buffer.from([0x0a, 0xff]), // a chat-model field whose length runs past the blob: skipped, counted
    r1, // the same response again: counted once
  ], trajectoryBlob(T0, 'file:///home/dev/project'));
  // The IDE's data folder, a conversation without a step log, in WAL mode (a read-only open would leave a -wal and -shm).
  mkdirSync(join(home, '.gemini', 'antigravity', 'conversations'), { recursive: true });
  ideDb = join(home, '.gemini', 'antigravity', 'conversations', 'conv-ide-1.db');
  buildAntigravityDb(ideDb, [
    genBlob({ label: 'Gemini 3.5 Flash (High)', seconds: T0 + 86400, usage: usageBlob({ 2: 100, 3: 20, 4: 10, 9: 5, 10: 15, 11: 'ide-1' }) }),
    genBlob({ modelEnum: 246, seconds: T0 + 86410, usage: usageBlob({ 2: 400, 3: 60, 11: 'ide-2' }) }),
  ], undefined, true);
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('antigravity conversation databases', () => {
  it('decodes a generation: final usage and retries, thinking inside output, input without the model enum', () => {
    const row = decodeGenRow(genBlob({ name: 'x', usage: usageBlob({ 1: 1132, 2: 7, 3: 9, 9: 4, 10: 5, 11: 'a' }), retries: [usageBlob({ 2: 1, 10: 2 })] }));
    expect(row.attempts.map((a) => [a.attempt, a.input, a.output, a.thinking, a.id, a.modelEnum])).toEqual([
      [0, 7, 9, 4, 'a', 1132],
      [1, 1, 2, 0, undefined, undefined],
    ]);
    expect(() => decodeGenRow(Buffer.from([0x0a, 0xff]))).toThrow(ProtobufError);
    expect(['Gemini 3.5 Flash (High)', 'gemini-3-flash-a', 'model_placeholder_m26', 'gemini-pro-default', 'gemini-2.5-pro', 'gemini-default'].map(priceModelName)).toEqual([
      'gemini-3.5-flash', 'gemini-3.5-flash', 'claude-opus-4-6', 'gemini-3.1-pro-preview', 'gemini-2.5-pro', undefined,
    ]);
  });

  it('a database alone is a session: the hand-computed tokens, its start, usageRecorded', async () => {
    const es = await events(ideDb);
    const s = es[0] as SessionEvent;
    expect(s).toMatchObject({ type: 'session', sessionId: 'conv-ide-1', usageRecorded: true, startedAt: '2026-01-02T00:00:00.000Z' });
    const us = usageOf(es);
    expect(us.map((u) => [u.model, u.timestamp, u.dedupKey])).toEqual([
      ['gemini-3.5-flash', '2026-01-02T00:00:00.000Z', 'antigravity:ide-1'],
      ['gemini-2.5-pro', '2026-01-02T00:00:10.000Z', 'antigravity:ide-2'],
    ]);
    expect(codecSplitTotals(us)).toEqual({ input: 500, output: 80, cacheRead: 0, cacheWrite: 10, calls: 2 });
    expect(reasoning(us)).toBe(5);
  });

  it('a step log with a database is one session: its steps, then the usage once; the malformed blob skipped and counted', async () => {
    const found: SessionFile[] = [];
    for await (const f of antigravity.discover([cliRoot])) found.push(f);
    expect(found.map((f) => f.sessionId).sort()).toEqual([DRIFT, SMALL].sort());
    const info = newReadInfo();
    const es = await events(transcriptOf(join(cliRoot, 'brain'), SMALL), info);
    // the workspace folder the database's trajectory names: the step log records none
    expect(es[0]).toMatchObject({ type: 'session', sessionId: SMALL, usageRecorded: true, cwd: '/home/dev/project' });
    expect(es.filter((e) => e.type === 'message').length).toBeGreaterThan(0);
    expect(info.skippedLines).toBe(1);
    const us = usageOf(es);
    expect(us.map((u) => [u.model, u.messageId])).toEqual([['gemini-3.5-flash', 'r-1'], ['gemini-3.5-flash', 'r-2'], ['gemini-3.5-flash', 'r-2a']]);
    expect(codecSplitTotals(us)).toEqual({ input: 1280, output: 345, cacheRead: 2700, cacheWrite: 0, calls: 3 });
    expect(reasoning(us)).toBe(120);
    expect(antigravity.lineCoreFor!(transcriptOf(join(cliRoot, 'brain'), SMALL))).toBeUndefined();
    // the step log without a database has no tokens: unknown, not an agent that records none
    const drift = (await events(transcriptOf(join(cliRoot, 'brain'), DRIFT)))[0];
    expect(drift).toMatchObject({ usageUnknown: true });
    expect(drift).not.toHaveProperty('usageRecorded');
  });

  it('a step log with a database skips a line over maxLineBytes, as a step log alone does', async () => {
    const log = transcriptOf(join(cliRoot, 'brain'), SMALL);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const max = Math.max(...lines.map((l) => Buffer.byteLength(l)));
    const over = lines.filter((l) => Buffer.byteLength(l) > max - 1).length;
    const skips: string[] = [];
    const info = newReadInfo();
    const es: SessionfoldEvent[] = [];
    for await (const e of antigravity.read(log, { info, maxLineBytes: max - 1, onSkip: (err) => skips.push(err.code) })) es.push(e);
    // the malformed blob in the database, and the longest step(s) of the log
    expect(info.skippedLines).toBe(1 + over);
    expect(skips).toHaveLength(1 + over);
    const whole = await events(log);
    expect(es.filter((e) => e.type !== 'usage').length).toBeLessThan(whole.filter((e) => e.type !== 'usage').length);
    expect(usageOf(es)).toEqual(usageOf(whole));
  });

  it('a database resumes from its row cursor: only the new generations, the session event again; a deleted row restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-antigravity-resume-'));
    try {
      const db = join(dir, 'conv-r.db');
      buildAntigravityDb(db, [genBlob({ name: 'gemini-2.5-pro', seconds: T0, usage: usageBlob({ 2: 10, 3: 1, 11: 'a' }) })]);
      let cursor: ReadCursor | undefined;
      const resume = (from: ReadCursor | undefined, starts: ResumeStart[]) => ({ from, onStart: (st: ResumeStart) => starts.push(st), onCursor: (u: CursorUpdate) => (cursor = u.cursor) });
      const read = async (starts: ResumeStart[]) => {
        const out: SessionfoldEvent[] = [];
        for await (const e of antigravity.read(db, { resume: resume(cursor, starts) })) out.push(e);
        return out;
      };
      const s1: ResumeStart[] = [];
      expect(usageOf(await read(s1)).map((u) => u.offset)).toEqual([1]);
      expect(s1[0]).toMatchObject({ restarted: true });
      const w = new Database(db);
      w.prepare('INSERT INTO gen_metadata (idx, data) VALUES (?, ?)').run(2, genBlob({ seconds: T0 + 5, usage: usageBlob({ 2: 20, 3: 2, 11: 'b' }) }));
      w.close();
      const resumedFrom = cursor;
      const s2: ResumeStart[] = [];
      const again = await read(s2);
      expect(s2[0]).toEqual({ restarted: false, replaced: { session: 1 } });
      expect(again.map((e) => e.type)).toEqual(['session', 'usage']);
      // the session event replaces the first read's: its start (the first generation's, no trajectory here) stays
      expect(again[0]).toMatchObject({ type: 'session', startedAt: new Date(T0 * 1000).toISOString() });
      expect(usageOf(again).map((u) => [u.offset, u.model, u.inputTokens])).toEqual([[2, 'gemini-2.5-pro', 20]]);
      // the read leaves the cursor it resumed from as it was: resumed from it again, it gives the same usage
      const after = cursor;
      cursor = resumedFrom;
      expect(usageOf(await read([])).map((u) => [u.offset, u.model, u.inputTokens])).toEqual([[2, 'gemini-2.5-pro', 20]]);
      cursor = after;
      const d = new Database(db);
      d.prepare('DELETE FROM gen_metadata WHERE idx = 1').run();
      d.close();
      const s3: ResumeStart[] = [];
      expect(usageOf(await read(s3)).map((u) => u.inputTokens)).toEqual([20]);
      expect(s3[0]).toMatchObject({ restarted: true, reason: 'row-changed' }); // the fingerprint below the watermark moved
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a resumed database read equals the whole read, a response repeated across the resume counted once; its cursor keeps no ids', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-antigravity-seen-'));
    try {
      const db = join(dir, 'conv-s.db');
      const ids = ['resp-a', 'resp-a-retry', 'resp-c'];
      buildAntigravityDb(db, [genBlob({ name: 'gemini-2.5-pro', seconds: T0, usage: usageBlob({ 2: 10, 3: 1, 11: 'resp-a' }), retries: [usageBlob({ 2: 3, 3: 1, 11: 'resp-a-retry' })] })]);
      let cursor: ReadCursor | undefined;
      const read = async () => {
        const out: SessionfoldEvent[] = [];
        for await (const e of antigravity.read(db, { resume: { from: cursor, onCursor: (u: CursorUpdate) => (cursor = u.cursor) } })) out.push(e);
        return usageOf(out);
      };
      const first = await read();
      const w = new Database(db);
      // the first row's response saved again, a new one, and that one's retry repeating it
      w.prepare('INSERT INTO gen_metadata (idx, data) VALUES (?, ?)').run(2, genBlob({ seconds: T0 + 5, usage: usageBlob({ 2: 10, 3: 1, 11: 'resp-a' }) }));
      w.prepare('INSERT INTO gen_metadata (idx, data) VALUES (?, ?)').run(3, genBlob({ seconds: T0 + 9, usage: usageBlob({ 2: 40, 3: 4, 11: 'resp-c' }), retries: [usageBlob({ 2: 40, 3: 4, 11: 'resp-a-retry' })] }));
      w.close();
      const resumed = await read();
      const whole = usageOf(await events(db));
      expect([...first, ...resumed]).toEqual(whole);
      expect(whole.map((u) => u.messageId)).toEqual(ids);
      const kept = JSON.stringify(cursor);
      for (const id of ids) expect(kept, 'the cursor holds no response id').not.toContain(id);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('roots: ANTIGRAVITY_DATA_DIR as ccusage takes it, the CLI and IDE folders by default', () => {
    expect(antigravity.defaultRoots({ HOME: '/h', ANTIGRAVITY_DATA_DIR: '/a,/b' })).toEqual(['/a', '/b']);
    expect(antigravity.defaultRoots({ HOME: '/h', SESSIONFOLD_ANTIGRAVITY_DIR: '/s', ANTIGRAVITY_DATA_DIR: '/a' })).toEqual(['/s']);
    expect(antigravity.defaultRoots({ HOME: '/h' })).toEqual(['/h/.gemini/antigravity-cli', '/h/.gemini/antigravity', '/h/.gemini/antigravity-ide', '/h/.gemini/antigravity-backup', '/h/.config/antigravity']);
  });

  it('the built CLI reports the tokens and lists the sessions with them; the agent folders do not change', async () => {
    const before = [tree(join(home, '.gemini'))];
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'antigravity', '--no-cache'])) as Record<string, number>;
    expect([report.inputTokens, report.outputTokens, report.cacheReadTokens, report.cacheWriteTokens, report.requestCount]).toEqual([1780, 425, 2700, 10, 5]);
    expect(report.totalUsd).toBeGreaterThan(0);
    // ccusage 20.0.24 (`ccusage antigravity session --offline --json`) over the same files less the malformed
    // row, at which it stops the whole report: the same input and cache; its output leaves thinking out.
    const ccusage = { input: 1780, cacheRead: 2700, cacheWrite: 10, output: 300 };
    expect([report.inputTokens, report.cacheReadTokens, report.cacheWriteTokens, report.outputTokens! - report.thinkingTokens!]).toEqual([ccusage.input, ccusage.cacheRead, ccusage.cacheWrite, ccusage.output]);
    const list = JSON.parse(await cli(['sessions', 'list', 'antigravity', '--json', '--full'])) as { sessionId: string; usageRecorded?: boolean; usageUnknown?: boolean; cost?: { inputTokens: number; outputTokens: number } }[];
    const byId = new Map(list.map((s) => [s.sessionId, s]));
    expect(byId.get(SMALL)?.usageRecorded).toBeUndefined();
    expect(byId.get(SMALL)?.cost).toMatchObject({ inputTokens: 1280, outputTokens: 345 });
    expect(byId.get('conv-ide-1')?.cost).toMatchObject({ inputTokens: 500, outputTokens: 80 });
    expect(byId.get(DRIFT)).toMatchObject({ usageUnknown: true });
    expect(byId.get(DRIFT)?.usageRecorded).toBeUndefined();
    await events(ideDb);
    expect(tree(join(home, '.gemini'))).toEqual(before[0]);
    expect(readdirSync(join(home, '.gemini', 'antigravity', 'conversations'))).toEqual(['conv-ide-1.db']);
  }, 60_000);
});
