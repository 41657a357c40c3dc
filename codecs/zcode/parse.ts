/**
 * Z Code's `db.sqlite` rows as events: pure, no SQLite here (index.ts reads the rows). README.md has the
 * schema and the token semantics with their sources.
 *
 * A `model_usage` row is one model request of a session (`session_id`, `turn_id`, `model_id`, `provider_id`,
 * `started_at`/`completed_at` in epoch ms, the token columns, `computed_total_tokens`); a `session` row names
 * the session's folder (`directory`, `path`), its parent (`parent_id`) and whether it is a subagent's
 * (`task_type`). The codec gives a session event and one usage event per request, no messages.
 */
import type { Emit } from '../../cursors/core.js';
import type { SessionEvent, TokenCounts, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { countOrZero } from '../../cursors/sane.js';
import { epochTime } from '../../cursors/json-value.js';

export type Row = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A token count that may reach a total (cursors/sane.ts); else 0. */
export const zcodeCount = countOrZero;

/** Epoch milliseconds (or seconds) as ISO-8601; undefined outside 2000-2200. */
export const msIso = (v: unknown): string | undefined => epochTime(typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);

/** A row's tokens: Z Code records no 1-hour cache writes. */
export type ZcodeTokens = Omit<TokenCounts, 'cacheWrite1hTokens'>;

/**
 * A row's columns in sessionfold's terms. The row's own total says how its columns overlap: a total of
 * input + output (+ reasoning) means `input_tokens` includes the cache reads and writes; a total that also
 * adds the cache columns means they are apart; reasoning added to the total means it is apart from
 * `output_tokens`. Without a total the columns are taken as Z Code writes them in every sampled database:
 * input including the cache, output including reasoning.
 */
export function zcodeTokens(row: Row): ZcodeTokens {
  const input = zcodeCount(row.input_tokens);
  const output = zcodeCount(row.output_tokens);
  const reasoning = zcodeCount(row.reasoning_tokens);
  const cacheRead = zcodeCount(row.cache_read_input_tokens);
  const cacheWrite = zcodeCount(row.cache_creation_input_tokens);
  const cache = cacheRead + cacheWrite;
  const totalRaw = row.computed_total_tokens ?? row.provider_total_tokens;
  const total = totalRaw === null || totalRaw === undefined ? undefined : zcodeCount(totalRaw);
  const totalSaysApart = total !== undefined && (total === input + output + cache || total === input + output + cache + reasoning);
  // An input smaller than its cache columns cannot include them: then they are apart whatever the total.
  const cacheApart = cache > 0 && (totalSaysApart || input < cache);
  const reasoningApart = total !== undefined && reasoning > 0 && (total === input + output + reasoning || total === input + output + cache + reasoning);
  return {
    inputTokens: cacheApart ? input : input - cache,
    outputTokens: reasoningApart ? output + reasoning : output,
    reasoningTokens: reasoningApart ? reasoning : Math.min(reasoning, output),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/** The id Z Code gives a subagent's session: `sess_subagent_<agentId>`. */
export const SUBAGENT_ID_PREFIX = 'sess_subagent_';

/**
 * Whether a session is a subagent's: its `task_type` is `subagent_child`; a row without a task type (a
 * database from before Z Code added it) is one when its id names a subagent. A fork or a side chat also has
 * a `parent_id`, and is not a subagent.
 */
export function isSubagentSession(id: string, row: Row | undefined): boolean {
  const taskType = str(row?.task_type);
  return taskType === undefined ? id.startsWith(SUBAGENT_ID_PREFIX) : taskType === 'subagent_child';
}

/**
 * The session event of a session id, from its `session` row when there is one: the folder, the title, the
 * session it was forked from or whose subagent it is (`parent_id`), whether it is a subagent's, the CLI
 * engine's version, and its creation time (else the first request's start).
 */
export function sessionEvent(id: string, row: Row | undefined, startedAt: string | undefined, usageless: boolean): SessionEvent {
  return sessionEventOf(CODEC_ID, id, 0, {
    cwd: str(row?.directory) ?? str(row?.path),
    startedAt: msIso(row?.time_created) ?? startedAt,
    title: str(row?.title),
    forkedFrom: str(row?.parent_id),
    version: str(row?.version),
    subagent: isSubagentSession(id, row) || undefined,
    usageUnknown: usageless || undefined,
  });
}

/** One `model_usage` row as a usage event (offset: its rowid); undefined when it holds no tokens. */
export function usageEvent(sessionId: string, row: Row, emit: Emit): UsageEvent | undefined {
  const t = zcodeTokens(row);
  if (t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens === 0) return undefined;
  const model = str(row.model_id)?.toLowerCase();
  const id = str(row.id) ?? String(row._rowid);
  const e = usageEventOf(CODEC_ID, sessionId, Number(row._rowid ?? 0), {
    model,
    timestamp: msIso(row.completed_at) ?? msIso(row.started_at),
    ...t,
    singleRequest: true,
    dedupKey: `${CODEC_ID}:${id}`,
    messageId: id,
  });
  emit(e);
  return e;
}
