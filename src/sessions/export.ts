/**
 * `export(agent, id, format)`: a Session as `json` (the object, dates as ISO strings), `jsonl` (sessionfold's
 * own format, `codecs/sessionfold-jsonl/schema.ts`: one header line, then one message per line, which the
 * `sessionfold-jsonl` codec reads back into the same messages), or `markdown` (markdown.ts).
 *
 * The JSONL message line keeps each message's full usage (`usage`: every token field, the agent's recorded
 * cost, dedup keys), so a re-imported export prices the same and is not counted twice beside its original;
 * with the session's usage events (`SessionManager.export`, the session store) each event keeps its own key
 * and time (`renderJsonl`). Usage attached to no message (usage-only records) comes before the messages as
 * empty assistant lines marked `orphanUsage`, so the re-imported session's cost is the original's.
 *
 * Each format is one layout (layout.ts: a head, a piece per message, an end), written here once: the whole
 * renderings (`renderExport`, `renderJsonl`, `SessionManager.export`) and the streamed export
 * (`exportPieces`, over `SessionManager.stream`, which `sessions show|export` write) are its pieces joined.
 */
import { invalidOption } from '../../cursors/protocol/errors.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import {
  EXPORT_FORMAT_VERSION,
  HEADER_TYPE,
  MESSAGE_TYPE,
  type ExportHeader,
  type ExportMessage,
  type ExportUsage,
} from '../../cursors/protocol/sessionfold-jsonl.js';
import { wholeText, layoutPieces, type ExportLayout } from './layout.js';
import { markdownLayout, type MarkdownOptions } from './markdown.js';
import type { ExportFormat, OrphanUsage, Session, SessionMessage, SessionMessageUsage } from './types.js';

/** The formats `SessionManager.export` writes. */
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'jsonl', 'markdown'];

export function checkExportFormat(format: unknown): ExportFormat {
  if (typeof format === 'string' && (EXPORT_FORMATS as readonly string[]).includes(format)) return format as ExportFormat;
  throw invalidOption('format', EXPORT_FORMATS.join('|'), format);
}

/** The JSONL header of a session. */
export function toExportHeader(s: Session, messageCount = s.messages.length): ExportHeader {
  const h: ExportHeader = {
    type: HEADER_TYPE,
    version: EXPORT_FORMAT_VERSION,
    agent: s.agent,
    sessionId: s.sessionId,
    unifiedId: s.unifiedId,
    title: s.title,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
  if (s.model !== undefined) h.model = s.model;
  if (s.cwd !== undefined) h.cwd = s.cwd;
  if (s.forkedFrom !== undefined) h.forkedFrom = s.forkedFrom;
  if (s.tags.length > 0) h.tags = s.tags;
  h.turnCount = s.turnCount;
  h.messageCount = messageCount;
  if (s.cost !== undefined) h.cost = { ...s.cost };
  if (s.copiedCost !== undefined) h.copiedCost = { ...s.copiedCost };
  if (s.usageUnknown === true) h.usageUnknown = true;
  if (s.usageRecorded === false) h.usageRecorded = false;
  return h;
}

/** One JSONL message line (plus `subtype`, which the schema does not name yet). */
export function toExportMessage(m: SessionMessage, index: number): ExportMessage & { subtype?: string } {
  const e: ExportMessage & { subtype?: string } = { type: MESSAGE_TYPE, index, role: m.role, content: m.content };
  if (m.timestamp !== undefined) e.timestamp = m.timestamp.toISOString();
  if (m.model !== undefined) e.model = m.model;
  if (m.thinking !== undefined) e.thinking = m.thinking;
  if (m.id !== undefined) e.id = m.id;
  if (m.subtype !== undefined) e.subtype = m.subtype;
  if (m.toolCalls !== undefined) {
    e.toolCalls = m.toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      input: c.input ?? null,
      ...(c.output !== undefined && { output: c.output }),
      ...(c.durationMs !== undefined && { durationMs: c.durationMs }),
    }));
  }
  if (m.toolResult !== undefined) e.toolResult = { ...m.toolResult, output: m.toolResult.output ?? null };
  if (m.tokenUsage !== undefined) e.tokenUsage = { ...m.tokenUsage };
  if (m.usage !== undefined) e.usage = exportUsage(m.usage);
  if (m.cost !== undefined) e.cost = { ...m.cost };
  return e;
}

/** ExportUsage fields not in the schema yet (the codec ignores them today). */
type ExportUsageExtra = { modelFallback?: true; speed?: string; webSearchRequests?: number };

/**
 * ExportUsage (`copied` when set), plus `modelFallback`, `speed` and `webSearchRequests`, of a message's
 * usage or of one usage event (`renderJsonl` writes each event of a message on its own line, so each keeps
 * its dedup key).
 */
function exportUsage(u: Omit<SessionMessageUsage, 'requests' | 'modelFallback'> & { modelFallback?: boolean }): ExportUsage & ExportUsageExtra {
  const usage: ExportUsage & ExportUsageExtra = {
    model: u.model,
    ...(u.modelFallback === true && { modelFallback: true as const }),
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    reasoningTokens: u.reasoningTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    cacheWrite1hTokens: u.cacheWrite1hTokens,
    singleRequest: u.singleRequest,
    dedupKey: u.dedupKey,
  };
  if (u.provider !== undefined) usage.provider = u.provider;
  if (u.costUsd !== undefined) usage.costUsd = u.costUsd;
  if (u.speed !== undefined) usage.speed = u.speed;
  if (u.webSearchRequests !== undefined) usage.webSearchRequests = u.webSearchRequests;
  if (u.copied === true) usage.copied = true;
  return usage;
}

/**
 * Usage that belongs to no message, as an empty assistant line marked `orphanUsage`: a re-import counts
 * it in the session's cost and, having no text, drops the message again.
 */
export function toOrphanLine(u: OrphanUsage, index: number): ExportMessage & { orphanUsage: true } {
  return { type: MESSAGE_TYPE, index, role: 'assistant', content: '', ...(u.timestamp !== undefined && { timestamp: u.timestamp }), usage: exportUsage(u), orphanUsage: true };
}

/** The events whose keys, `+`-joined in order, make `joined` (a message's merged usage); undefined when they cannot be told apart. */
function splitKeys(joined: string, byKey: ReadonlyMap<string, UsageEvent>, count: number): UsageEvent[] | undefined {
  const out: UsageEvent[] = [];
  let at = 0;
  while (at < joined.length) {
    let next: UsageEvent | undefined;
    for (let end = joined.indexOf('+', at); ; end = joined.indexOf('+', end + 1)) {
      const e = byKey.get(joined.slice(at, end < 0 ? undefined : end));
      if (e !== undefined) {
        next = e;
        at = end < 0 ? joined.length : end + 1;
        break;
      }
      if (end < 0) return undefined;
    }
    out.push(next);
  }
  return out.length === count ? out : undefined;
}

/**
 * The session as sessionfold-jsonl. Given the session's usage events (as its codec yields them, each dedup
 * key once), every event keeps its own key and time: a message the fold gave several events is written
 * with the first on its line and each further one on a usage-only line naming the message, so a re-read
 * yields the origin's events one for one, and a cost report over the copy and its source counts each once
 * (a `+`-joined key would count beside the originals). `usage.timestamp` is written when it is not the
 * line's. Usage that belonged to no message comes first, before any message a re-read could attach it to.
 */
export function renderJsonl(s: Session, events: readonly UsageEvent[] = []): string {
  return wholeText(layoutFor(wholeSource(s, events), 'jsonl'), s.messages);
}

/** Each message's calls' durations by call id, a later call of the same id over an earlier one. */
function callDurations(messages: readonly SessionMessage[]): Map<string, number> {
  return new Map(messages.flatMap((m) => (m.toolCalls ?? []).filter((c) => c.durationMs !== undefined).map((c) => [c.toolCallId, c.durationMs as number])));
}

/**
 * `renderJsonl`'s lines in order, for a session whose messages come one by one: `head()` (the header and
 * the orphan usage lines), then `message(m, i)` for each. `messageCount` and `durations` (each call's
 * duration by call id, over all messages) are the whole session's.
 */
class JsonlLines {
  readonly #byKey: Map<string, UsageEvent>;
  #index: number;
  constructor(
    readonly session: Session,
    readonly messageCount: number,
    readonly durations: ReadonlyMap<string, number>,
    events: readonly UsageEvent[] = [],
  ) {
    this.#byKey = new Map(events.map((e) => [e.dedupKey, e]));
    this.#index = messageCount;
  }

  #usage(e: UsageEvent, lineTime: string | undefined) {
    return { ...exportUsage(e), ...(e.timestamp !== lineTime && { timestamp: e.timestamp }) };
  }

  head(): string[] {
    const lines = [JSON.stringify(toExportHeader(this.session, this.messageCount))];
    for (const u of this.session.raw?.orphanUsage ?? []) {
      const line = toOrphanLine(u, this.#index++);
      const e = this.#byKey.get(u.dedupKey);
      lines.push(JSON.stringify(e === undefined ? line : { ...line, usage: this.#usage(e, line.timestamp) }));
    }
    return lines;
  }

  message(m: SessionMessage, i: number): string[] {
    const line = toExportMessage(m, i);
    const ms = line.toolResult !== undefined && line.toolResult.durationMs === undefined ? this.durations.get(line.toolResult.toolCallId) : undefined;
    if (ms !== undefined && line.toolResult !== undefined) line.toolResult.durationMs = ms;
    const parts = m.usage !== undefined ? splitKeys(m.usage.dedupKey, this.#byKey, m.usage.requests) : undefined;
    if (parts === undefined) return [JSON.stringify(line)];
    const lines = [JSON.stringify({ ...line, usage: this.#usage(parts[0] as UsageEvent, line.timestamp) })];
    for (const e of parts.slice(1)) {
      lines.push(JSON.stringify({ type: MESSAGE_TYPE, index: this.#index++, role: 'assistant', content: '', ...(m.id !== undefined && { id: m.id }), timestamp: e.timestamp, usage: this.#usage(e, e.timestamp), orphanUsage: true }));
    }
    return lines;
  }
}

/** The JSONL layout (layout.ts): each line with its `\n`. */
function jsonlLayout(source: ExportSource): ExportLayout {
  const w = new JsonlLines(source.session, source.messageCount, source.callDurations, source.usageEvents);
  const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
  let i = 0;
  return { head: () => text(w.head()), message: (m) => text(w.message(m, i++)), end: () => '' };
}

/** The root key `JSON.stringify(session, null, 2)` writes the messages under, with no messages. */
const NO_MESSAGES = '\n  "messages": []';

/**
 * The JSON layout (layout.ts): `JSON.stringify(session, null, 2)` and a newline, with the messages written
 * one by one. The session without its messages is stringified once and cut where its empty `messages`
 * array is; each message is stringified alone and indented to its depth (two levels: four spaces; a JSON
 * text has no raw newline inside a string, so indenting after each newline is exact).
 */
function jsonLayout(s: Session): ExportLayout {
  const text = JSON.stringify({ ...s, messages: [] }, null, 2);
  const at = text.indexOf(NO_MESSAGES) + NO_MESSAGES.length - 2;
  let n = 0;
  return {
    head: () => text.slice(0, at),
    message: (m) => `${n++ === 0 ? '[' : ','}\n    ${JSON.stringify(m, null, 2).replace(/\n/g, '\n    ')}`,
    end: () => `${n === 0 ? '[]' : '\n  ]'}${text.slice(at + 2)}\n`,
  };
}

/**
 * What an export is written from: the session's header (`session`, its `messages` unused), the message
 * count and each call's duration over the whole session, its usage events (each dedup key once, as the
 * fold kept them), and the messages in order. `SessionManager.stream(…, { orphanUsage: true })` is one;
 * `usageEvents` is how a stream says it was opened so (its `session.raw.orphanUsage` is then get()'s).
 */
export interface ExportSource {
  session: Session;
  messageCount: number;
  callDurations: ReadonlyMap<string, number>;
  usageEvents?: readonly UsageEvent[] | undefined;
  messages(): AsyncIterable<SessionMessage> | Iterable<SessionMessage>;
}

/** A session in memory as an export source (`events`: its usage events, for the JSONL lines' own keys). */
export function wholeSource(s: Session, events: readonly UsageEvent[] = []): ExportSource {
  return { session: s, messageCount: s.messages.length, callDurations: callDurations(s.messages), usageEvents: events, messages: () => s.messages };
}

function layoutFor(source: ExportSource, format: ExportFormat, markdown: MarkdownOptions = {}): ExportLayout {
  switch (checkExportFormat(format)) {
    case 'json':
      return jsonLayout(source.session);
    case 'jsonl':
      return jsonlLayout(source);
    case 'markdown':
      return markdownLayout(source.session, markdown, source.messageCount);
  }
}

/**
 * The session in `format` as pieces, in order, each message's as soon as the source yields it: joined,
 * they are `renderExport`'s bytes for the same session (JSONL with the source's usage events, as
 * `SessionManager.export` writes it). So a session too large to hold is exported from
 * `SessionManager.stream` holding about one message; JSON and JSONL need the stream opened with
 * `{ orphanUsage: true }` (INVALID_OPTION otherwise: their header is get()'s, usage no message took
 * included). `markdown` cuts long blocks (`sessions show`).
 *
 * @example
 * const sm = createSessionManager();
 * const stream = await sm.stream('claude', id, { orphanUsage: true });
 * for await (const piece of exportPieces(stream, 'jsonl')) process.stdout.write(piece);
 */
export function exportPieces(source: ExportSource, format: ExportFormat, markdown: MarkdownOptions = {}): AsyncGenerator<string> {
  const f = checkExportFormat(format);
  if (f !== 'markdown' && source.usageEvents === undefined) throw invalidOption('stream', `one opened with { orphanUsage: true } for the ${f} export`, { orphanUsage: false });
  return layoutPieces(layoutFor(source, f, markdown), source.messages());
}

/** The session in `format` (see the file header; `renderJsonl` with its usage events keeps each one). */
export function renderExport(s: Session, format: ExportFormat, markdown: MarkdownOptions = {}): string {
  return wholeText(layoutFor(wholeSource(s), format, markdown), s.messages);
}
