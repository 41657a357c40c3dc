/**
 * The older Gemini CLI chat: one JSON `ConversationRecord` (`{sessionId, projectHash, startTime, lastUpdated,
 * summary?, kind?, messages: [MessageRecord…]}`), rewritten whole on every change. Read with stream-json's
 * tokenizer in constant memory (cursors/object-walk.ts): the top-level keys are assembled one by one, and `messages` one element at a
 * time, so the document is never held whole. Events are those of the JSONL core for the same messages (each
 * message once: the document has no copies, rewinds or checkpoints). When `sessionId` comes after
 * `messages` (third-party writers sort keys), a first pass skips the messages to read the keys, and a second
 * streams them.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { newObjectWalk, walkObject, type ObjectWalk } from '../../cursors/object-walk.js';
import { CODEC_ID, getGeminiPathInfo, type ProjectPaths } from './paths.js';
import { isRecord, messageEvent, str, toolEvents, usageEvent, type Rec } from './schema.js';

/** Walk the document once (cursors/object-walk.ts); messages collected so far are handed out after each chunk. */
function walk(chunks: () => Generator<Buffer>, w: ObjectWalk): Generator<void> {
  return walkObject(chunks(), w);
}

const newWalk = (wantMessages: boolean): ObjectWalk => newObjectWalk('messages', wantMessages);

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
function* messageEvents(rec: Rec, session: SessionEvent, index: number, state: { model: string | undefined; counted: Set<string> }): Generator<SessionfoldEvent> {
  const sessionId = session.sessionId;
  const msg = messageEvent(rec, sessionId, index);
  if (msg !== undefined) yield msg;
  const tools: SessionfoldEvent[] = [];
  toolEvents(rec, sessionId, index, (e) => tools.push(e));
  yield* tools;
  const id = str(rec.id);
  const u = id === undefined || state.counted.has(id) ? undefined : usageEvent(rec, sessionId, index, state.model, session.startedAt);
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
      const head = w.atArray;
      if (head === undefined) continue;
      if (session === undefined) {
        if (typeof head.sessionId !== 'string') break; // the id comes after the messages: read the keys first
        session = sessionOf(head, file, projects);
        yield session;
      }
      for (const m of w.items.splice(0)) if (isRecord(m)) yield* messageEvents(m, session, index++, state);
    }
    if (session !== undefined) {
      // Keys after the messages (Gemini CLI writes `summary` there: it is set later) come as a session event again.
      const late = sessionOf(w.meta, file, projects);
      if (JSON.stringify(late) !== JSON.stringify(session)) yield late;
      return;
    }
    if (w.atArray !== undefined) {
      const keys = newWalk(false);
      for (const _ of walk(chunks, keys)) continue;
      session = sessionOf(keys.meta, file, projects);
      yield session;
      w = newWalk(true);
      for (const _ of walk(chunks, w)) for (const m of w.items.splice(0)) if (isRecord(m)) yield* messageEvents(m, session, index++, state);
      return;
    }
    yield sessionOf(w.meta, file, projects);
  };
}
