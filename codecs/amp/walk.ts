/**
 * A constant-memory walk of an Amp thread document with stream-json's tokenizer: each top-level value is
 * assembled on its own, except `messages`, whose elements are assembled one at a time, and `usageLedger`,
 * whose `events` elements are; nothing else of the ledger is kept. The document is never held whole.
 */
import { Assembler } from 'stream-json/core/assembler.js';
import { tokenizeChunks, type Token } from '../../cursors/json-tokens.js';

/** Where a value sits: a top-level key's, a message, a ledger event. */
type Target = 'meta' | 'message' | 'ledger';

interface Frame {
  /** `root`, `messages`, `ledger` (the usageLedger object), `events` (its array), or `skip`. */
  name: 'root' | 'messages' | 'ledger' | 'events' | 'skip';
  key: string;
}

export interface ThreadWalk {
  stack: Frame[];
  asm: Assembler | undefined;
  target: Target;
  key: string;
  /** Top-level values other than messages and usageLedger, as assembled so far. */
  meta: Record<string, unknown>;
  /** Messages assembled since the last hand-out. */
  messages: unknown[];
  /** Ledger events assembled since the last hand-out. */
  ledger: unknown[];
  /** The top-level values read when the `messages` array began (whatever the chunking). */
  atMessages: Record<string, unknown> | undefined;
  done: boolean;
}

const notObject = (): Error => new Error('the document is not a JSON object');
const isStart = (t: Token): boolean => t.name === 'startObject' || t.name === 'startArray';

export function newThreadWalk(): ThreadWalk {
  return { stack: [], asm: undefined, target: 'meta', key: '', meta: {}, messages: [], ledger: [], atMessages: undefined, done: false };
}

function deliver(w: ThreadWalk, value: unknown): void {
  if (w.target === 'message') w.messages.push(value);
  else if (w.target === 'ledger') w.ledger.push(value);
  else w.meta[w.key] = value;
}

function assemble(w: ThreadWalk, t: Token, target: Target, key = ''): void {
  const asm = new Assembler();
  w.target = target;
  w.key = key;
  asm.consume(t);
  if (asm.done) deliver(w, asm.current);
  else w.asm = asm;
}

/** A value begins inside `parent`: assemble it, descend into it, or skip it. */
function beginValue(w: ThreadWalk, parent: Frame, t: Token): void {
  if (parent.name === 'root') {
    if (parent.key === 'messages' && t.name === 'startArray') {
      w.atMessages ??= { ...w.meta };
      w.stack.push({ name: 'messages', key: '' });
    } else if (parent.key === 'usageLedger' && t.name === 'startObject') w.stack.push({ name: 'ledger', key: '' });
    else assemble(w, t, 'meta', parent.key);
  } else if (parent.name === 'messages') assemble(w, t, 'message');
  else if (parent.name === 'events') assemble(w, t, 'ledger');
  else if (parent.name === 'ledger' && parent.key === 'events' && t.name === 'startArray') w.stack.push({ name: 'events', key: '' });
  else if (isStart(t)) w.stack.push({ name: 'skip', key: '' });
}

export function stepThread(w: ThreadWalk, t: Token): void {
  if (w.asm !== undefined) {
    w.asm.consume(t);
    if (w.asm.done) {
      deliver(w, w.asm.current);
      w.asm = undefined;
    }
    return;
  }
  const parent = w.stack[w.stack.length - 1];
  if (parent === undefined) {
    if (w.done || t.name !== 'startObject') throw notObject();
    w.stack.push({ name: 'root', key: '' });
    return;
  }
  if (t.name === 'keyValue') parent.key = t.value;
  else if (t.name === 'endObject' || t.name === 'endArray') {
    w.stack.pop();
    if (w.stack.length === 0) w.done = true;
  } else beginValue(w, parent, t);
}

/** Walk the document's chunks, yielding after each chunk so the caller can hand out what was assembled. */
export function* walkThread(chunks: Generator<Buffer>, w: ThreadWalk): Generator<void> {
  yield* tokenizeChunks(chunks, (t) => stepThread(w, t), () => {
    if (!w.done) throw notObject();
  });
}
