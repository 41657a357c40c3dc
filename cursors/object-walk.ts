/**
 * A walk over a whole JSON document that is one object with one large array (a chat's `messages`, a
 * session's `requests`), for whole-document parsers (cursors/read-document.ts): the other top-level keys are
 * assembled one by one into `meta`, the array one element at a time into `items`, so the document is never
 * held whole. The parser hands out `items` after each chunk (the generator yields after each one). With
 * `wantItems: false` the array is skipped token by token (a first pass that only wants the keys).
 */
import { Assembler } from 'stream-json/core/assembler.js';
import { tokenizeChunks, type Token } from './json-tokens.js';

type Mode = 'start' | 'top' | 'key' | 'value' | 'items' | 'item' | 'skip' | 'end';

export interface ObjectWalk {
  readonly arrayKey: string;
  readonly wantItems: boolean;
  /** The top-level keys read so far, but the array's. */
  meta: Record<string, unknown>;
  /** The keys read when the array began (the same whatever the chunking), undefined before. */
  atArray: Record<string, unknown> | undefined;
  /** The array's elements assembled and not yet handed out. */
  items: unknown[];
  /** True once the document's object closed. */
  done: boolean;
  mode: Mode;
  key: string;
  asm: Assembler | undefined;
  depth: number;
}

export function newObjectWalk(arrayKey: string, wantItems = true): ObjectWalk {
  return { arrayKey, wantItems, meta: {}, atArray: undefined, items: [], done: false, mode: 'start', key: '', asm: undefined, depth: 0 };
}

const notObject = (): Error => new Error('the document is not a JSON object');

function begin(w: ObjectWalk, t: Token, next: 'value' | 'item', done: (v: unknown) => void): void {
  const asm = new Assembler();
  asm.consume(t);
  if (asm.done) done(asm.current);
  else {
    w.asm = asm;
    w.mode = next;
  }
}

function step(w: ObjectWalk, t: Token): void {
  switch (w.mode) {
    case 'start':
      if (t.name !== 'startObject') throw notObject();
      w.mode = 'top';
      return;
    case 'top':
      if (t.name === 'keyValue') {
        w.key = t.value;
        w.mode = 'key';
      } else if (t.name === 'endObject') {
        w.mode = 'end';
        w.done = true;
      }
      return;
    case 'key':
      if (w.key === w.arrayKey && t.name === 'startArray') {
        w.atArray ??= { ...w.meta };
        w.mode = w.wantItems ? 'items' : 'skip';
        w.depth = 0;
        return;
      }
      w.mode = 'top';
      begin(w, t, 'value', (v) => (w.meta[w.key] = v));
      return;
    case 'items':
      if (t.name === 'endArray') w.mode = 'top';
      else begin(w, t, 'item', (v) => w.items.push(v));
      return;
    case 'value':
    case 'item': {
      const asm = w.asm as Assembler;
      asm.consume(t);
      if (!asm.done) return;
      w.asm = undefined;
      if (w.mode === 'value') {
        w.meta[w.key] = asm.current;
        w.mode = 'top';
      } else {
        w.items.push(asm.current);
        w.mode = 'items';
      }
      return;
    }
    case 'skip':
      if (t.name === 'startObject' || t.name === 'startArray') w.depth++;
      else if (t.name === 'endObject' || t.name === 'endArray') {
        if (w.depth === 0) w.mode = 'top';
        else w.depth--;
      }
      return;
    case 'end':
      return;
  }
}

/** Walk the document once; the generator yields after each chunk's tokens, and throws for a document that is not one object. */
export function* walkObject(chunks: Iterable<Buffer>, w: ObjectWalk): Generator<void> {
  yield* tokenizeChunks(chunks, (t) => step(w, t), () => {
    if (!w.done) throw notObject();
  });
}
