/**
 * A constant-memory walk of a JSON document whose top level is an array: each element is assembled on its own
 * with stream-json's Assembler and handed out after the chunk that completed it; the array is never held whole.
 */
import { Assembler } from 'stream-json/core/assembler.js';
import { tokenizeChunks, type Token } from '../../cursors/json-tokens.js';

export interface ArrayWalk {
  depth: number;
  asm: Assembler | undefined;
  /** Elements assembled since the last hand-out. */
  items: unknown[];
  done: boolean;
}

const notArray = (): Error => new Error('the document is not a JSON array');

function step(w: ArrayWalk, t: Token): void {
  if (w.asm !== undefined) {
    w.asm.consume(t);
    if (w.asm.done) {
      w.items.push(w.asm.current);
      w.asm = undefined;
    }
    return;
  }
  if (w.depth === 0) {
    if (w.done || t.name !== 'startArray') throw notArray();
    w.depth = 1;
  } else if (t.name === 'endArray') {
    w.depth = 0;
    w.done = true;
  } else {
    const asm = new Assembler();
    asm.consume(t);
    if (asm.done) w.items.push(asm.current);
    else w.asm = asm;
  }
}

/** Walk the document's chunks, yielding after each chunk with the elements completed so far in `w.items`. */
export function* walkArray(chunks: Generator<Buffer>, w: ArrayWalk): Generator<void> {
  yield* tokenizeChunks(chunks, (t) => step(w, t), () => {
    if (!w.done) throw notArray();
  });
}

export function newArrayWalk(): ArrayWalk {
  return { depth: 0, asm: undefined, items: [], done: false };
}
