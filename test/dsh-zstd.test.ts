/**
 * DeepSeek Harness's compressed logs: zstd frames, one per append (codecs/dsh/README.md, "Compression"). The
 * frame splitter (cursors/zstd-frames.ts) against the frames zstd wrote for fixtures/dsh, byte by byte; the
 * frame reader (cursors/read-zstd-frames.ts) against the same lines read plain, in every chunking, resumed at
 * frame boundaries and at cuts inside frames (a frame being written, a torn one), with a frame that fails its
 * checksum, a break in the structure, and a file that is not zstd.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decompress } from 'fzstd';
import { dsh } from '../codecs/dsh/index.js';
import { hashBytes64, hashesReady } from '../cursors/ids.js';
import { newReadInfo, type CursorUpdate, type JsonlCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { ZstdFrameError, ZstdFrameSplitter, type ZstdFrame } from '../cursors/zstd-frames.js';
import { byKind, CHUNK_SIZES, expectChunkInvariant, expectResumeEqualsFull, randomCuts, readEvents } from './helpers/codec-harness.js';
import { inTempDir as inTempDirOf } from './helpers/files.js';
import { rawZstdFrame } from './helpers/zstd-raw.js';
import { CHERRY, DSH_FIXTURES as FIXTURES, FORK, LOGS, MAIN, SUB } from './helpers/dsh-fixtures.js';

/** Each compressed fixture and the folder of the batches it was made of (fixtures/dsh/frames, one frame each). */
const COMPRESSED: [file: string, batches: string][] = [
  [LOGS[MAIN] as string, 'main-v3'],
  [LOGS[`${MAIN}.v0`] as string, 'main-v0'],
  [LOGS[FORK] as string, 'fork-v3'],
  [LOGS[SUB] as string, 'sub-v3'],
  [LOGS[CHERRY] as string, 'cherry-v3'],
];
const MAIN_LOG = COMPRESSED[0]![0];

async function batches(name: string): Promise<Buffer[]> {
  const dir = join(FIXTURES, 'frames', name);
  return Promise.all((await readdir(dir)).sort().map((f) => readFile(join(dir, f))));
}

/** The frames of `bytes` pushed `chunk` bytes at a time. */
function framesOf(bytes: Buffer, chunk: number): { frames: ZstdFrame[]; splitter: ZstdFrameSplitter } {
  const frames: ZstdFrame[] = [];
  const splitter = new ZstdFrameSplitter();
  for (let i = 0; i < bytes.length; i += chunk) {
    const part = Buffer.from(bytes.subarray(i, i + chunk));
    splitter.push(part, part.length, (f) => frames.push(f));
  }
  return { frames, splitter };
}

const inTempDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => inTempDirOf('sf-dsh-zstd-', fn);

/** `bytes` as a current-generation log in a session folder of `dir`. */
async function logIn(dir: string, bytes: Buffer, name = 'session.v3.jsonl.zstd'): Promise<string> {
  const s = join(dir, '--home-dev-shop-api--', MAIN);
  await mkdir(s, { recursive: true });
  await writeFile(join(s, name), bytes);
  return join(s, name);
}

/** A cursor update whose cursor is a JSONL cursor, as every read of this codec hands back. */
type JsonlUpdate = CursorUpdate & { cursor: JsonlCursor };

function jsonl(u: CursorUpdate | undefined): JsonlUpdate {
  expect(u?.cursor.format).toBe('jsonl');
  return u as JsonlUpdate;
}

/** A read's events and its cursor update. */
async function readWithCursor(file: string, from?: JsonlCursor): Promise<{ events: SessionfoldEvent[]; update: JsonlUpdate; restarted: boolean | undefined }> {
  const events: SessionfoldEvent[] = [];
  let update: CursorUpdate | undefined;
  let restarted: boolean | undefined;
  for await (const e of dsh.read(file, { resume: { from, onStart: (s) => (restarted = s.restarted), onCursor: (u) => (update = u) } })) events.push(e);
  return { events, update: jsonl(update), restarted };
}

describe('zstd frames of the fixtures', () => {
  it.each(COMPRESSED.map(([f, b]) => [b, f]))('%s: one checksummed frame per batch, found in any chunking, decompressing to the batch', async (name, file) => {
    await hashesReady();
    const bytes = await readFile(file);
    const lines = await batches(name);
    const whole = framesOf(bytes, bytes.length).frames;
    expect(whole.map((f) => Buffer.from(decompress(f.bytes as Buffer)).toString())).toEqual(lines.map((b) => b.toString()));
    expect(whole.map((f) => f.checksum)).toEqual(lines.map((b) => parseInt(hashBytes64(b).slice(8), 16)));
    expect(whole[0]!.start).toBe(0);
    expect(whole.at(-1)!.end).toBe(bytes.length);
    for (const chunk of CHUNK_SIZES) {
      const { frames, splitter } = framesOf(bytes, chunk);
      expect(frames, `chunk ${chunk}`).toEqual(whole);
      expect(splitter.tail()).toEqual(Buffer.alloc(0));
    }
    // the header alone in the first frame, as dsh writes it
    expect(JSON.parse(lines[0]!.toString())).toMatchObject({ type: 'session' });
    expect(lines[0]!.toString().split('\n')).toHaveLength(2);
  });

  it('a break in the structure throws where it is; a cut frame is held as the tail', async () => {
    const bytes = await readFile(MAIN_LOG);
    const { frames, splitter } = framesOf(bytes.subarray(0, bytes.length - 3), 64);
    expect(frames).toHaveLength(5);
    expect(splitter.tail()).toEqual(bytes.subarray(frames.at(-1)!.end, bytes.length - 3));
    const broken = Buffer.concat([bytes.subarray(0, frames[1]!.end), Buffer.from('not zstd at all')]);
    expect(() => framesOf(broken, 7)).toThrow(ZstdFrameError);
    const reserved = Buffer.from(bytes);
    reserved[frames[1]!.end + 4]! |= 0x08;
    expect(() => framesOf(reserved, 4096)).toThrow(/reserved zstd frame header bit/);
  });
});

describe('dsh compressed logs read as their lines', () => {
  it.each(COMPRESSED.map(([f, b]) => [b, f]))('%s: the same events as the decompressed lines read plain, in every chunking', async (_name, file) => {
    await inTempDir(async (dir) => {
      const plain = await logIn(dir, Buffer.from(decompress(await readFile(file))), 'session.v3.jsonl');
      const expected = await readEvents(dsh, plain);
      const events = await expectChunkInvariant(dsh, file);
      expect(events).toEqual(expected);
      expect(await expectChunkInvariant(dsh, file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
    });
  });

  it('resumes at frame boundaries, and at cuts inside a frame (being written, or torn), as one full read', async () => {
    const content = await readFile(MAIN_LOG);
    const ends = framesOf(content, content.length).frames.map((f) => f.end);
    const cuts = [...new Set([0, ...ends, ...ends.map((e) => e - 1), ...ends.map((e) => e - 5), ...randomCuts(content.length, 60, 7)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(dsh, content, cuts, {}, `--home-dev-shop-api--/${MAIN}/session.v3.jsonl.zstd`);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
    // every cursor stands at a frame boundary
    expect(run.cursors.every((c) => c.format === 'jsonl' && [0, ...ends].includes((c as JsonlCursor).offset))).toBe(true);
    const usageOnly = await expectResumeEqualsFull(dsh, content, cuts, { kinds: ['usage'] }, `--home-dev-shop-api--/${MAIN}/session.v3.jsonl.zstd`);
    expect(usageOnly.kept.usage).toEqual(run.kept.usage);
  });

  it('frames that end inside a line: the cursor stays at the last frame that ended one, with the state there', async () => {
    await hashesReady();
    const text = Buffer.concat(await batches('main-v3'));
    // frames cut at arbitrary bytes: most end inside a line, some at a line feed
    const cuts = [...new Set([...randomCuts(text.length, 40, 11), ...[...text.keys()].filter((i) => text[i] === 0x0a).filter((_, k) => k % 4 === 0).map((i) => i + 1)])]
      .filter((c) => c > 0 && c < text.length)
      .sort((a, b) => a - b);
    const frames = [0, ...cuts].map((from, k) => rawZstdFrame(text.subarray(from, cuts[k] ?? text.length)));
    const content = Buffer.concat(frames);
    const ends = frames.map((_, k) => frames.slice(0, k + 1).reduce((n, f) => n + f.length, 0));
    const run = await expectResumeEqualsFull(dsh, content, ends, {}, `--home-dev-shop-api--/${MAIN}/session.v3.jsonl.zstd`);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
    // a cursor stands only where the text read so far ends with a line feed
    const clean = new Set([0, ...ends.filter((_, k) => text[(cuts[k] ?? text.length) - 1] === 0x0a)]);
    expect(run.cursors.every((c) => clean.has((c as JsonlCursor).offset))).toBe(true);
    expect(new Set(run.cursors.map((c) => (c as JsonlCursor).offset)).size).toBeGreaterThan(3);
    expect(run.full.usage.length).toBeGreaterThan(0);
    // each cursor holds the state at its offset: the state a read of the file up to there ends with
    await inTempDir(async (dir) => {
      for (const [k, end] of ends.entries()) {
        const whole = await readWithCursor(await logIn(dir, content.subarray(0, end)));
        const at = whole.update.cursor.offset;
        const upTo = await readWithCursor(await logIn(dir, content.subarray(0, at)));
        expect(upTo.update.cursor.offset, `frame ${k}`).toBe(at);
        const [held, there] = [whole, upTo].map((r) => r.update.cursor.state as { core: unknown; plain: number });
        expect(held?.core, `frame ${k}`).toEqual(there?.core);
        expect(held?.plain, `frame ${k}`).toBe(there?.plain);
      }
    });
  });

  it('a grown log is read from its last frame: only the new frames are decompressed, with the cache\u2019s own fingerprint too', async () => {
    await inTempDir(async (dir) => {
      const content = await readFile(MAIN_LOG);
      const frames = framesOf(content, content.length).frames;
      const file = await logIn(dir, content.subarray(0, frames[3]!.end));
      for (const verifyPrefix of [true, false]) {
        await writeFile(file, content.subarray(0, frames[3]!.end));
        let update: CursorUpdate | undefined;
        for await (const _ of dsh.read(file, { resume: { verifyPrefix, onCursor: (u) => (update = u) } }));
        const first = jsonl(update);
        expect(first.cursor.offset).toBe(frames[3]!.end);
        await writeFile(file, content);
        const info = newReadInfo();
        const positions: number[] = [];
        const fresh: SessionfoldEvent[] = [];
        let restarted: boolean | undefined;
        for await (const e of dsh.read(file, { info, resume: { from: first.cursor, verifyPrefix, onStart: (s) => (restarted = s.restarted), onBytes: (_c, p) => positions.push(p) } })) fresh.push(e);
        expect(restarted).toBe(false);
        expect(positions[0]).toBe(frames[3]!.end);
        expect(info.bytes).toBe(content.length - frames[3]!.end);
        expect(byKind(fresh).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['dsh:msg-7c1e-0003', 'dsh:compaction:cmp-0001']);
      }
    });
  });

  it('a frame cut by the end of the file gives the lines of its complete blocks, read as not yet committed', async () => {
    await inTempDir(async (dir) => {
      const content = await readFile(MAIN_LOG);
      const frames = framesOf(content, content.length).frames;
      const last = frames.at(-1)!;
      // without its checksum, the last frame's blocks are all there: its lines are read
      const file = await logIn(dir, content.subarray(0, last.end - 2));
      const { events, update } = await readWithCursor(file);
      const full = await readEvents(dsh, MAIN_LOG);
      expect(events).toEqual(full);
      expect(update.partialLine).toBe(true);
      expect(update.cursor.offset).toBe(last.start);
      expect(update.info.bytesCommitted).toBe(last.start);
      expect((update.cursor.state as { replaced: Record<string, number> }).replaced).toMatchObject({ usage: 1, message: 1 });
      // the frame completed: the next read takes it from its start, and nothing is counted twice
      await writeFile(file, content);
      const next = await readWithCursor(file, update.cursor);
      expect(next.restarted).toBe(false);
      expect(byKind(next.events).usage).toEqual(byKind(full).usage.slice(-1));
    });
  });

  it('a frame that fails its checksum is skipped and counted, and the frames after it are read', async () => {
    await inTempDir(async (dir) => {
      const content = Buffer.from(await readFile(MAIN_LOG));
      const frames = framesOf(content, content.length).frames;
      content[frames[2]!.end - 1]! ^= 0xff;
      const file = await logIn(dir, content);
      const info = newReadInfo();
      const skipped: string[] = [];
      const events = await readEvents(dsh, file, { info, onSkip: (e) => skipped.push(e.message) });
      expect(info.skippedLines).toBe(1);
      expect(skipped[0]).toMatch(/fails its content checksum/);
      const all = byKind(await readEvents(dsh, MAIN_LOG)).usage.map((u) => (u as { dedupKey: string }).dedupKey);
      // frame 2 held the tool result, the retried attempt and the second reply
      expect(byKind(events).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual([all[0], all[3], all[4]]);
      // strict: the read fails at the frame, after the events before it
      const before: SessionfoldEvent[] = [];
      await expect((async () => {
        for await (const e of dsh.read(file, { strict: true })) before.push(e);
      })()).rejects.toMatchObject({ code: 'PARSE_ERROR' });
      expect(byKind(before).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual([all[0]]);
    });
  });

  it('a break in the structure ends the read there, counted once; a file that is not zstd gives nothing', async () => {
    await inTempDir(async (dir) => {
      const content = await readFile(MAIN_LOG);
      const frames = framesOf(content, content.length).frames;
      const file = await logIn(dir, Buffer.concat([content.subarray(0, frames[1]!.end), Buffer.from('garbage that is no frame'), content.subarray(frames[1]!.end)]));
      const info = newReadInfo();
      const { events, update } = await readWithCursor(file);
      await readEvents(dsh, file, { info });
      expect(info.skippedLines).toBe(1);
      expect(byKind(events).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['dsh:msg-7c1e-0001']);
      expect(update.cursor.offset).toBe(frames[1]!.end);
      const junk = await logIn(dir, Buffer.from('{"type":"session"}\n'), 'session.v4.jsonl.zstd');
      const junkInfo = newReadInfo();
      expect(await readEvents(dsh, junk, { info: junkInfo })).toEqual([]);
      expect(junkInfo.skippedLines).toBe(1);
    });
  });

  it('a cursor of another read of the file (a plain one, another parser) restarts the read, saying why', async () => {
    await inTempDir(async (dir) => {
      const file = await logIn(dir, await readFile(MAIN_LOG));
      const { update } = await readWithCursor(file);
      const plainState = { ...(update.cursor.state as object), plain: undefined };
      const reasons: (string | undefined)[] = [];
      for (const from of [{ ...update.cursor, state: plainState }, { ...update.cursor, parser: 'dsh@n1.p0' }, { ...update.cursor, offset: update.cursor.offset + 1 }]) {
        for await (const _ of dsh.read(file, { resume: { from: from as JsonlCursor, onStart: (s) => reasons.push(s.reason) } }));
      }
      expect(reasons).toEqual(['cursor-invalid', 'parser-changed', 'file-shrunk']);
    });
  });
});
