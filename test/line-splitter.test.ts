import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../cursors/line-splitter.js';

type Out = { kind: 'line'; text: string; start: number; next: number } | { kind: 'long'; start: number; next: number; length: number };

/** The obvious reference: split the whole buffer on LF. */
function reference(buf: Buffer, max: number): { out: Out[]; committed: number } {
  const out: Out[] = [];
  let start = 0;
  for (let lf = buf.indexOf(10); lf !== -1; lf = buf.indexOf(10, start)) {
    const len = lf - start;
    if (len > max) out.push({ kind: 'long', start, next: lf + 1, length: len });
    else {
      let end = lf;
      if (end > start && buf[end - 1] === 13) end--;
      out.push({ kind: 'line', text: buf.subarray(start, end).toString('latin1'), start, next: lf + 1 });
    }
    start = lf + 1;
  }
  return { out, committed: start };
}

function split(buf: Buffer, chunks: number[], max: number) {
  const out: Out[] = [];
  const hash = createHash('sha256');
  const s = new LineSplitter({
    startOffset: 0,
    maxLineBytes: max,
    hash,
    onLine: (line, start, next) => out.push({ kind: 'line', text: line.toString('latin1'), start, next }),
    onLongLine: (start, next, length) => out.push({ kind: 'long', start, next, length }),
  });
  let pos = 0;
  const scratch = Buffer.alloc(buf.length + 1);
  for (const size of [...chunks, buf.length]) {
    const n = Math.min(size, buf.length - pos);
    if (n <= 0) continue;
    buf.copy(scratch, 0, pos, pos + n); // a reused buffer, like fs.read into one Buffer
    s.push(scratch, n);
    scratch.fill(0xff);
    pos += n;
  }
  return { out, committed: s.committed, pending: s.pendingBytes, digest: (s.hash ?? createHash('sha256')).digest('hex') };
}

const bytesArb = fc
  .array(fc.oneof(fc.constantFrom('\n', '\r\n', '\r', 'é', '世', '🙂', '{"a":1}'), fc.string({ maxLength: 6 })), { maxLength: 40 })
  .map((parts) => Buffer.from(parts.join(''), 'utf8'));

describe('LineSplitter', () => {
  it('yields exactly the reference lines, offsets and committed-prefix hash for any chunking and maxLineBytes', () => {
    fc.assert(
      fc.property(bytesArb, fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (buf, chunks, max) => {
        const got = split(buf, chunks, max);
        const ref = reference(buf, max);
        expect(got.out).toEqual(ref.out);
        expect(got.committed).toBe(ref.committed);
        expect(got.pending).toBe(buf.length - ref.committed);
        expect(got.digest).toBe(createHash('sha256').update(buf.subarray(0, ref.committed)).digest('hex'));
      }),
      { numRuns: 400 },
    );
  });

  it.each([1, 2, 3, 7, 64])('splits utf8 characters and CRLF pairs across %i-byte chunks', (size) => {
    const buf = Buffer.from('héllo 世界\r\n🙂🙂\r\n\r\nlast', 'utf8');
    const chunks = Array.from({ length: Math.ceil(buf.length / size) }, () => size);
    const { out, committed } = split(buf, chunks, 1000);
    expect(out.map((o) => (o.kind === 'line' ? Buffer.from(o.text, 'latin1').toString('utf8') : null))).toEqual(['héllo 世界', '🙂🙂', '']);
    expect(committed).toBe(buf.length - 4);
  });
});

describe('LineSplitter marker filter (in-chunk lines by one search, spanning lines not copied)', () => {
  const MARK = Buffer.from('"usage"');
  /** What a core with markers sees: wanted lines (any marker) and a filtered count, whichever path a line took. */
  function viaSpans(buf: Buffer, chunks: number[], max: number, markersOn: (lineNo: number) => boolean) {
    const wanted: Out[] = [];
    let filtered = 0;
    let lineNo = 0;
    const s = new LineSplitter({
      startOffset: 0,
      maxLineBytes: max,
      onLine: (line, start, next) => {
        lineNo++;
        if (markersOn(lineNo - 1) && line.indexOf(MARK) === -1) filtered++; // the core's own check
        else wanted.push({ kind: 'line', text: line.toString('latin1'), start, next });
      },
      onLongLine: (start, next, length) => {
        lineNo++;
        wanted.push({ kind: 'long', start, next, length });
      },
      filter: {
        markers: () => (markersOn(lineNo) ? [MARK] : undefined),
        onFiltered: () => {
          lineNo++;
          filtered++;
        },
        readAt: (b, pos) => buf.copy(b, 0, pos, Math.min(buf.length, pos + b.length)),
      },
    });
    let pos = 0;
    let k = 0;
    while (pos < buf.length) {
      const n = Math.min(chunks[k++ % chunks.length] as number, buf.length - pos);
      // A reused read buffer: stale bytes after `n`, and the caller overwrites it after push.
      const chunk = Buffer.alloc(n + 3, 0x61);
      buf.copy(chunk, 0, pos, pos + n);
      s.push(chunk, n);
      chunk.fill(0x7a);
      pos += n;
    }
    return { wanted, filtered, lines: s.lines, committed: s.committed, pending: s.pendingBytes };
  }

  it('delivers exactly the lines a marker-filtering core keeps, at any chunk size', () => {
    const piece = fc.oneof(fc.constantFrom('"usage"', '"usa', 'ge"', '\r', 'x', 'é'), fc.string({ maxLength: 40 }));
    const line = fc.array(piece, { maxLength: 30 }).map((p) => p.join('').replace(/\n/g, ''));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 25 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 5, max: 400 }),
        fc.integer({ min: 0, max: 3 }),
        (lines, lastUnterminated, chunks, max, firstAll) => {
          const buf = Buffer.from(lines.join('\n') + (lastUnterminated ? '' : '\n'), 'utf8');
          // The first `firstAll` lines matter whatever they hold (a core before its session event).
          const markersOn = (n: number) => n >= firstAll;
          const ref = reference(buf, max).out;
          const want = ref.filter((o, n) => o.kind === 'long' || !markersOn(n) || Buffer.from(o.text, 'latin1').indexOf(MARK) !== -1);
          const got = viaSpans(buf, chunks, max, markersOn);
          expect(got.wanted).toEqual(want);
          expect(got.filtered).toBe(ref.length - want.length);
          expect(got.lines).toBe(ref.length);
          expect(got.committed).toBe(reference(buf, max).committed);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a marker straddling two, three or more chunks is seen', () => {
    const line = `${'a'.repeat(50)}"usage"${'b'.repeat(50)}`;
    const buf = Buffer.from(`${line}\n${'c'.repeat(120)}\n`);
    for (const size of [1, 2, 3, 4, 5, 6, 7, 8, 13, 51, 53, 56]) {
      const got = viaSpans(buf, [size], 1000, () => true);
      expect(got.wanted.map((o) => (o.kind === 'line' ? o.text : ''))).toEqual([line]);
      expect(got.filtered).toBe(1);
    }
  });
});
