/**
 * The older Gemini CLI chat: one JSON `ConversationRecord` (`{sessionId, projectHash, startTime, lastUpdated,
 * summary?, kind?, messages: [MessageRecord…]}`), rewritten whole on every change. Read with stream-json's
 * tokenizer in constant memory: the top-level keys are assembled one by one, and `messages` one element at a
 * time, so the document is never held whole. Events are those of the JSONL core for the same messages (each
 * message once: the document has no copies, rewinds or checkpoints). When `sessionId` comes after
 * `messages` (third-party writers sort keys), a first pass skips the messages to read the keys, and a second
 * streams them.
 */
import { Assembler } from 'stream-json/core/assembler.js';
import { tokenizeChunks, type Token } from '../../cursors/json-tokens.js';
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID, getGeminiPathInfo, type ProjectPaths } from './paths.js';
import { isRecord, messageEvent, str, toolEvents, usageEvent, type Rec } from './schema.js';

type Mode = 'start' | 'top' | 'key' | 'value' | 'messages' | 'message' | 'skip' | 'end';

/** What the walk reports: a top-level key's value, and each message (when messages are wanted). */
interface Walk {
  mode: Mode;
  key: string;
  asm: Assembler | undefined;
  depth: number;
  wantMessages: boolean;
  meta: Rec;
  /** The keys read when `messages` began (the session event's, whatever the chunking). */
  atMessages: Rec | undefined;
  messages: unknown[];
}

const notObject = (): Error => new Error('the document is not a JSON object');

function startValue(w: Walk, t: Token, next: Mode, done: (v: unknown) => void): void {
  const asm = new Assembler();
  asm.consume(t);
  if (asm.done) done(asm.current);
  else {
    w.asm = asm;
    w.mode = next;
  }
}

function step(w: Walk, t: Token): void {
  switch (w.mode) {
    case 'start':
      if (t.name !== 'startObject') throw notObject();
      w.mode = 'top';
      return;
    case 'top':
      if (t.name === 'keyValue') {
        w.key = t.value;
        w.mode = 'key';
      } else if (t.name === 'endObject') w.mode = 'end';
      return;
    case 'key':
      if (w.key === 'messages' && t.name === 'startArray') {
        w.atMessages ??= { ...w.meta };
        w.mode = w.wantMessages ? 'messages' : 'skip';
        w.depth = 0;
        return;
      }
      w.mode = 'top';
      startValue(w, t, 'value', (v) => (w.meta[w.key] = v));
      return;
    case 'value':
    case 'message': {
      const asm = w.asm as Assembler;
      asm.consume(t);
      if (!asm.done) return;
      w.asm = undefined;
      if (w.mode === 'value') {
        w.meta[w.key] = asm.current;
        w.mode = 'top';
      } else {
        w.messages.push(asm.current);
        w.mode = 'messages';
      }
      return;
    }
    case 'messages':
      if (t.name === 'endArray') w.mode = 'top';
      else startValue(w, t, 'message', (v) => w.messages.push(v));
      return;
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

/** Walk the document once; `onChunk` runs after each chunk's tokens (messages collected so far are handed out). */
function* walk(chunks: () => Generator<Buffer>, w: Walk): Generator<void> {
  yield* tokenizeChunks(chunks(), (t) => step(w, t), () => {
    if (w.mode !== 'end') throw notObject();
  });
}

function newWalk(wantMessages: boolean): Walk {
  return { mode: 'start', key: '', asm: undefined, depth: 0, wantMessages, meta: {}, atMessages: undefined, messages: [] };
}

function sessionOf(meta: Rec, file: string, projects: ProjectPaths | undefined): SessionEvent {
  const path = getGeminiPathInfo(file);
  const sessionId = str(meta.sessionId) ?? path.stem;
  const hash = str(meta.projectHash);
  const cwd = projects?.dir ?? (hash !== undefined ? projects?.byHash[hash] : undefined);
  const startedAt = str(meta.startTime);
  const title = str(meta.summary);
  const subagent = path.parentSessionId !== undefined || meta.kind === 'subagent';
  return sessionEventOf(CODEC_ID, sessionId, 0, { cwd, startedAt, title, subagent: subagent || undefined, spawnDepth: subagent ? 1 : undefined, forkedFrom: path.parentSessionId, provider: 'google' });
}

/** The events of one message; `offset` is its index in `messages` (a document has no line offsets). */
function* messageEvents(rec: Rec, sessionId: string, index: number, state: { model: string | undefined; counted: Set<string> }): Generator<SessionfoldEvent> {
  const msg = messageEvent(rec, sessionId, index);
  if (msg !== undefined) yield msg;
  const tools: SessionfoldEvent[] = [];
  toolEvents(rec, sessionId, index, (e) => tools.push(e));
  yield* tools;
  const id = str(rec.id);
  const u = id === undefined || state.counted.has(id) ? undefined : usageEvent(rec, sessionId, index, state.model);
  if (u !== undefined && id !== undefined) {
    state.counted.add(id);
    yield u;
  }
  const model = str(rec.model);
  if (model !== undefined && isRecord(rec.tokens)) state.model = model;
}

/** The document parser of `session-*.json` (cursors/read-document.ts `DocumentParser`), bound to project paths. */
export function createLegacyParser(projects?: ProjectPaths) {
  return function* parseLegacy(file: string, chunks: () => Generator<Buffer>, _options: NormalizedReadOptions): Generator<SessionfoldEvent> {
    let w = newWalk(true);
    let session: SessionEvent | undefined;
    const state = { model: undefined as string | undefined, counted: new Set<string>() };
    let index = 0;
    for (const _ of walk(chunks, w)) {
      const head = w.atMessages;
      if (head === undefined) continue;
      if (session === undefined) {
        if (typeof head.sessionId !== 'string') break; // the id comes after the messages: read the keys first
        session = sessionOf(head, file, projects);
        yield session;
      }
      for (const m of w.messages.splice(0)) if (isRecord(m)) yield* messageEvents(m, session.sessionId, index++, state);
    }
    if (session !== undefined) {
      // Keys after the messages (Gemini CLI writes `summary` there: it is set later) come as a session event again.
      const late = sessionOf(w.meta, file, projects);
      if (JSON.stringify(late) !== JSON.stringify(session)) yield late;
      return;
    }
    if (w.atMessages !== undefined) {
      const keys = newWalk(false);
      for (const _ of walk(chunks, keys)) continue;
      session = sessionOf(keys.meta, file, projects);
      yield session;
      w = newWalk(true);
      for (const _ of walk(chunks, w)) for (const m of w.messages.splice(0)) if (isRecord(m)) yield* messageEvents(m, session.sessionId, index++, state);
      return;
    }
    yield sessionOf(w.meta, file, projects);
  };
}
