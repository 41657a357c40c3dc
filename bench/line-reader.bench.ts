/**
 * Question: what does our line reader (`readLines` over `LineSplitter`, cursors/) cost over the raw I/O it
 * sits on? Goal (issue 2): within 1.3x of a bare `fs.read` loop over the same file with the same 1 MiB
 * buffer. Also shown: the bare loop plus an `indexOf` LF count (the floor for any line splitter), and the
 * splitter fed synchronously (no async iterator in between).
 */
import { LineSplitter } from '../cursors/line-splitter.js';
import { readLines } from '../cursors/read-lines.js';
import { DEFAULT_MAX_LINE_BYTES } from '../cursors/protocol/codec.js';
import { bigFileSpec, ensureCorpus, largestFile } from './lib/corpus.js';
import { check, type BenchCase, type BenchEnv, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';
import { bareRead } from './lib/read.js';

export const topic: Topic = {
  name: 'line-reader',
  question: 'readLines (LineSplitter) vs a bare fs.read loop over the same file (goal: within 1.3x)',
  async prepare(env) {
    ensureCorpus(env.dir, bigFileSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const big = largestFile(ensureCorpus(env.dir, bigFileSpec(env)));
    const note = `${(big.bytes / 1e6).toFixed(0)} MB Claude file, ${big.lines} lines`;
    const bare = 'bare fs.read loop';
    return [
      {
        name: bare,
        bytes: big.bytes,
        note,
        run: async () => ({ read: await bareRead(big.path) }),
        verify: (r) => check(r.read === big.bytes, `read ${String(r.read)} bytes of ${big.bytes}`),
      },
      {
        name: 'fs.read + indexOf LF count',
        bytes: big.bytes,
        baseline: bare,
        run: async () => {
          let lines = 0;
          await bareRead(big.path, (buf, n) => {
            for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) lines++;
          });
          return { events: lines };
        },
        verify: (r) => check(r.events === big.lines, `${String(r.events)} LFs, generated ${big.lines} lines`),
      },
      {
        name: 'LineSplitter.push (sync)',
        bytes: big.bytes,
        baseline: bare,
        run: async () => {
          let lines = 0;
          let end = 0;
          const splitter = new LineSplitter({
            startOffset: 0,
            maxLineBytes: DEFAULT_MAX_LINE_BYTES,
            onLine: (_l, _s, next) => {
              lines++;
              end = next;
            },
            onLongLine: () => undefined,
          });
          await bareRead(big.path, (buf, n) => splitter.push(buf, n));
          return { events: lines, end };
        },
        verify: (r) => {
          check(r.events === big.lines, `${String(r.events)} lines, generated ${big.lines}`);
          check(r.end === big.bytes, `last line ends at ${String(r.end)}, file is ${big.bytes} bytes`);
        },
      },
      {
        name: 'readLines (async iterator)',
        bytes: big.bytes,
        baseline: bare,
        run: async () => {
          let lines = 0;
          let end = 0;
          let bytes = 0;
          for await (const l of readLines(big.path)) {
            lines++;
            end = l.next;
            bytes += l.line.length;
          }
          return { events: lines, end, bytes };
        },
        verify: (r) => {
          check(r.events === big.lines, `${String(r.events)} lines, generated ${big.lines}`);
          check(r.end === big.bytes, `last line ends at ${String(r.end)}, file is ${big.bytes} bytes`);
          check(r.bytes === big.bytes - big.lines, `line bytes ${String(r.bytes)} + LFs != ${big.bytes}`);
        },
      },
    ];
  },
};

await runTopicMain(import.meta.url, topic);
