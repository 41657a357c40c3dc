/**
 * Devin CLI's `sessions.db` rows as events: pure, no SQLite here (index.ts reads the rows). README.md has the
 * schema, the token semantics and their sources.
 *
 * A `message_nodes` row holds one chat message (`chat_message`, JSON) of a session's tree: `/fork` and
 * `/revert` copy a prefix into new nodes, and Devin stores each assistant reply twice (twin rows with the same
 * `metadata.request_id` and the same metrics). A reply's usage is therefore keyed on what names the request
 * (`usageKeyOf`), never on the row: every copy of one request has one key, in whatever session it sits, and a
 * session gives one usage event per key. A copy in a session other than the request's first (the oldest
 * session holding it) is marked `copied`, so folds keep the first.
 */
import type { Emit } from '../../cursors/core.js';
import type { SessionEvent, SessionfoldEvent, TokenCounts } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { epochTime, isoOf, rec, str, type JsonRecord } from '../../cursors/json-value.js';
import { countOrZero } from '../../cursors/sane.js';
import type { SnapshotEvents } from '../../cursors/sqlite-events.js';
import { conversationEvents, conversationNodes } from './conversation.js';
import { CODEC_ID } from './paths.js';
import type { DevinNode, DevinSession, Row } from './schema.js';

export type { DevinNode, DevinSession, Row } from './schema.js';

/** The roles Devin writes (README "Messages"); a node with another is skipped. */
const ROLES = new Set(['user', 'assistant', 'system', 'tool']);

const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined);

/**
 * A row as a node, or undefined when it is not one this codec reads (counted as skipped): `chat_message` not a
 * JSON object, a role Devin does not write, or a `content` that is neither text, a list of blocks nor absent.
 * `msg` is the decoded message; `contentType` the JSON type of its content (`json_type`) when only fields of it
 * were selected.
 */
export function nodeOf(row: Row, msg: JsonRecord | undefined, contentType?: unknown): DevinNode | undefined {
  if (msg === undefined || typeof msg.role !== 'string' || !ROLES.has(msg.role)) return undefined;
  const type = contentType !== undefined ? contentType : jsonType(msg.content);
  if (type !== null && type !== 'null' && type !== 'text' && type !== 'array') return undefined;
  return { row: int(row._rowid) ?? 0, nodeId: int(row.node_id), parentNodeId: int(row.parent_node_id), createdAt: epochTime(row.created_at), msg };
}

/** SQLite's `json_type` of a value, as far as `nodeOf` asks: text, array, or null for none. */
function jsonType(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? 'text' : Array.isArray(v) ? 'array' : typeof v;
}

/** A reply's tokens: `metrics` as Devin records them, input apart from the cache (README "Tokens"). */
export type DevinTokens = Omit<TokenCounts, 'cacheWrite1hTokens'>;

/** The tokens of a reply's `metadata.metrics`; undefined without metrics (a reply not yet finished). */
export function devinTokens(metrics: unknown): DevinTokens | undefined {
  const m = rec(metrics);
  if (m === undefined || (typeof m.input_tokens !== 'number' && typeof m.output_tokens !== 'number')) return undefined;
  return {
    inputTokens: countOrZero(m.input_tokens),
    outputTokens: countOrZero(m.output_tokens),
    reasoningTokens: 0,
    cacheReadTokens: countOrZero(m.cache_read_tokens),
    cacheWriteTokens: countOrZero(m.cache_creation_tokens),
  };
}

/**
 * What names a reply's request across rows and sessions: `metadata.request_id`, else `message_id`, else its
 * own time (`metadata.created_at`), model and counts, which its twin row and every copy of it share. Never the
 * row's `created_at`: a `/fork` copy gets a new one, and would count again. Undefined for a node that is not a
 * reply with metrics.
 */
export function usageKeyOf(node: DevinNode): string | undefined {
  const { msg } = node;
  const meta = rec(msg.metadata);
  if (msg.role !== 'assistant' || meta === undefined) return undefined;
  const t = devinTokens(meta.metrics);
  if (t === undefined) return undefined;
  const id = str(meta.request_id) ?? str(msg.message_id);
  if (id !== undefined) return `${CODEC_ID}:${id}`;
  const at = isoOf(meta.created_at) ?? '';
  return `${CODEC_ID}:t:${at}:${str(meta.generation_model) ?? ''}:${t.inputTokens}:${t.outputTokens}:${t.cacheReadTokens}:${t.cacheWriteTokens}`;
}

/**
 * The first session of each usage key, sessions taken in the order given (oldest first), each with its keys:
 * the session that made the request, which a copy in another session was copied from.
 */
export function usageOwners(sessions: Iterable<readonly [string, Iterable<string>]>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [id, keys] of sessions) for (const key of keys) if (!owners.has(key)) owners.set(key, id);
  return owners;
}

/** A session's usage events, one per key in row order; the session a copied one came from first. */
function usageEvents(s: DevinSession, owners: ReadonlyMap<string, string>, emit: Emit): { count: number; from: string | undefined } {
  const seen = new Set<string>();
  let from: string | undefined;
  const sessionModel = str(s.row?.model);
  for (const n of s.nodes) {
    const key = usageKeyOf(n);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    const meta = rec(n.msg.metadata)!;
    const owner = owners.get(key);
    const copied = owner !== undefined && owner !== s.id;
    if (copied) from ??= owner;
    const model = str(meta.generation_model);
    emit(
      usageEventOf(CODEC_ID, s.id, n.row, {
        model: model ?? sessionModel,
        modelFallback: model === undefined,
        timestamp: n.createdAt ?? isoOf(meta.created_at),
        ...devinTokens(meta.metrics),
        singleRequest: true,
        dedupKey: key,
        messageId: str(n.msg.message_id) ?? str(meta.request_id),
        copied,
      }),
    );
  }
  return { count: seen.size, from };
}

/** The session event: folder, creation time, Devin's title and model when its row has them. */
function sessionEvent(s: DevinSession, forkedFrom: string | undefined, usageUnknown: boolean): SessionEvent {
  const r = s.row;
  return sessionEventOf(CODEC_ID, s.id, 0, {
    cwd: str(r?.working_directory),
    startedAt: epochTime(r?.created_at) ?? s.firstAt ?? s.nodes.find((n) => n.createdAt !== undefined)?.createdAt,
    title: str(r?.title),
    forkedFrom,
    model: str(r?.model),
    usageUnknown: usageUnknown || undefined,
  });
}

/**
 * A session's events: its session event, its conversation (with `conversation`; the main chain, README
 * "Messages") and its usage. A session whose replies carry no metrics at all says its usage is unknown.
 */
export function sessionEvents(s: DevinSession, owners: ReadonlyMap<string, string>, conversation: boolean): SnapshotEvents {
  const events: SessionfoldEvent[] = [];
  const usage: SessionfoldEvent[] = [];
  const { count, from } = usageEvents(s, owners, (e) => usage.push(e));
  const replies = s.nodes.some((n) => n.msg.role === 'assistant');
  events.push(sessionEvent(s, from, replies && count === 0));
  if (conversation) {
    const chain = conversationNodes(s.nodes, int(s.row?.main_chain_id));
    conversationEvents(s.id, chain, (e) => events.push(e));
  }
  events.push(...usage);
  return { events, skipped: s.skipped };
}
