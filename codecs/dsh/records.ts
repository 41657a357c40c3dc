/**
 * What the engine reads of one dsh record (README.md, "Records"): every line of a log is one JSON object, the
 * header `{type: "session", …}` or an event `{type, seq, time, data, …}` (packed delta rows of generations 0
 * and 1 carry no usage and are passed over). Pure functions over parsed records; parse.ts keeps the state.
 */
import { saneCount } from '../../cursors/sane.js';
import type { TokenCounts } from '../../cursors/protocol/events.js';
import { isRec, str, type JsonRecord } from '../../cursors/json-value.js';

export type Rec = JsonRecord;
export { isRec, str };

export const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** What a session's header says: the first record of every generation (README.md, "Header"). */
export interface Header {
  id: string | undefined;
  version: number | undefined;
  createdAt: number | undefined;
  cwd: string | undefined;
  parentSession: string | undefined;
  /** Generations 0 and 1: how many leading events a fork inherited. */
  seedLength: number | undefined;
  /** Generation 2 on: the session holds an inherited prefix, cut at its last tagged `session/end-seed`. */
  isSeeded: boolean;
  subagent: boolean;
  delegationDepth: number | undefined;
}

/** The header of a record that is one (`type: "session"` with its `createdAt`), else undefined. */
export function headerOf(r: Rec): Header | undefined {
  if (r.type !== 'session' || typeof r.createdAt !== 'number') return undefined;
  const depth = int(r.delegationDepth);
  return {
    id: str(r.id),
    version: int(r.version),
    createdAt: r.createdAt,
    cwd: str(r.cwd),
    parentSession: str(r.parentSession),
    seedLength: int(r.seedLength),
    isSeeded: r.isSeeded === true,
    subagent: r.origin === 'subagent' || (depth !== undefined && depth > 0),
    delegationDepth: depth,
  };
}

/**
 * An adapter's `TokenUsage` as sessionfold counts it: dsh's counts are disjoint already (`inputTokens` the
 * uncached input, cache reads and writes apart, `outputTokens` with the reasoning that `reasoningTokens`
 * details). Undefined when `u` is not one; MALFORMED_LINE (thrown) when a count is absurd.
 */
export function tokensOf(u: unknown): TokenCounts | undefined {
  if (!isRec(u) || typeof u.inputTokens !== 'number' || typeof u.outputTokens !== 'number') return undefined;
  const outputTokens = saneCount(u.outputTokens, 'usage.outputTokens');
  return {
    inputTokens: saneCount(u.inputTokens, 'usage.inputTokens'),
    outputTokens,
    reasoningTokens: Math.min(saneCount(u.reasoningTokens, 'usage.reasoningTokens'), outputTokens),
    cacheReadTokens: saneCount(u.cacheReadTokens, 'usage.cacheReadTokens'),
    cacheWriteTokens: saneCount(u.cacheWriteTokens, 'usage.cacheWriteTokens'),
    cacheWrite1hTokens: 0,
  };
}

/** The last `usage` chunk of an embedded Assistant stream (its raw `chunk` records; packed runs hold deltas only). */
export function streamUsage(stream: unknown): unknown {
  if (!Array.isArray(stream)) return undefined;
  for (let i = stream.length - 1; i >= 0; i--) {
    const r = stream[i] as unknown;
    if (isRec(r) && r.type === 'chunk' && isRec(r.chunk) && r.chunk.type === 'usage') return r.chunk.usage;
  }
  return undefined;
}

/** Whether an embedded stream delivered model output (a delta run, or a raw delta or block chunk). */
export function streamHasOutput(stream: unknown): boolean {
  if (!Array.isArray(stream)) return false;
  return stream.some((r: unknown) => isRec(r) && (r.type !== 'chunk' || (isRec(r.chunk) && typeof r.chunk.type === 'string' && r.chunk.type !== 'usage' && r.chunk.type !== 'finish')));
}

/** The route a `request/header` (`data.header.config`) or `request/context` (`data`) names for the next request. */
export function routeOf(type: string, data: Rec): { provider: string | undefined; model: string | undefined } | undefined {
  const src = type === 'request/context' ? data : isRec(data.header) && isRec(data.header.config) ? data.header.config : undefined;
  if (src === undefined) return undefined;
  const model = str(src.model);
  return model === undefined ? undefined : { provider: str(src.provider), model };
}

/** The text of content blocks of one type (`text`, `reasoning`), joined by blank lines. */
export function blockText(content: unknown, type: string): string {
  if (typeof content === 'string') return type === 'text' ? content : '';
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) if (isRec(b) && b.type === type && typeof b.text === 'string' && b.text !== '') parts.push(b.text);
  return parts.join('\n\n');
}

/** A tool result's output: the text of its blocks (nested results included), joined. */
export function resultText(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : '';
  const parts: string[] = [];
  for (const b of content) {
    if (!isRec(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool-result') parts.push(resultText(b.content));
  }
  return parts.join('\n');
}

/** Event types of an auxiliary model request whose tokens dsh does not record (a session title, a web search). */
export function isUnrecordedRequest(type: string): boolean {
  return type.endsWith('-llm-request');
}
