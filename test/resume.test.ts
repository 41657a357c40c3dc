import { appendFile, mkdtemp, readFile, truncate, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonlCursor, ReadCursor, ResumeStart } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { byKind, expectResumeEqualsFull, lineBoundaries, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { makeTestCodec } from './helpers/test-core.js';

async function tmp(name = 'f.jsonl'): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'sf-resume-')), name);
}

async function readResumed(codec: ReturnType<typeof makeTestCodec>, file: string, from?: ReadCursor) {
  let start: ResumeStart | undefined;
  let cursor: ReadCursor | undefined;
  let partial = false;
  const events = [];
  for await (const e of codec.read(file, {
    resume: {
      from,
      onStart: (s) => (start = s),
      onCursor: (u) => {
        cursor = u.cursor;
        partial = u.partialLine;
      },
    },
  }))
    events.push(e);
  return { start: start as ResumeStart, cursor: cursor as JsonlCursor, partial, events };
}

/** Random JSONL with multi-byte text, CRLF, blank and malformed lines. */
const lineArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: fc.constantFrom('a', 'b', 'c', 'dd', 'é', '世界', '🙂'), v: fc.nat(1000), t: fc.string({ unit: 'grapheme', maxLength: 12 }) }).map((r) => JSON.stringify(r)) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }).map((s) => `{"k": ${s.replace(/\n/g, ' ')}`) },
  { weight: 1, arbitrary: fc.constant('[1,2,3]') },
);
const contentArb = fc
  .array(fc.tuple(lineArb, fc.constantFrom('\n', '\r\n')), { maxLength: 30 })
  .map((ls) => Buffer.from(ls.map(([l, eol]) => l + eol).join(''), 'utf8'));

describe('byte-exact resume (property)', () => {
  it('kept events + resumed events equal a full read, per kind, for random content and random cuts', async () => {
    const codec = makeTestCodec((k) => createHash('md5').update(k).digest().readUInt32LE(0));
    await fc.assert(
      fc.asyncProperty(
        contentArb.chain((buf) => fc.tuple(fc.constant(buf), fc.uniqueArray(fc.nat(buf.length), { maxLength: 8 }).map((c) => c.sort((x, y) => x - y)))),
        async ([buf, cuts]) => {
          await expectResumeEqualsFull(codec, buf, cuts);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('holds with a hash that always collides (every resumed id restarts the read)', async () => {
    const codec = makeTestCodec(() => 42);
    await fc.assert(
      fc.asyncProperty(
        contentArb.chain((buf) => fc.tuple(fc.constant(buf), fc.uniqueArray(fc.nat(buf.length), { maxLength: 6 }).map((c) => c.sort((x, y) => x - y)))),
        async ([buf, cuts]) => {
          await expectResumeEqualsFull(codec, buf, cuts);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('holds for the sessionfold-jsonl codec over random messages', async () => {
    const msg = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.string({ unit: 'grapheme', maxLength: 20 }), n: fc.nat(50) });
    await fc.assert(
      fc.asyncProperty(fc.array(msg, { maxLength: 15 }), fc.array(fc.nat(2000), { maxLength: 6 }), async (msgs, rawCuts) => {
        const lines = [JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: 'p' })];
        msgs.forEach((m, i) => lines.push(JSON.stringify({ type: 'sessionfold.message', index: i, role: m.role, content: m.content, ...(m.n > 25 && { usage: { inputTokens: m.n, outputTokens: 1 } }) })));
        const buf = Buffer.from(lines.join('\n') + '\n');
        const cuts = [...new Set(rawCuts.map((c) => c % (buf.length + 1)))].sort((x, y) => x - y);
        await expectResumeEqualsFull(sessionfoldJsonl, buf, cuts);
      }),
      { numRuns: 40 },
    );
  });
});

describe('resume contract', () => {
  const lines = ['{"k":"a","v":1}', '{"k":"a","v":9}', '{"k":"b","v":2}', '{"k":"c","v":3}'].map((l) => l + '\n');

  it('reports an open pending event in replaced and re-yields it updated', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, lines.slice(0, 2).join(''));
    const r1 = await readResumed(codec, f);
    expect(r1.start).toEqual({ restarted: true, reason: 'no-cursor', replaced: {} });
    expect(byKind(r1.events).usage).toMatchObject([{ dedupKey: 'a', outputTokens: 9 }]);
    await appendFile(f, lines.slice(2).join(''));
    const r2 = await readResumed(codec, f, r1.cursor);
    expect(r2.start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect(byKind(r2.events).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['a', 'b', 'c']);
  });

  it('fires onStart on an empty file and writes a cursor at offset 0', async () => {
    const f = await tmp();
    await writeFile(f, '');
    const r = await readResumed(makeTestCodec(), f);
    expect(r.start.restarted).toBe(true);
    expect(r.events).toEqual([]);
    expect(r.cursor.offset).toBe(0);
    expect(r.cursor.prefixHash).toBe(createHash('sha256').digest('hex'));
  });

  it('holds back a partial final line and reads it exactly once when completed', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, '{"k":"a","v":1}\n{"k":"b"');
    const r1 = await readResumed(codec, f);
    expect(r1.partial).toBe(true);
    expect(r1.cursor.offset).toBe(16);
    expect(r1.events.filter((e) => e.type === 'message')).toHaveLength(1);
    await appendFile(f, ',"v":2}\n');
    const r2 = await readResumed(codec, f, r1.cursor);
    expect(r2.partial).toBe(false);
    expect(r2.events.filter((e) => e.type === 'message')).toMatchObject([{ text: 'b=2', offset: 16 }]);
  });

  it('restarts when the prefix was rewritten', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, lines.join(''));
    const r1 = await readResumed(codec, f);
    await writeFile(f, lines.join('').replace('"v":1', '"v":5') + '{"k":"d","v":4}\n');
    const r2 = await readResumed(codec, f, r1.cursor);
    expect(r2.start).toMatchObject({ restarted: true, reason: 'prefix-changed' });
    expect(byKind(r2.events).usage).toHaveLength(4);
  });

  it('restarts when the file shrank', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, lines.join(''));
    const r1 = await readResumed(codec, f);
    await truncate(f, 20);
    const r2 = await readResumed(codec, f, r1.cursor);
    expect(r2.start).toMatchObject({ restarted: true, reason: 'file-shrunk' });
    expect(r2.cursor.offset).toBe(16);
  });

  it('restarts when the parser version or the kinds read changed', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, lines.join(''));
    const r1 = await readResumed(codec, f);
    const other = { ...r1.cursor, parser: 'test@n1.p0' };
    expect((await readResumed(codec, f, other)).start).toMatchObject({ restarted: true, reason: 'parser-changed' });
    let cursor: ReadCursor | undefined;
    for await (const _ of codec.read(f, { kinds: ['usage'], resume: { onCursor: (u) => (cursor = u.cursor) } })) void _;
    let start: ResumeStart | undefined;
    for await (const _ of codec.read(f, { resume: { from: cursor, onStart: (s) => (start = s) } })) void _;
    expect(start).toMatchObject({ restarted: true, reason: 'kinds-changed' });
  });

  it('restarts from byte 0 when a resumed id hash collides, before yielding anything', async () => {
    const codec = makeTestCodec(() => 7);
    const f = await tmp();
    await writeFile(f, lines.slice(0, 3).join(''));
    const r1 = await readResumed(codec, f);
    await appendFile(f, lines[3] as string);
    const r2 = await readResumed(codec, f, r1.cursor);
    expect(r2.start).toMatchObject({ restarted: true, reason: 'id-collision' });
    expect(byKind(r2.events).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['a', 'b', 'c']);
  });

  it('never calls onCursor when the consumer breaks out', async () => {
    const f = await tmp();
    await writeFile(f, lines.join(''));
    let called = false;
    for await (const _ of makeTestCodec().read(f, { resume: { onCursor: () => (called = true) } })) break;
    expect(called).toBe(false);
  });

  it('restarts from byte 0 with reason cursor-invalid for a cursor of the wrong shape (the cursor contract)', async () => {
    const f = await tmp();
    await writeFile(f, lines.join(''));
    const full = await readEvents(makeTestCodec(), f);
    for (const bad of [
      { format: 'jsonl', version: 1, parser: 'test@n1.p1', offset: -3, prefixHash: 'x' },
      { format: 'jsonl', parser: 'test@n1.p1', offset: '12', prefixHash: 'a'.repeat(64) },
      { format: 'jsonl' },
    ]) {
      let start: ResumeStart | undefined;
      const got = await readEvents(makeTestCodec(), f, { resume: { from: bad as unknown as ReadCursor, onStart: (s) => (start = s) } });
      expect(start).toEqual({ restarted: true, reason: 'cursor-invalid', replaced: {} });
      expect(got).toEqual(full);
    }
  });

  it('cursor prefixHash is the sha256 of the first offset bytes, with CRLF and multi-byte text', async () => {
    const f = await tmp();
    const text = '{"k":"é","v":1}\r\n\r\n{"k":"🙂","v":2}\r\n{"k":"x"';
    await writeFile(f, text);
    const run = await resumeAcrossCuts(makeTestCodec(), Buffer.from(text), lineBoundaries(Buffer.from(text)));
    const content = await readFile(f);
    for (const c of run.cursors as JsonlCursor[]) expect(c.prefixHash).toBe(createHash('sha256').update(content.subarray(0, c.offset)).digest('hex'));
  });
});

describe('maxLineBytes', () => {
  it('skips and counts an over-long line without breaking the lines around it or the hash', async () => {
    const f = await tmp();
    const long = `{"k":"z","pad":"${'x'.repeat(5000)}"}`;
    const text = `{"k":"a","v":1}\n${long}\n{"k":"b","v":2}\n`;
    await writeFile(f, text);
    for (const bufferSize of [7, 64, 1 << 20]) {
      const info = newReadInfo();
      let cursor: JsonlCursor | undefined;
      const skipped: string[] = [];
      const events = await readEvents(makeTestCodec(), f, {
        maxLineBytes: 1000,
        bufferSize,
        info,
        onSkip: (e) => skipped.push(e.code),
        resume: { onCursor: (u) => (cursor = u.cursor as JsonlCursor) },
      });
      expect(skipped).toEqual(['LINE_TOO_LONG']);
      expect(info.skippedLines).toBe(1);
      expect(byKind(events).message.map((m) => (m as { text: string }).text)).toEqual(['a=1', 'b=2']);
      expect(cursor?.prefixHash).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('reads past a 300 MB line without allocating it', async () => {
    const f = await tmp();
    await writeFile(f, '{"k":"a","v":1}\n');
    await truncate(f, 16 + 300 * (1 << 20)); // a sparse run of NUL bytes: one huge line
    await appendFile(f, '\n{"k":"b","v":2}\n');
    const before = process.memoryUsage().rss;
    let peak = before;
    const info = newReadInfo();
    const events = [];
    for await (const e of makeTestCodec().read(f, { maxLineBytes: 1 << 20, info })) {
      events.push(e);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(info.skippedLines).toBe(1);
    expect(byKind(events).message).toHaveLength(2);
    expect(peak - before).toBeLessThan(100 * (1 << 20));
  });
});

describe('verifyPrefix: false (caller-verified prefix)', () => {
  it('resumes without reading the prefix and leaves prefixHash empty', async () => {
    const codec = makeTestCodec();
    const f = await tmp();
    await writeFile(f, '{"k":"a","v":1}\n');
    let cursor: ReadCursor | undefined;
    for await (const _ of codec.read(f, { resume: { verifyPrefix: false, onCursor: (u) => (cursor = u.cursor) } })) void _;
    expect(cursor).toMatchObject({ offset: 16, prefixHash: '' });
    await appendFile(f, '{"k":"b","v":2}\n');
    let start: ResumeStart | undefined;
    const events = [];
    for await (const e of codec.read(f, { resume: { from: cursor, verifyPrefix: false, onStart: (s) => (start = s) } })) events.push(e);
    expect(start).toEqual({ restarted: false, replaced: { usage: 1 } });
    expect(byKind(events).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['a', 'b']);
    // A verifying read cannot use the same cursor (no hash to check): it restarts and says why.
    start = undefined;
    const again = await readEvents(codec, f, { resume: { from: cursor, onStart: (s) => (start = s) } });
    expect(start).toEqual({ restarted: true, reason: 'cursor-invalid', replaced: {} });
    expect(byKind(again).usage.map((u) => (u as { dedupKey: string }).dedupKey)).toEqual(['a', 'b']);
  });
});
