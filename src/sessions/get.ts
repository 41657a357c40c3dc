/**
 * `get(agent, id)`: one session, whole. The file is found by id through the codec (`locate`, or the ids
 * `discover` reads off paths), never by parsing every session; then one `read()` of every event kind is
 * folded (fold.ts) into messages, tool calls with their results, per-message usage and cost.
 *
 * Errors: AGENT_NOT_FOUND (no such codec), SESSION_NOT_FOUND (no file for the id, or it vanished),
 * PARSE_ERROR (the file exists but yields no event of the codec's format, or the codec failed reading it).
 */
import { open, stat } from 'node:fs/promises';
import type { Codec, ReadInfo, SessionFile } from '../../cursors/protocol/codec.js';
import { getParserString, newReadInfo } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { getCodec } from '../registry.js';
import type { ManagerContext } from './context.js';
import { fileSessionId, findSessionFile, findSessionsByPrefix } from '../session-file.js';
import type { ExportSource } from './export.js';
import { SessionFold, type FoldResult } from './fold.js';
import { resolveUnifiedId } from './ids.js';
import type { Session, SessionMessage } from './types.js';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';

/** The file of session `id`, or SESSION_NOT_FOUND. */
export async function locateSession(ctx: ManagerContext, codec: Codec, id: string): Promise<SessionFile> {
  if (typeof id !== 'string' || id === '') throw new SessionfoldError('SESSION_NOT_FOUND', `No ${codec.id} session with an empty id`, { agent: codec.id });
  const roots = ctx.rootsFor(codec);
  const found = await findSessionFile(codec, roots, id);
  if (found === undefined) throw notFound(codec, id, roots);
  return found;
}

function notFound(codec: Codec, id: string, roots: readonly string[]): SessionfoldError {
  return new SessionfoldError('SESSION_NOT_FOUND', `No ${codec.id} session "${id}" under ${roots.join(', ') || '(no roots)'}`, { agent: codec.id });
}

/**
 * `resolveId(agent, idOrPrefix)`: `id` when a session has it, else the whole id of the one session whose id
 * starts with it (at least MIN_ID_PREFIX characters, as a commit is named by a prefix of its hash). Else
 * SESSION_NOT_FOUND, naming the sessions a prefix matched when it matched more than one. `get` and the
 * rest take whole ids only, as the spec has them; this is how a person's short id becomes one.
 */
export async function resolveSessionId(ctx: ManagerContext, agent: string, id: string): Promise<string> {
  const codec = getCodec(agent);
  const roots = ctx.rootsFor(codec);
  if (id !== '' && (await findSessionFile(codec, roots, id)) !== undefined) return id;
  const matches = await findSessionsByPrefix(codec, roots, id);
  const only = matches.length === 1 ? matches[0] : undefined;
  const whole = only === undefined ? undefined : fileSessionId(only);
  // the whole id must find the file again: what the session is then called by is an id its codec knows
  if (whole !== undefined && (await findSessionFile(codec, roots, whole)) !== undefined) return whole;
  if (matches.length > 1) {
    const ids = matches.slice(0, 5).map(fileSessionId);
    const count = matches.length > 5 ? 'More than 5' : String(matches.length);
    throw new SessionfoldError('SESSION_NOT_FOUND', `${count} ${codec.id} sessions start with "${id}": ${ids.join(', ')}${matches.length > 5 ? ', …' : ''}; give more of the id`, { agent: codec.id });
  }
  throw notFound(codec, id, roots);
}

async function isBlank(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return bytesRead < buf.length && buf.subarray(0, bytesRead).toString('utf8').trim() === '';
  } finally {
    await fh.close();
  }
}

/** A located session file, its size and mtime, and the price function, before any read. */
interface Opened {
  codec: Codec;
  file: SessionFile;
  size: number;
  mtimeMs: number;
  price: Awaited<ReturnType<ManagerContext['price']>>;
}

async function openSession(ctx: ManagerContext, agent: string, id: string): Promise<Opened> {
  const codec = getCodec(agent);
  const file = await locateSession(ctx, codec, id);
  let size: number;
  let mtimeMs: number;
  try {
    // the stat discovery took, when it took one (a session inside a database has no file of its own)
    const s = file.size !== undefined && file.mtimeMs !== undefined ? { size: file.size, mtimeMs: file.mtimeMs } : await stat(file.path);
    size = s.size;
    mtimeMs = s.mtimeMs;
  } catch (cause) {
    throw new SessionfoldError('SESSION_NOT_FOUND', `${codec.id} session "${id}": ${file.path} is gone`, { agent: codec.id, file: file.path, cause });
  }
  return { codec, file, size, mtimeMs, price: await ctx.price() };
}

/** Every event of the file into `each`; a codec failure is PARSE_ERROR (SESSION_NOT_FOUND stays itself). */
async function readAll(o: Opened, info: ReadInfo, each: (e: SessionfoldEvent) => boolean | void): Promise<void> {
  try {
    for await (const e of o.codec.read(o.file.path, { info })) if (each(e) === false) break;
  } catch (cause) {
    throw readError(o, cause);
  }
}

function readError(o: Opened, cause: unknown): SessionfoldError {
  if (cause instanceof SessionfoldError && (cause.code === 'SESSION_NOT_FOUND' || cause.code === 'PARSE_ERROR')) return cause;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new SessionfoldError('PARSE_ERROR', `Cannot read ${o.file.path} as ${o.codec.id}: ${why}`, { agent: o.codec.id, file: o.file.path, cause });
}

/** The Session of a finished fold (`messages` are the fold's: none for a first pass). */
async function toSession(ctx: ManagerContext, o: Opened, id: string, info: ReadInfo, r: FoldResult): Promise<Session> {
  const { codec, file, size, mtimeMs } = o;
  if (r.events === 0 && size > 0 && !(await isBlank(file.path))) {
    throw new SessionfoldError(
      'PARSE_ERROR',
      `${file.path} is not a ${codec.displayName} session: no records of its format (${info.skippedLines} malformed of ${info.lines} lines)`,
      { agent: codec.id, file: file.path },
    );
  }
  const session: Session = {
    agent: codec.id,
    sessionId: id,
    unifiedId: resolveUnifiedId(codec.id, id),
    title: r.title,
    createdAt: new Date(r.firstMs ?? mtimeMs),
    updatedAt: new Date(r.lastMs ?? mtimeMs),
    turnCount: r.turnCount,
    tags: ctx.tags().tagsFor(codec.id, id, r.cwd),
    messages: r.messages,
  };
  if (r.model !== undefined) session.model = r.model;
  if (r.cost !== undefined) {
    session.cost = r.cost;
    if (r.copiedCost !== undefined) session.copiedCost = r.copiedCost;
    session.costByModel = r.costByModel;
  }
  if (r.usageUnknown === true) session.usageUnknown = true;
  if (r.usageRecorded === false || codec.capabilities.recordsUsage === false) session.usageRecorded = false;
  if (r.cwd !== undefined) session.cwd = r.cwd;
  if (r.forkedFrom !== undefined) session.forkedFrom = r.forkedFrom;
  session.raw = {
    file: file.path,
    sizeBytes: size,
    parser: getParserString(codec),
    lines: info.lines,
    skippedLines: info.skippedLines,
    events: info.events,
    sessionEvents: r.sessionEvents.map((e) => ({ ...e })),
    orphanUsage: r.orphanUsage,
    unmatchedToolResults: r.unmatchedToolResults,
  };
  return session;
}

/** `get(agent, id)`: see the file header. */
export async function getSession(ctx: ManagerContext, agent: string, id: string): Promise<Session> {
  return (await getSessionWithUsage(ctx, agent, id, false)).session;
}

/** `get()`, and with `usage` the session's usage events from the same read (`FoldResult.usageEvents`). */
export async function getSessionWithUsage(ctx: ManagerContext, agent: string, id: string, usage: boolean): Promise<{ session: Session; usageEvents?: UsageEvent[] }> {
  const o = await openSession(ctx, agent, id);
  const info = newReadInfo();
  const fold = new SessionFold({ content: true, price: o.price, usageEvents: usage });
  await readAll(o, info, (e) => fold.push(e));
  const r = fold.finish();
  const session = await toSession(ctx, o, id, info, r);
  return r.usageEvents !== undefined ? { session, usageEvents: r.usageEvents } : { session };
}

/**
 * One session without holding it whole: `session` is what `get()` returns but for `messages` (empty) and
 * `raw.orphanUsage` (usage no message took: empty unless `orphanUsage` asks the first pass to keep it); `messageCount` is
 * `get().messages.length`, and `messages()` yields `get()`'s messages one by one, each as soon as no later
 * event can change it.
 *
 * Two reads of the file: the first folds what the session's header needs (counts, title, cost) without
 * text and notes, per message, the last event that touches it (a tool result sets its call's duration,
 * usage may name an earlier message); the second folds with text and releases each message once that
 * event is past, so it holds a message, or a call and the results up to its own, at a time. The second
 * read stops at the first's event count, so lines appended between the reads are not shown.
 */
export async function streamSession(ctx: ManagerContext, agent: string, id: string, options: StreamOptions = {}): Promise<SessionStream> {
  const o = await openSession(ctx, agent, id);
  const info = newReadInfo();
  const keep = options.orphanUsage === true;
  const first = new SessionFold({ content: false, price: o.price, track: true, orphans: keep, usageEvents: keep && options.usageEvents !== false });
  let count = 0;
  await readAll(o, info, (e) => {
    count++;
    first.push(e);
  });
  const r = first.finish();
  const session = await toSession(ctx, o, id, info, r);
  const touches = r.touches ?? [];
  async function* messages(): AsyncGenerator<SessionMessage> {
    const fold = new SessionFold({ content: true, price: o.price, settle: touches });
    let seen = 0;
    const again = newReadInfo();
    // a codec's read is an async iterator: pull it here so each settled message goes out before the next line
    const it = o.codec.read(o.file.path, { info: again })[Symbol.asyncIterator]();
    try {
      while (seen < count) {
        let step: IteratorResult<SessionfoldEvent>;
        try {
          step = await it.next();
        } catch (cause) {
          throw readError(o, cause);
        }
        if (step.done === true) break;
        seen++;
        fold.push(step.value);
        yield* fold.takeSettled();
      }
    } finally {
      await it.return?.();
    }
    yield* fold.takeSettled(true);
  }
  return { session, messageCount: r.messageCount, callDurations: r.callDurations ?? new Map(), ...(r.usageEvents !== undefined && { usageEvents: r.usageEvents }), messages };
}

/** How `SessionManager.stream` reads a session. */
export interface StreamOptions {
  /**
   * Fill `session.raw.orphanUsage` as `get()` does, and `usageEvents` (the first pass then keeps every usage
   * event until its end): what `exportPieces` needs for JSON and JSONL.
   */
  orphanUsage?: boolean;
  /**
   * Keep the usage events (`SessionStream.usageEvents`) with `orphanUsage`; default true. False for a caller
   * that writes usage with the messages only (`sessions show --format json`): the first pass then holds no
   * event past its use, which on a very large session is memory.
   */
  usageEvents?: boolean;
}

/** `SessionManager.stream`'s answer: one session's header, then its messages one by one (an `ExportSource`). */
export interface SessionStream extends ExportSource {
  session: Session;
  messageCount: number;
  /** Each message's calls' durations by call id, a later call of the same id over an earlier one (the JSONL export's). */
  callDurations: ReadonlyMap<string, number>;
  /** With `orphanUsage` (and `usageEvents` not false): the session's usage events, each dedup key once, as the fold kept them. */
  usageEvents?: readonly UsageEvent[];
  messages(): AsyncGenerator<SessionMessage>;
}
