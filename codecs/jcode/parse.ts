/**
 * The Jcode session parser: pure and synchronous, over the text of a session's snapshot (`<id>.json`, one
 * `Session` document Jcode rewrites whole) and of its journal (`<id>.journal.jsonl`, one `SessionJournalEntry`
 * per line, appended between two snapshots). A session is the snapshot with the journal's entries applied in
 * order, as Jcode's own `load_from_path` builds it (README "Snapshot and journal").
 *
 * - `session` first (id, start, title, working folder, model, provider), and again at the end when the journal's
 *   metadata changed what it says, or when a message answered without tokens (`usageUnknown`).
 * - Per stored message, in order: `message` for its text (and thinking), `tool_call` per `tool_use` block,
 *   `tool_result` per `tool_result` block, and `usage` for an assistant message's `token_usage` (README "Tokens").
 * - A message is taken once by its `id`: the journal may still hold messages a snapshot already has (a save
 *   that wrote the snapshot and stopped before it removed the journal), and a split session holds its parent's.
 */
import type { SessionfoldEvent, SessionFields, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { saneCount } from '../../cursors/sane.js';
import { isoOf, rec, recs, str, type JsonRecord } from '../../cursors/json-value.js';
import { CODEC_ID } from './paths.js';

type Rec = JsonRecord;

/** What a read wants and where a refused record goes. */
export interface JcodeParseOptions {
  /** Whether messages, tool calls and results are wanted (a cost scan wants usage and sessions only). */
  conversation: boolean;
  /** A record refused (a journal line that does not parse, an absurd count): counted by the caller. */
  skip: (err: SessionfoldError) => void;
}

/** The metadata a session event takes, from the snapshot and then each journal entry's `meta`. */
interface Meta {
  title?: string;
  cwd?: string;
  model?: string;
  provider?: string;
  parentId?: string;
}

function metaOf(m: Rec, prev: Meta): Meta {
  return {
    title: str(m.custom_title) ?? str(m.title) ?? prev.title,
    cwd: str(m.working_dir) ?? prev.cwd,
    model: str(m.model) ?? prev.model,
    provider: str(m.provider_key) ?? prev.provider,
    parentId: str(m.parent_id) ?? prev.parentId,
  };
}

/** Providers whose `input_tokens` leaves the cache out (Anthropic's API); `derive_session_provider_key` names them. */
const CACHE_APART = new Set(['claude', 'anthropic']);

/** Token buckets, apart: uncached input, output, cache reads, cache writes. */
export interface JcodeBuckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * The buckets of one `StoredTokenUsage`, or undefined when it records no call: Jcode stores `{0, 0}` without cache
 * fields when a provider sent no usage (`unwrap_or(0)`). `input_tokens` is the provider's own count: it leaves the
 * cache out for Anthropic and holds the cache reads for OpenAI (jcode-session-types `ResponseStats`). Taken as
 * apart when the provider is Anthropic's, when `prompt_tokens` (the full prompt) equals input plus cache, or when
 * the cache is larger than the input; else as holding the cache, which is taken out (never counted twice).
 * An absurd count throws MALFORMED_LINE.
 */
export function bucketsOf(u: Rec, provider: string | undefined): JcodeBuckets | undefined {
  const input = saneCount(u.input_tokens, 'input_tokens');
  const output = saneCount(u.output_tokens, 'output_tokens');
  const cacheRead = saneCount(u.cache_read_input_tokens, 'cache_read_input_tokens');
  const cacheWrite = saneCount(u.cache_creation_input_tokens, 'cache_creation_input_tokens');
  const prompt = saneCount(u.prompt_tokens, 'prompt_tokens');
  if (input + output + cacheRead + cacheWrite === 0) return undefined;
  const cache = cacheRead + cacheWrite;
  const apart = (provider !== undefined && CACHE_APART.has(provider)) || (prompt > 0 && prompt === input + cache && cache > 0) || cache > input;
  return { input: apart ? input : input - cache, output, cacheRead, cacheWrite };
}

interface State {
  sessionId: string;
  createdAt: string | undefined;
  updatedAt: string | undefined;
  meta: Meta;
  seen: Set<string>;
  index: number;
  copies: number;
  withoutUsage: number;
  options: JcodeParseOptions;
}

function textOf(blocks: Rec[], types: readonly string[], key = 'text'): string {
  return blocks
    .filter((b) => types.includes(String(b.type)))
    .map((b) => str(b[key]) ?? '')
    .filter((t) => t !== '')
    .join('\n');
}

function* conversationEvents(s: State, m: Rec, blocks: Rec[], base: { agent: string; sessionId: string; offset: number; timestamp?: string }, id: string | undefined): Generator<SessionfoldEvent> {
  for (const b of blocks) {
    const callId = str(b.tool_use_id);
    if (b.type === 'tool_result' && callId !== undefined) yield { type: 'tool_result', ...base, callId, output: b.content ?? null, isError: b.is_error === true };
  }
  const text = textOf(blocks, ['text']);
  const thinking = textOf(blocks, ['reasoning', 'reasoning_trace']) || textOf(blocks, ['anthropic_thinking'], 'thinking');
  const role = m.display_role !== undefined && m.display_role !== null ? 'system' : m.role === 'assistant' ? 'assistant' : 'user';
  if (text !== '' || thinking !== '') {
    yield { type: 'message', ...base, role, text, ...(thinking !== '' && { thinking }), ...(role === 'assistant' && s.meta.model !== undefined && { model: s.meta.model }), ...(id !== undefined && { nativeId: id }) };
  }
  for (const b of blocks) {
    const callId = str(b.id);
    if (b.type === 'tool_use' && callId !== undefined) yield { type: 'tool_call', ...base, callId, name: str(b.name) ?? '', input: b.input ?? null, ...(id !== undefined && { messageId: id }) };
  }
}

function usageOf(s: State, m: Rec, id: string | undefined, timestamp: string | undefined, copied: boolean): UsageEvent | undefined {
  const u = rec(m.token_usage);
  const b = u === undefined ? undefined : bucketsOf(u, s.meta.provider);
  if (b === undefined) return undefined;
  return usageEventOf(CODEC_ID, s.sessionId, s.index, {
    model: s.meta.model,
    modelFallback: true,
    provider: s.meta.provider,
    timestamp: timestamp ?? s.updatedAt,
    inputTokens: b.input,
    outputTokens: b.output,
    cacheReadTokens: b.cacheRead,
    cacheWriteTokens: b.cacheWrite,
    singleRequest: true,
    dedupKey: id !== undefined ? `${CODEC_ID}:msg:${id}` : `${CODEC_ID}:${s.sessionId}:msg:${s.index}`,
    messageId: id,
    ...(copied && { copied: true }),
  });
}

/** One stored message's events; a message whose id was taken already yields none. */
function* messageEvents(s: State, m: Rec): Generator<SessionfoldEvent> {
  const id = str(m.id);
  if (id !== undefined) {
    if (s.seen.has(id)) return;
    s.seen.add(id);
  }
  const timestamp = isoOf(m.timestamp);
  // a split session starts with its parent's messages, stored before it was created
  const copied = s.meta.parentId !== undefined && timestamp !== undefined && s.createdAt !== undefined && timestamp < s.createdAt;
  const base = { agent: CODEC_ID, sessionId: s.sessionId, offset: s.index, ...(timestamp !== undefined && { timestamp }) };
  // a usage-only read (the cost scan's) builds no list of content blocks
  if (s.options.conversation) yield* conversationEvents(s, m, recs(m.content), base, id);
  if (m.role === 'assistant') {
    try {
      const usage = usageOf(s, m, id, timestamp, copied);
      if (usage !== undefined) yield usage;
      else if (m.display_role === undefined || m.display_role === null) s.withoutUsage++;
    } catch (e) {
      if (!(e instanceof SessionfoldError) || e.code !== 'MALFORMED_LINE') throw e;
      s.withoutUsage++;
      s.options.skip(new SessionfoldError('MALFORMED_LINE', `${s.sessionId}: message ${s.index}: ${e.message}`, { agent: CODEC_ID }));
    }
  }
  s.index++;
}

function fields(s: State, extra: SessionFields = {}): SessionFields {
  const forked = s.copies > 0 ? { forkedFrom: s.meta.parentId } : {};
  return { cwd: s.meta.cwd, startedAt: s.createdAt, title: s.meta.title, model: s.meta.model, provider: s.meta.provider, ...forked, ...extra };
}

/** The journal's entries, in order; a line that is not a JSON object is refused (counted), the rest still read. */
function* journalEntries(text: string, s: State): Generator<Rec> {
  let line = 0;
  for (const raw of text.split('\n')) {
    line++;
    const t = raw.trim();
    if (t === '') continue;
    let entry: Rec | undefined;
    try {
      entry = rec(JSON.parse(t));
    } catch {
      entry = undefined;
    }
    if (entry === undefined) s.options.skip(new SessionfoldError('MALFORMED_LINE', `${s.sessionId}: journal line ${line} is not a JSON object`, { agent: CODEC_ID, line }));
    else yield entry;
  }
}

/**
 * The events of one session: `snapshot` is the `<id>.json` text, `journal` the `<id>.journal.jsonl` text when
 * there is one. A snapshot that is not a JSON object throws PARSE_ERROR (the whole document is one record).
 */
export function* parseJcodeSession(fileSessionId: string, snapshot: string, journal: string | undefined, options: JcodeParseOptions): Generator<SessionfoldEvent> {
  let doc: Rec | undefined;
  try {
    doc = rec(JSON.parse(snapshot));
  } catch (cause) {
    throw new SessionfoldError('PARSE_ERROR', `${fileSessionId}: ${(cause as Error).message}`, { agent: CODEC_ID, cause });
  }
  if (doc === undefined) throw new SessionfoldError('PARSE_ERROR', `${fileSessionId}: the snapshot is not a JSON object`, { agent: CODEC_ID });
  const s: State = { sessionId: str(doc.id) ?? fileSessionId, createdAt: isoOf(doc.created_at), updatedAt: isoOf(doc.updated_at), meta: metaOf(doc, {}), seen: new Set(), index: 0, copies: 0, withoutUsage: 0, options };
  const entries = journal === undefined ? [] : [...journalEntries(journal, s)];
  // Every journal entry's meta repeats the parent, and Jcode writes a whole snapshot whenever it changes
  // (`metadata_requires_snapshot`), so the snapshot names it; a parent found only in the journal is still the
  // session's from its first message on, for the copies and the start event alike.
  s.meta.parentId ??= entries.map((e) => str(rec(e.meta)?.parent_id)).find((p) => p !== undefined);
  // the session's start event names its parent only once its copies are known: count them first
  s.copies = countCopies(doc, entries, s);
  const first = sessionEventOf(CODEC_ID, s.sessionId, 0, fields(s));
  yield first;
  for (const m of recs(doc.messages)) yield* messageEvents(s, m);
  for (const e of entries) {
    const meta = rec(e.meta);
    if (meta !== undefined) {
      s.meta = metaOf(meta, s.meta);
      s.updatedAt = isoOf(meta.updated_at) ?? s.updatedAt;
    }
    for (const m of recs(e.append_messages)) yield* messageEvents(s, m);
  }
  const late = sessionEventOf(CODEC_ID, s.sessionId, 0, fields(s, s.withoutUsage > 0 ? { usageUnknown: true } : {}));
  if (JSON.stringify(late) !== JSON.stringify(first)) yield late;
}

/** How many messages of the session were stored before it was created (a split's inherited copies). */
function countCopies(doc: Rec, entries: Rec[], s: State): number {
  if (s.meta.parentId === undefined || s.createdAt === undefined) return 0;
  const all = [...recs(doc.messages), ...entries.flatMap((e) => recs(e.append_messages))];
  return all.filter((m) => {
    const t = isoOf(m.timestamp);
    return t !== undefined && t < (s.createdAt as string);
  }).length;
}
