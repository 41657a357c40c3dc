/**
 * The pure core of the OpenCode codec: a session's records (whichever source they came from: database,
 * storage tree or export) → events. Token semantics (README.md): OpenCode's `tokens.input` excludes the
 * cache reads and writes, and the database's versions keep `tokens.output` without `tokens.reasoning`, so
 * outputTokens = output + reasoning and reasoningTokens = reasoning (the storage tree's versions kept the
 * reasoning inside output); `cost` is the USD OpenCode recorded.
 */
import type { EventKind, MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './descriptor.js';
import type { OpencodeMessageRecord, OpencodePart, OpencodeSessionInfo, OpencodeTokens } from './schema.js';
import { countOrZero } from '../../cursors/sane.js';
import { msTime } from '../../cursors/json-value.js';

export { CODEC_ID };

/** The most tokens one record may claim; more is not a count. */
/** A token count (cursors/sane.ts): negative, fractional, non-finite and absurd values count as 0. */
export const count = countOrZero;

/** An epoch-milliseconds value as ISO-8601, or undefined (opencode's exported name for `msTime`). */
export const isoOf = (ms: unknown): string | undefined => msTime(ms);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface EmitTarget {
  kinds: ReadonlySet<EventKind>;
  /** The agent the events are of: OpenCode, or a fork that keeps its files (Kilo CLI); default `opencode`. */
  agent?: string;
  emit: (e: SessionfoldEvent) => void;
  /**
   * The storage tree's versions wrote `tokens.output` as the AI SDK reported it (reasoning included for
   * OpenAI-style providers); the database's versions subtract the reasoning (README.md, "Tokens and cost").
   */
  outputHasReasoning?: boolean;
  /**
   * When the session was created (epoch ms). A reply made before it is a fork's copy (README "Forks of a
   * session"): the session it was made in counts it, so its usage is not emitted here.
   */
  sessionCreated?: number;
}

/** A reply older than its session: copied in by a fork (see `EmitTarget.sessionCreated`). */
function isForkCopy(rec: OpencodeMessageRecord, out: EmitTarget): boolean {
  const created = rec.info.time?.created;
  return out.sessionCreated !== undefined && typeof created === 'number' && created < out.sessionCreated;
}

export function sessionEvent(s: OpencodeSessionInfo, offset: number, agent: string = CODEC_ID): SessionEvent {
  const parent = str(s.parentID);
  return sessionEventOf(agent, s.id, offset, {
    cwd: str(s.directory),
    startedAt: isoOf(s.time?.created),
    title: str(s.title),
    forkedFrom: parent,
    // OpenCode sets parentID on the sessions its task tool starts (subagents).
    subagent: parent !== undefined || undefined,
    version: str(s.version),
    model: str(s.model?.id),
    provider: str(s.model?.providerID),
  });
}

function joinText(parts: readonly OpencodePart[], type: string): string {
  const out: string[] = [];
  for (const p of parts) if (p.type === type && typeof p.text === 'string' && p.ignored !== true) out.push(p.text);
  return out.join('\n');
}

interface TokenSums {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

function tokensOf(t: OpencodeTokens | null | undefined): TokenSums {
  return {
    input: count(t?.input),
    output: count(t?.output),
    reasoning: count(t?.reasoning),
    cacheRead: count(t?.cache?.read),
    cacheWrite: count(t?.cache?.write),
  };
}

const isZero = (t: TokenSums): boolean => t.input + t.output + t.reasoning + t.cacheRead + t.cacheWrite === 0;
const usd = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 1e6 ? v : undefined);

/** The message's usage: its own tokens, else the sum of its `step-finish` parts (older records). */
function usageOf(rec: OpencodeMessageRecord, sessionId: string, outputHasReasoning: boolean, agent: string): UsageEvent | undefined {
  const m = rec.info;
  const steps = rec.parts.filter((p) => p.type === 'step-finish');
  let t = tokensOf(m.tokens);
  let cost = usd(m.cost);
  if (isZero(t) && steps.length > 0) {
    t = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
    let stepCost: number | undefined;
    for (const s of steps) {
      const st = tokensOf(s.tokens);
      t.input += st.input;
      t.output += st.output;
      t.reasoning += st.reasoning;
      t.cacheRead += st.cacheRead;
      t.cacheWrite += st.cacheWrite;
      const c = usd(s.cost);
      if (c !== undefined) stepCost = (stepCost ?? 0) + c;
    }
    // OpenCode creates each reply with `cost: 0` and zero tokens: when the tokens come from the steps, the
    // reply's zero is that placeholder, not a price, so the steps' cost goes with their tokens.
    if (stepCost !== undefined && !cost) cost = stepCost;
  }
  if (isZero(t)) return undefined; // a response still streaming, or one that never started
  const model = str(m.modelID) ?? str(m.model?.modelID);
  return usageEventOf(agent, sessionId, rec.offset, {
    model,
    provider: str(m.providerID) ?? str(m.model?.providerID),
    // '' rather than usageEventOf's epoch for a message with neither time: what this codec has always emitted.
    timestamp: isoOf(m.time?.completed) ?? isoOf(m.time?.created) ?? '',
    inputTokens: t.input,
    outputTokens: outputHasReasoning ? Math.max(t.output, t.reasoning) : t.output + t.reasoning,
    reasoningTokens: outputHasReasoning ? Math.min(t.reasoning, t.output) : t.reasoning,
    cacheReadTokens: t.cacheRead,
    cacheWriteTokens: t.cacheWrite,
    costUsd: cost,
    singleRequest: steps.length <= 1,
    dedupKey: `${agent}:${m.id}`,
    messageId: m.id,
  });
}

function messageEvent(rec: OpencodeMessageRecord, sessionId: string, agent: string): MessageEvent | undefined {
  const m = rec.info;
  if (m.role !== 'user' && m.role !== 'assistant') return undefined;
  const e: MessageEvent = { type: 'message', agent, sessionId, offset: rec.offset, role: m.role, text: joinText(rec.parts, 'text'), nativeId: m.id };
  const thinking = joinText(rec.parts, 'reasoning');
  if (thinking !== '') e.thinking = thinking;
  const ts = isoOf(m.time?.created);
  if (ts !== undefined) e.timestamp = ts;
  const model = m.role === 'assistant' ? (str(m.modelID) ?? str(m.model?.modelID)) : undefined;
  if (model !== undefined) e.model = model;
  const parent = str(m.parentID);
  if (parent !== undefined) e.parentId = parent;
  if (m.summary === true || rec.parts.some((p) => p.type === 'compaction')) e.subtype = 'compaction';
  else {
    const texts = rec.parts.filter((p) => p.type === 'text');
    if (texts.length > 0 && texts.every((p) => p.synthetic === true)) e.subtype = 'synthetic';
  }
  return e;
}

/** Tool parts → a call, and a result once the tool has finished (`completed`, `error`; older `success`). */
function toolEvents(rec: OpencodeMessageRecord, sessionId: string, out: EmitTarget): void {
  const agent = out.agent ?? CODEC_ID;
  rec.parts.forEach((p, i) => {
    if (p.type !== 'tool') return;
    const callId = str(p.callID) ?? p.id;
    const name = str(p.tool) ?? 'unknown';
    const state = p.state ?? {};
    const offset = rec.partOffsets[i] ?? rec.offset;
    if (out.kinds.has('tool_call')) {
      const call: ToolCallEvent = { type: 'tool_call', agent, sessionId, offset, callId, name, input: state.input ?? null, messageId: rec.info.id };
      const ts = isoOf(state.time?.start);
      if (ts !== undefined) call.timestamp = ts;
      out.emit(call);
    }
    const status = state.status;
    if (out.kinds.has('tool_result') && (status === 'completed' || status === 'error' || status === 'success')) {
      const isError = status === 'error';
      const result: ToolResultEvent = { type: 'tool_result', agent, sessionId, offset, callId, toolName: name, output: (isError ? state.error : state.output) ?? null, isError };
      const ts = isoOf(state.time?.end);
      if (ts !== undefined) result.timestamp = ts;
      const start = state.time?.start;
      const end = state.time?.end;
      if (typeof start === 'number' && typeof end === 'number' && end >= start && end - start < 8.64e10) result.durationMs = end - start;
      out.emit(result);
    }
  });
}

/** Every event of one message, in the order message, usage, tool calls and results. */
export function emitMessage(rec: OpencodeMessageRecord, sessionId: string, out: EmitTarget): void {
  const agent = out.agent ?? CODEC_ID;
  if (out.kinds.has('message')) {
    const e = messageEvent(rec, sessionId, agent);
    if (e !== undefined) out.emit(e);
  }
  if (out.kinds.has('usage') && rec.info.role === 'assistant' && !isForkCopy(rec, out)) {
    const u = usageOf(rec, sessionId, out.outputHasReasoning === true, agent);
    if (u !== undefined) out.emit(u);
  }
  if (out.kinds.has('tool_call') || out.kinds.has('tool_result')) toolEvents(rec, sessionId, out);
}

/** OpenCode's order: messages by creation time, then id; parts by id. */
export function sortMessages(records: OpencodeMessageRecord[]): OpencodeMessageRecord[] {
  const created = (r: OpencodeMessageRecord): number => (typeof r.info.time?.created === 'number' ? r.info.time.created : 0);
  return records.sort((a, b) => created(a) - created(b) || (a.info.id < b.info.id ? -1 : a.info.id > b.info.id ? 1 : 0));
}

/** Parts sorted by id, with their offsets kept alongside. */
export function sortParts(parts: { part: OpencodePart; offset: number }[]): { parts: OpencodePart[]; offsets: number[] } {
  parts.sort((a, b) => (a.part.id < b.part.id ? -1 : a.part.id > b.part.id ? 1 : 0));
  return { parts: parts.map((p) => p.part), offsets: parts.map((p) => p.offset) };
}
