/**
 * A constant-memory walk over the elements of one JSON array with stream-json's tokenizer: the document itself
 * (`key` undefined: `ui_messages.json` and `api_conversation_history.json` are arrays) or the array under one
 * top-level key of an object (`task_metadata.json`'s `model_usage`), or either (`orArray`: Roo Code's
 * `api_conversation_history.json`, a bare array or a `{version: 2, messages}` envelope). Each element is
 * assembled on its own and handed out; everything else is skipped token by token, so the document is never held
 * whole. The top-level strings of an object (Roo Code's `history_item.json`) are read the same way, by
 * `siblingStrings`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { Assembler } from 'stream-json/core/assembler.js';
import { tokenizeChunks, type Token } from '../../cursors/json-tokens.js';

interface Walk {
  key: string | undefined;
  /** Key mode only: a document that is a bare array is walked as the array. */
  orArray: boolean;
  /** 0: before the document; 1: inside the root; 2: inside the target array (key mode only). */
  depth: number;
  /** Open containers of a value being skipped. */
  skip: number;
  current: string;
  asm: Assembler | undefined;
  done: boolean;
  out: unknown[];
}

const isStart = (t: Token): boolean => t.name === 'startObject' || t.name === 'startArray';
const isEnd = (t: Token): boolean => t.name === 'endObject' || t.name === 'endArray';

function element(w: Walk, t: Token): void {
  const asm = new Assembler();
  asm.consume(t);
  if (asm.done) w.out.push(asm.current);
  else w.asm = asm;
}

function step(w: Walk, t: Token): void {
  if (w.asm !== undefined) {
    w.asm.consume(t);
    if (w.asm.done) {
      w.out.push(w.asm.current);
      w.asm = undefined;
    }
    return;
  }
  if (w.skip > 0) {
    if (isStart(t)) w.skip++;
    else if (isEnd(t)) w.skip--;
    return;
  }
  if (w.depth === 0) {
    if (w.orArray && !w.done && t.name === 'startArray') w.key = undefined;
    const want = w.key === undefined ? 'startArray' : 'startObject';
    if (w.done || t.name !== want) throw new Error(`the document is not a JSON ${w.key === undefined ? 'array' : 'object'}`);
    w.depth = 1;
    return;
  }
  const inArray = w.key === undefined ? w.depth === 1 : w.depth === 2;
  if (inArray) {
    if (t.name === 'endArray') {
      w.depth--;
      if (w.depth === 0) w.done = true;
    } else element(w, t);
    return;
  }
  // Key mode, inside the root object.
  if (t.name === 'keyValue') w.current = t.value as string;
  else if (t.name === 'endObject') {
    w.depth = 0;
    w.done = true;
  } else if (w.current === w.key && t.name === 'startArray') w.depth = 2;
  else if (isStart(t)) w.skip = 1;
}

/**
 * Walk `chunks`, yielding after each chunk; `out` receives the elements assembled meanwhile (the caller
 * empties it). Throws for a document that is not the expected shape or does not end where it should.
 */
export function* walkElements(chunks: Iterable<Buffer>, key: string | undefined, out: unknown[], orArray = false): Generator<void> {
  const w: Walk = { key, orArray, depth: 0, skip: 0, current: '', asm: undefined, done: false, out };
  yield* tokenizeChunks(chunks, (t) => step(w, t), () => {
    if (!w.done) throw new Error('the document ended early');
  });
}

/** The bytes of a file in chunks of `size` (one buffer reused); nothing when the file cannot be opened. */
export function* fileChunks(path: string, size: number): Generator<Buffer> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    const buf = Buffer.allocUnsafe(Math.max(1, size));
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      yield buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The string values of `keys` at the top level of a sibling document that is a JSON object; a missing, broken or
 * other document gives what was read before the break (side information, as `siblingElements`'). Nested values
 * are skipped token by token, never assembled.
 */
export function siblingStrings(path: string, keys: readonly string[], bufferSize: number): Partial<Record<string, string>> {
  const out: Partial<Record<string, string>> = {};
  let depth = 0;
  let key: string | undefined;
  const onToken = (t: Token): void => {
    if (isStart(t)) {
      if (depth === 0 && t.name !== 'startObject') throw new Error('the document is not a JSON object');
      depth++;
    } else if (isEnd(t)) depth--;
    else if (depth === 1 && t.name === 'keyValue') key = t.value;
    else if (depth === 1 && t.name === 'stringValue' && key !== undefined && keys.includes(key)) out[key] = t.value;
  };
  try {
    for (const _ of tokenizeChunks(fileChunks(path, bufferSize), onToken));
  } catch {
    // Side information: what was read before the break is kept.
  }
  return out;
}

/** Every element of a sibling document, one at a time; a missing or broken document ends the walk quietly. */
export function* siblingElements(path: string, key: string | undefined, bufferSize: number, orArray = false): Generator<unknown> {
  const out: unknown[] = [];
  try {
    for (const _ of walkElements(fileChunks(path, bufferSize), key, out, orArray)) yield* out.splice(0);
  } catch {
    // A sibling is side information: what was read before the break is kept.
  }
  yield* out.splice(0);
}
