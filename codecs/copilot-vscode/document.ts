/**
 * The older whole-document session (`<session id>.json`, `ISerializableChatData`: `{version, sessionId,
 * creationDate, customTitle?, requests: […], …}`), rewritten whole on every save. Read with stream-json's
 * tokenizer (cursors/object-walk.ts): top-level keys are assembled one by one and `requests` one element at a
 * time, so the document is never held whole. Every request of a saved document is over (VS Code saves a running one as cancelled), so
 * each gives its prompt, response, tool calls and tokens at once, with its index in `requests` as offset.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent, SessionFields } from '../../cursors/protocol/events.js';
import { sessionEventOf } from '../../cursors/protocol/events.js';
import { newObjectWalk, walkObject } from '../../cursors/object-walk.js';
import { CODEC_ID, sessionIdOfPath } from './paths.js';
import { assistantEvent, isoOfMs, pruneRequest, str, toolEvents, usageEvents, userEvent, type Rec } from './schema.js';

function fields(meta: Rec, cwd: string | undefined, extra: SessionFields = {}): SessionFields {
  return { cwd, startedAt: isoOfMs(meta.creationDate), title: str(meta.customTitle), ...extra };
}

/** The document parser of `<session id>.json` (cursors/read-document.ts `DocumentParser`), with its workspace folder. */
export function createDocumentParser(cwd?: string) {
  return function* parseDocument(file: string, chunks: () => Generator<Buffer>, _options: NormalizedReadOptions): Generator<SessionfoldEvent> {
    const w = newObjectWalk('requests');
    let sessionId = sessionIdOfPath(file);
    let first: string | undefined;
    let index = 0;
    let withoutUsage = 0;
    for (const _ of walkObject(chunks(), w)) {
      if (first === undefined && (w.items.length > 0 || w.done)) {
        sessionId = str(w.meta.sessionId) ?? sessionId;
        const e = sessionEventOf(CODEC_ID, sessionId, 0, fields(w.meta, cwd));
        first = JSON.stringify(e);
        yield e;
      }
      for (const raw of w.items.splice(0)) {
        const r = pruneRequest(raw);
        const at = { sessionId, offset: index++, fallbackTime: isoOfMs(w.meta.creationDate) };
        const events = [userEvent(r, at), assistantEvent(r, at), ...toolEvents(r, at)];
        for (const e of events) if (e !== undefined) yield e;
        const usage = usageEvents(r, at);
        if (str(r.requestId) === undefined) continue;
        if (usage.length === 0) withoutUsage++;
        yield* usage;
      }
    }
    const flag = withoutUsage === 0 ? {} : { usageUnknown: true as const };
    const late = sessionEventOf(CODEC_ID, sessionId, 0, fields(w.meta, cwd, flag));
    if (JSON.stringify(late) !== first) yield late;
  };
}

