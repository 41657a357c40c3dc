/**
 * The Claude LineCore's state: one plain object, and its cursor snapshot.
 *
 * A cursor carries only what the lines after its offset need:
 * - the open responses (whose later lines may still bring a larger record), as data;
 * - the open tool calls (id → name), bounded to MAX_OPEN_CALLS, so a result after the offset gets its name;
 * - the keys of every response already counted, as 32-bit xxhash values (4 bytes each, base64), so a
 *   response repeated after the offset is not counted twice. A hash cannot tell a repeat from a collision,
 *   so a restored state that meets a hashed key restarts the read from byte 0 (RESTART): a collision costs
 *   a full read, never a wrong event. A fresh read keeps exact strings (no false positives).
 * - the session id taken from the lines, whether the session event was emitted, the last session event (a
 *   title record after the offset emits it again with the new title) and the titles recorded so far.
 */
import type { CoreContext } from '../../cursors/core.js';
import { hashId32 } from '../../cursors/ids.js';
import type { ReadInfo } from '../../cursors/protocol/codec.js';
import { usageEventFromJson, type SessionEvent, type UsageEvent } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { CODEC_ID, getClaudePathInfo, getOwnSessionId, type ClaudePathInfo } from './paths.js';
import { isRecord, type SubagentMeta } from './schema.js';

/** Open tool calls kept for matching results; the oldest is dropped beyond this. */
export const MAX_OPEN_CALLS = 256;
/** Ids of recently answered calls kept to drop a replayed result line (a resume rewrites the last one). */
export const MAX_CLOSED_CALLS = 32;
export const STATE_VERSION = 3;

/** The usage of the response being read: a later line of the same response may still replace it. */
export interface PendingUsage {
  /** The response key (see usage.ts `getResponseKey`). */
  key: string;
  event: UsageEvent;
}

/** A tool call waiting for its result. */
export interface OpenCall {
  name: string;
  /** uuid of the assistant line that issued it (2.1 results name it when the call has no id). */
  from: string | undefined;
}

/** What a usage/session-only read still looks at once the session event is out (see parse.ts). */
export interface ClaudeFilter {
  /** Lines holding `"usage"`: usage records (through the fast scanner). */
  usage: boolean;
  /** Lines holding `-title"`: title records (the session event repeats with a new title). */
  titles: boolean;
}

/** Titles recorded in the transcript; the session's title is the first one set of custom, ai, meta. */
export interface ClaudeTitles {
  /** The user's `/rename` (`custom-title` records; the last one wins). */
  custom?: string;
  /** Claude Code's generated title (`ai-title` records; the last one wins). */
  ai?: string;
}

/** All mutable state of one read (csv-parse `init_state`); `snapshotClaudeState` turns it into cursor JSON. */
export interface ClaudeState {
  /** The name the events carry: Claude's, or that of an agent that runs Claude Code (read-as.ts). */
  agent: string;
  file: string;
  path: ClaudePathInfo;
  /** The session the file's own lines name (paths.ts `getOwnSessionId`): a line naming another is a copy. */
  ownSessionId: string | undefined;
  info: ReadInfo;
  /** Usage/session-only reads: after the session event, only lines the filter names are parsed. */
  filter: ClaudeFilter | undefined;
  /** The subagent sidecar (`agent-<id>.meta.json`), when the read() wrapper found one. */
  meta: SubagentMeta | undefined;
  /** The first `sessionId` of the lines (used when the path gives none). */
  lineSessionId: string | undefined;
  sessionEmitted: boolean;
  /** The last session event emitted (a title change emits it again). */
  session: SessionEvent | undefined;
  titles: ClaudeTitles;
  /**
   * Responses whose later lines may still bring a larger record, oldest first (at most MAX_OPEN_RESPONSES:
   * parallel subagents of Claude Code ≤ 2.0.27 interleave responses in the main transcript).
   */
  pending: PendingUsage[];
  calls: Map<string, OpenCall>;
  /** Recently answered call ids, oldest first. */
  closed: string[];
  /** Keys of responses counted in this read, exact. */
  seen: Set<string>;
  /** Hashes of the keys counted before the cursor; undefined in a fresh read. */
  seenHashes: Set<number> | undefined;
  /** Lines the fast scanner read, and lines it left to JSON.parse (diagnostics; not in the cursor). */
  scanned: { fast: number; fallback: number };
}

/** The session id every event of the file carries. */
export function currentSessionId(s: ClaudeState): string {
  return s.path.sessionId ?? s.lineSessionId ?? s.path.stem;
}

/** Fresh state for a read from byte 0; kinds ⊆ {usage, session} turn the byte pre-filter on (titles: unless `titles` is false). */
export function initClaudeState(ctx: CoreContext, meta?: SubagentMeta, agent: string = CODEC_ID): ClaudeState {
  const kinds = ctx.options.kinds;
  const onlySessionUsage = [...kinds].every((k) => k === 'usage' || k === 'session');
  return {
    agent,
    file: ctx.file,
    path: getClaudePathInfo(ctx.file),
    ownSessionId: getOwnSessionId(ctx.file),
    info: ctx.options.info,
    filter: onlySessionUsage ? { usage: kinds.has('usage'), titles: kinds.has('session') && ctx.options.titles } : undefined,
    meta,
    lineSessionId: undefined,
    sessionEmitted: false,
    session: undefined,
    titles: {},
    pending: [],
    calls: new Map(),
    closed: [],
    seen: new Set(),
    seenHashes: undefined,
    scanned: { fast: 0, fallback: 0 },
  };
}

/** Remember an open call, dropping the oldest beyond MAX_OPEN_CALLS. */
export function openCall(s: ClaudeState, id: string, call: OpenCall): void {
  s.calls.delete(id);
  if (s.calls.size >= MAX_OPEN_CALLS) {
    const oldest = s.calls.keys().next();
    if (!oldest.done) s.calls.delete(oldest.value);
  }
  s.calls.set(id, call);
}

function close(s: ClaudeState, id: string): void {
  s.calls.delete(id);
  s.closed.push(id);
  if (s.closed.length > MAX_CLOSED_CALLS) s.closed.shift();
}

/** True when a result for this call id was already seen recently (and the call is not open again). */
export function isAnsweredCall(s: ClaudeState, id: string): boolean {
  return !s.calls.has(id) && s.closed.includes(id);
}

/** Close and return the call a result answers: by id, else by issuing line, else (no ids at all) the oldest. */
export function takeCall(s: ClaudeState, ids: readonly (string | undefined)[], fromUuid: string | undefined, oldest: boolean): [string, OpenCall] | undefined {
  for (const id of ids) {
    if (id === undefined) continue;
    const call = s.calls.get(id);
    if (call) {
      close(s, id);
      return [id, call];
    }
  }
  if (fromUuid !== undefined) {
    for (const [id, call] of s.calls) {
      if (call.from === fromUuid) {
        close(s, id);
        return [id, call];
      }
    }
  }
  if (oldest) {
    const first = s.calls.entries().next();
    if (!first.done) {
      close(s, first.value[0]);
      return first.value;
    }
  }
  return undefined;
}

function encodeHashes(hashes: Iterable<number>): string {
  const sorted = Uint32Array.from(hashes).sort();
  const buf = Buffer.allocUnsafe(sorted.length * 4);
  for (let i = 0; i < sorted.length; i++) buf.writeUInt32LE(sorted[i] as number, i * 4);
  return buf.toString('base64');
}

function decodeHashes(text: string): Set<number> {
  const buf = Buffer.from(text, 'base64');
  if (buf.length % 4 !== 0) throw invalid('seen');
  const out = new Set<number>();
  for (let i = 0; i < buf.length; i += 4) out.add(buf.readUInt32LE(i));
  return out;
}

/** The JSON a cursor stores. */
export interface ClaudeSnapshot {
  v: typeof STATE_VERSION;
  lineSessionId: string | null;
  sessionEmitted: boolean;
  /** The last session event emitted. */
  session: SessionEvent | null;
  titles: ClaudeTitles;
  pending: PendingUsage[];
  /** `[id, name]` or `[id, name, fromUuid]`, oldest first. */
  calls: ([string, string] | [string, string, string])[];
  /** Recently answered call ids, oldest first. */
  closed: string[];
  /** base64 of the sorted little-endian uint32 hashes of counted response keys. */
  seen: string;
}

/** Cursor JSON: exact keys are hashed here, so a fresh read pays for hashing once per cursor. */
export function snapshotClaudeState(s: ClaudeState): ClaudeSnapshot {
  const hashes = new Set<number>(s.seenHashes);
  for (const k of s.seen) hashes.add(hashId32(k));
  return {
    v: STATE_VERSION,
    lineSessionId: s.lineSessionId ?? null,
    sessionEmitted: s.sessionEmitted,
    session: s.session ?? null,
    titles: { ...s.titles },
    pending: s.pending.map((p) => ({ ...p })),
    calls: [...s.calls].map(([id, c]) => (c.from === undefined ? [id, c.name] : [id, c.name, c.from])),
    closed: [...s.closed],
    seen: encodeHashes(hashes),
  };
}

function invalid(field: string): SessionfoldError {
  return new SessionfoldError('CURSOR_INVALID', `Invalid claude cursor state: bad ${field}`, { agent: 'claude' });
}

/** State from a cursor's snapshot; CURSOR_INVALID for a shape it cannot use. */
export function restoreClaudeState(snapshot: unknown, ctx: CoreContext, meta?: SubagentMeta, agent: string = CODEC_ID): ClaudeState {
  if (!isRecord(snapshot) || snapshot.v !== STATE_VERSION) throw invalid('version');
  const s = initClaudeState(ctx, meta, agent);
  const { lineSessionId, sessionEmitted, session, titles, pending, calls, closed, seen } = snapshot;
  if (lineSessionId !== null && typeof lineSessionId !== 'string') throw invalid('lineSessionId');
  if (typeof sessionEmitted !== 'boolean') throw invalid('sessionEmitted');
  if (session !== null && !(isRecord(session) && session.type === 'session')) throw invalid('session');
  if (!isRecord(titles) || !Object.values(titles).every((t) => typeof t === 'string')) throw invalid('titles');
  if (!Array.isArray(pending) || !pending.every((p) => isRecord(p) && typeof p.key === 'string' && isRecord(p.event) && p.event.type === 'usage')) throw invalid('pending');
  if (!Array.isArray(calls)) throw invalid('calls');
  if (!Array.isArray(closed) || !closed.every((c) => typeof c === 'string')) throw invalid('closed');
  if (typeof seen !== 'string') throw invalid('seen');
  s.lineSessionId = lineSessionId ?? undefined;
  s.sessionEmitted = sessionEmitted;
  // The events a cursor holds take the reader's name: one a host wrote when it renamed Claude's at the emit holds `claude`.
  s.session = session === null ? undefined : { ...(session as unknown as SessionEvent), agent };
  s.titles = { ...(typeof titles.custom === 'string' && { custom: titles.custom }), ...(typeof titles.ai === 'string' && { ai: titles.ai }) };
  s.pending = (pending as unknown as PendingUsage[]).map((p) => ({ key: p.key, event: usageEventFromJson({ ...p.event, agent }) }));
  for (const c of calls) {
    if (!Array.isArray(c) || typeof c[0] !== 'string' || typeof c[1] !== 'string' || (c[2] !== undefined && typeof c[2] !== 'string')) throw invalid('calls');
    openCall(s, c[0], { name: c[1], from: c[2] as string | undefined });
  }
  s.closed = (closed as string[]).slice(-MAX_CLOSED_CALLS);
  s.seenHashes = decodeHashes(seen);
  return s;
}
