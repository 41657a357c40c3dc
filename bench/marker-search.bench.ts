/**
 * Question: how fast is the WebAssembly kernel's marker search (native/kernel.c `find_any_wasm_n`: each
 * marker's two rarest bytes pick the 32-byte blocks that may hold it, SIMD128), as the line splitter runs it
 * (`WasmKernel.pass`: the lines of a chunk that hold a marker), alone and with each marked line walked
 * (`WasmKernel.walk`, the codec's usage projection)? Codex's three usage markers and Claude's one, each over
 * eight 1 MiB chunks of that agent's files of the main corpus (whole lines), in the module's memory as a
 * read leaves them; against the splitter's JavaScript search (`Buffer#indexOf` per marker, what runs without
 * the kernel). An iteration searches the eight chunks REPEAT times; each case first checks that it finds
 * exactly the lines a per-line `indexOf` finds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { USAGE_MARKER } from '../codecs/claude/schema.js';
import { USAGE_FIELDS as CLAUDE_USAGE_FIELDS } from '../codecs/claude/walked.js';
import { CODEX_USAGE_FIELDS, CODEX_USAGE_MARKERS } from '../codecs/codex/prefilter.js';
import { type CompiledProjection, wasmProjectionOf } from '../cursors/scan-fields.js';
import { instantiateWasmKernel, PASS_RECORDS, WASM_READ_BYTES, type WasmKernel } from '../cursors/wasm.js';
import { ensureCorpus, mainCorpusSpec, type Corpus } from './lib/corpus.js';
import { check, type BenchCase, type BenchEnv, type IterationResult, type Topic } from './lib/harness.js';
import { runTopicMain } from './lib/main.js';

const CHUNKS = 8;
/** Searches of the eight chunks per iteration: about 20 ms at 6 GB/s. */
const REPEAT = 16;
/** No line is over-long here: every line is searched. */
const MAX_LINE = 0x7fffffff;

/** Up to `count` chunks of at most `size` bytes of an agent's files, each ending after an LF (a line longer than `size` is left out). */
function wholeLineChunks(corpus: Corpus, agent: string, count: number, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  let pending = Buffer.alloc(0);
  for (const f of corpus.manifest.files) {
    if (f.agent !== agent) continue;
    pending = Buffer.concat([pending, readFileSync(join(corpus.dir, f.path))]);
    while (pending.length >= size && chunks.length < count) {
      const lf = pending.lastIndexOf(10, size - 1);
      if (lf < 0) {
        const next = pending.indexOf(10, size);
        if (next < 0) break;
        pending = pending.subarray(next + 1);
        continue;
      }
      chunks.push(Buffer.from(pending.subarray(0, lf + 1)));
      pending = pending.subarray(lf + 1);
    }
    if (chunks.length === count) return chunks;
  }
  throw new Error(`the corpus holds fewer than ${count} chunks of ${agent} lines (BENCH_SCALE too small?)`);
}

/** The lines of `chunk` holding one of `markers`, by a per-line search (the reference). */
function markedLines(chunk: Buffer, markers: readonly Buffer[]): number {
  let marked = 0;
  for (let i = 0; i < chunk.length; ) {
    const lf = chunk.indexOf(10, i);
    const line = chunk.subarray(i, lf);
    if (markers.some((m) => line.indexOf(m) >= 0)) marked++;
    i = lf + 1;
  }
  return marked;
}

/**
 * The splitter's JavaScript search (cursors/line-splitter.ts `MarkerHits` over `Buffer#indexOf`): each marker's
 * next hit is remembered and searched again only once a line past it is reached.
 */
function jsSearch(chunk: Buffer, markers: readonly Buffer[]): number {
  const at = markers.map(() => -2); // -2: not searched yet; -1: none left
  const next = (from: number): number => {
    let best = -1;
    for (let k = 0; k < markers.length; k++) {
      let a = at[k] as number;
      if (a === -2 || (a !== -1 && a < from)) at[k] = a = chunk.indexOf(markers[k] as Buffer, from);
      if (a !== -1 && (best === -1 || a < best)) best = a;
    }
    return best;
  };
  let marked = 0;
  let hit = next(0);
  while (hit >= 0) {
    marked++;
    const lf = chunk.indexOf(10, hit);
    hit = lf < 0 ? -1 : next(lf + 1);
  }
  return marked;
}

interface State {
  w: WasmKernel;
  chunks: Buffer[];
  /** Marked lines of the eight chunks, by the reference. */
  want: number;
}

/** The lines `pass` (or, with `proj`, `walk`) marks in one chunk, and how many of them the walk took. */
function kernelSearch(w: WasmKernel, chunk: Buffer, markers: readonly Buffer[], proj: ReturnType<typeof wasmProjectionOf>): { marked: number; taken: number } {
  let marked = 0;
  let taken = 0;
  let from = 0;
  for (;;) {
    const n = proj === undefined ? w.pass(chunk, from, chunk.length, markers, MAX_LINE) : w.walk(chunk, from, chunk.length, markers, MAX_LINE, proj);
    check(n >= 0, 'the kernel refused the markers');
    const recs = proj === undefined ? w.passRecords : w.walked.recs;
    const stride = proj === undefined ? 4 : w.walked.stride;
    for (let r = 0; r < n; r++) {
      if (recs[stride * r] === 0) marked++;
      if (proj !== undefined && recs[stride * r + 4] === 1) taken++;
    }
    from = w.passStats[0] as number;
    if (n < (proj === undefined ? PASS_RECORDS : w.walked.cap)) return { marked, taken };
  }
}

export const topic: Topic = {
  name: 'marker-search',
  question: "The WebAssembly kernel's marker search (pass, and pass + walk) against Buffer#indexOf: Codex's 3 markers, Claude's 1, 8 MiB each",
  async prepare(env) {
    ensureCorpus(env.dir, mainCorpusSpec(env), { log: (s) => process.stderr.write(`${s}\n`) });
  },
  async cases(env: BenchEnv): Promise<BenchCase<any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const corpus = ensureCorpus(env.dir, mainCorpusSpec(env));
    const skip = instantiateWasmKernel() === undefined ? { skip: 'no WebAssembly kernel (native/wasm/kernel.wasm missing, or no SIMD128)' } : {};
    const agents: [string, string, readonly Buffer[], CompiledProjection][] = [
      ['codex', "Codex's 3 markers", CODEX_USAGE_MARKERS, CODEX_USAGE_FIELDS],
      ['claude', "Claude's 1 marker", [USAGE_MARKER], CLAUDE_USAGE_FIELDS],
    ];
    return agents.flatMap(([agent, label, markers, fields]) => {
      const lines = wholeLineChunks(corpus, agent, CHUNKS, WASM_READ_BYTES);
      const bytes = REPEAT * lines.reduce((n, c) => n + c.length, 0);
      const setup = (): State => {
        const w = instantiateWasmKernel() as WasmKernel;
        const chunks = lines.map((c) => {
          const b = w.takeReadBuffer(WASM_READ_BYTES);
          if (b === undefined) throw new Error('the kernel has fewer than 8 read buffers');
          c.copy(b);
          return b.subarray(0, c.length);
        });
        return { w, chunks, want: chunks.reduce((n, c) => n + markedLines(c, markers), 0) };
      };
      const baseline = `${agent}: Buffer#indexOf per marker (JavaScript)`;
      const verifyMarked = (r: IterationResult, s: State): void => {
        check(r.marked === REPEAT * s.want, `${String(r.marked)} marked lines, the per-line search finds ${REPEAT * s.want}`);
        check(r.bytes === bytes, `searched ${String(r.bytes)} bytes, not ${bytes}`);
      };
      const kernelCase = (walk: boolean): BenchCase<State> => ({
        name: `${agent}: kernel ${walk ? 'pass + walk' : 'pass'}, ${label}`,
        bytes,
        baseline,
        ...skip,
        setup,
        run: (s) => {
          const proj = walk ? wasmProjectionOf(fields, s.w) : undefined;
          check(!walk || proj !== undefined, 'the projection does not fit the kernel');
          let marked = 0;
          let taken = 0;
          for (let k = 0; k < REPEAT; k++)
            for (const c of s.chunks) {
              const r = kernelSearch(s.w, c, markers, proj);
              marked += r.marked;
              taken += r.taken;
            }
          return { marked, taken, bytes: REPEAT * s.chunks.reduce((n, c) => n + c.length, 0), counts: { 'marked lines': marked / REPEAT, ...(walk && { walked: taken / REPEAT }) } };
        },
        verify: (r, s) => {
          verifyMarked(r, s);
          if (walk) check((r.taken as number) > 0 && (r.taken as number) <= (r.marked as number), `the walk took ${String(r.taken)} of ${String(r.marked)} lines`);
        },
      });
      return [
        {
          name: baseline,
          bytes,
          ...skip,
          setup,
          run: (s: State) => {
            let marked = 0;
            for (let k = 0; k < REPEAT; k++) for (const c of s.chunks) marked += jsSearch(c, markers);
            return { marked, bytes: REPEAT * s.chunks.reduce((n, c) => n + c.length, 0), counts: { 'marked lines': marked / REPEAT } };
          },
          verify: verifyMarked,
        },
        kernelCase(false),
        kernelCase(true),
      ];
    });
  },
};

await runTopicMain(import.meta.url, topic);
