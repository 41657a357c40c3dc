/**
 * Token usage of a Copilot session: the CLI keeps per-call usage in memory only (`assistant.usage` is
 * ephemeral) and writes the totals of each run of the process into `session.shutdown.modelMetrics`, per
 * model. So one usage event per model per shutdown, `singleRequest: false`; or, where `session-store.db`
 * recorded the run's calls, one per call (`callUsage`). Semantics and sources: README.md.
 */
import type { UsageEvent } from '../../cursors/protocol/events.js';
import { usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { asObject, count, str, type Json } from './schema.js';
/** The model of usage whose model the shutdown does not name (only the session-wide fallback can lack one). */
export const UNKNOWN_MODEL = 'unknown';

/** Token fields of a usage event, never overlapping (billed input = input + cacheRead + cacheWrite). */
export interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * `modelMetrics[model].usage` → tokens. Its `inputTokens` is gross (cache reads and writes included), so the
 * uncached part is what is left after both; an input smaller than the cache counts cannot be gross and is
 * taken as uncached already. `reasoningTokens` is part of `outputTokens`.
 */
export function tokensOfMetric(u: Json): Tokens {
  const gross = count(u.inputTokens);
  const cacheRead = count(u.cacheReadTokens);
  const cacheWrite = count(u.cacheWriteTokens);
  const output = count(u.outputTokens);
  const input = gross >= cacheRead + cacheWrite ? gross - cacheRead - cacheWrite : gross;
  return { input, output, reasoning: Math.min(count(u.reasoningTokens), output), cacheRead, cacheWrite };
}

/** The session-wide `tokenDetails` (`input` is uncached already) → tokens; undefined when it holds none. */
export function tokensOfDetails(td: Json): Tokens | undefined {
  const at = (k: string) => count(asObject(td[k])?.tokenCount);
  const t: Tokens = { input: at('input'), output: at('output'), reasoning: 0, cacheRead: at('cache_read'), cacheWrite: at('cache_write') };
  return t.input + t.output + t.cacheRead + t.cacheWrite > 0 ? t : undefined;
}

/** One model call (a row of `session-store.db`, store.ts) of a session, as the core needs it (plain data: the core stays free of I/O). */
export interface PerCall {
  /** The row's `id` (INTEGER PRIMARY KEY): with the session id, the call's dedup key. */
  id: number;
  /** `created_at` in ms since the epoch (UTC), the order of the calls and their place among the runs. */
  ms: number;
  timestamp: string;
  model: string;
  tokens: Tokens;
}

/** What a shutdown's usage events share. */
export interface ShutdownContext {
  sessionId: string;
  offset: number;
  timestamp: string;
  /** The shutdown's event id (or its offset): with the session id and model, the event's dedup key. */
  key: string;
}

function usageEvent(c: ShutdownContext, model: string, fallback: boolean, t: Tokens): UsageEvent {
  return usageEventOf(CODEC_ID, c.sessionId, c.offset, {
    model,
    modelFallback: fallback,
    timestamp: c.timestamp,
    inputTokens: t.input,
    outputTokens: t.output,
    reasoningTokens: t.reasoning,
    cacheReadTokens: t.cacheRead,
    cacheWriteTokens: t.cacheWrite,
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${c.sessionId}:${c.key}:${model}`,
  });
}

/**
 * The usage events of one `session.shutdown` `data`: one per model of `modelMetrics` that has `usage`; when
 * none has, the session-wide `tokenDetails` as one event, on the only model of `modelMetrics`, else on
 * `currentModel` marked `modelFallback` (only what the shutdown itself says, so that every kind of read agrees).
 */
export function shutdownUsage(d: Json, c: ShutdownContext): UsageEvent[] {
  const metrics = asObject(d.modelMetrics) ?? {};
  const models = Object.keys(metrics).filter((m) => m !== '');
  const out: UsageEvent[] = [];
  for (const model of models) {
    const u = asObject(asObject(metrics[model])?.usage);
    if (u !== undefined) out.push(usageEvent(c, model, false, tokensOfMetric(u)));
  }
  if (out.length > 0) return out;
  const details = asObject(d.tokenDetails);
  const t = details === undefined ? undefined : tokensOfDetails(details);
  if (t === undefined) return out;
  if (models.length === 1) return [usageEvent(c, models[0] as string, false, t)];
  return [usageEvent(c, str(d.currentModel) ?? UNKNOWN_MODEL, true, t)];
}

/**
 * One call `session-store.db` recorded (store.ts): a single request, keyed by its row id, so a call read again
 * (another read of the session, a resumed one) counts once.
 */
export function callUsage(sessionId: string, offset: number, c: PerCall): UsageEvent {
  return usageEventOf(CODEC_ID, sessionId, offset, {
    model: c.model,
    timestamp: c.timestamp,
    inputTokens: c.tokens.input,
    outputTokens: c.tokens.output,
    reasoningTokens: c.tokens.reasoning,
    cacheReadTokens: c.tokens.cacheRead,
    cacheWriteTokens: c.tokens.cacheWrite,
    singleRequest: true,
    dedupKey: `${CODEC_ID}:${sessionId}:call:${c.id}`,
  });
}
