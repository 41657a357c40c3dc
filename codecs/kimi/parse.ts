/**
 * The Kimi wire engine: pure and synchronous. It reads both CLIs' `wire.jsonl` (see README.md for the tables):
 *
 * Kimi Code, one record `{type, ..., time}` per line:
 *   metadata → the session event (with what the session's state.json says, given as `meta`);
 *   context.append_message → a user (or injected system) message; context.apply_compaction → a system one;
 *   context.append_loop_event: content.part → an assistant message, tool.call / tool.result → tool events;
 *   usage.record → usage (one per model call; `step.end` repeats the same counts and is not counted again).
 *
 * The Python kimi-cli, one record `{timestamp, message: {type, payload}}` per line after its metadata line:
 * read by cli-wire.ts (StatusUpdate → usage, one per step's model call).
 *
 * A line is told apart by its shape, so a file needs no mode: a kimi-cli record has no `type` of its own.
 */
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject } from '../../cursors/core.js';
import type { KindCounts, MessageRole } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { countOrZero } from '../../cursors/sane.js';
import { cliRecordReader } from './cli-wire.js';
import { CODEC_ID } from './descriptor.js';
import { msTime } from '../../cursors/json-value.js';
import { rec, str, textOf, type Rec } from './values.js';

export { CODEC_ID };

/** What the file beside a wire (state.json, a kimi-cli subagent's meta.json) adds to its session event. */
export interface KimiMeta {
  title?: string;
  cwd?: string;
  startedAt?: string;
  /** The subagent's parent agent (`main`) when state.json lists this wire's agent as a subagent. */
  parentAgentId?: string;
  /** A kimi-cli subagent's type (`coder`, `explore`, ...), from its meta.json. */
  agentType?: string;
}

export interface KimiCoreOptions {
  sessionId: string;
  /** The main session's id, for a subagent's wire. */
  parentSessionId?: string;
  meta?: KimiMeta;
  /** A kimi-cli session imported from elsewhere (`imported_sessions/`): its usage is marked `copied`. */
  imported?: boolean;
  /** kimi-cli's default model (its config.toml), for the calls its wire names no model for; marked `modelFallback`. */
  fallbackModel?: string | undefined;
}

export interface KimiState {
  file: string;
  model: string | undefined;
  cwd: string | undefined;
  sessionSeen: boolean;
  /**
   * A kimi-cli wire has compacted its context (`CompactionBegin`): that summarizing model call sends no
   * `StatusUpdate`, so the session's usage is a lower bound, said by a session event at the end (README "Tokens").
   */
  compacted: boolean;
  markers: Buffer[] | undefined;
}

/**
 * Lines a usage-only read needs: usage (Kimi Code's `usage.record`, kimi-cli's `StatusUpdate`, also inside a
 * `SubagentEvent`), the session, and the records that name the model (`"model` finds both, `llm.request` with
 * `model` or `modelAlias`, and `config.update`). Four at most: the native line source searches four markers in
 * one pass (native/kernel.h LS_MAX_MARKERS).
 */
const USAGE_MARKERS = ['"usage.record"', '"StatusUpdate"', '"metadata"', '"model'].map((m) => Buffer.from(m));

/** A token count, or 0 for anything that is not a sane one (negative, fractional, non-finite, absurd). */
export const tokenCount = countOrZero;

/** A user message's role and subtype from its `origin`: the user's own, or injected by the CLI. */
function originOf(origin: unknown): { role: MessageRole; subtype?: string } {
  const o = rec(origin);
  const kind = str(o?.kind);
  if (kind === undefined || kind === 'user') return { role: 'user' };
  const detail = str(o?.variant) ?? str(o?.name);
  return { role: 'system', subtype: detail === undefined ? kind : `${kind}:${detail}` };
}

export function createKimiCore(options: KimiCoreOptions): LineCore<KimiState> {
  const { sessionId, parentSessionId, meta = {}, imported = false, fallbackModel } = options;
  const base = (offset: number) => ({ agent: CODEC_ID, sessionId, offset });
  const cliRecord = cliRecordReader({ sessionId, rootSessionId: parentSessionId ?? sessionId, copied: imported, fallbackModel });

  function session(s: KimiState, r: Rec, offset: number, emit: Emit): void {
    s.sessionSeen = true;
    const startedAt = meta.startedAt ?? msTime(r.created_at);
    const version = str(r.protocol_version);
    const subagent = parentSessionId !== undefined || undefined;
    emit(sessionEventOf(CODEC_ID, sessionId, offset, { cwd: meta.cwd, startedAt, title: meta.title, forkedFrom: parentSessionId, subagent, agentType: meta.agentType, version: version !== undefined ? `wire ${version}` : undefined }));
  }

  function loopEvent(s: KimiState, ev: Rec, ts: string | undefined, offset: number, emit: Emit): void {
    const at = ts !== undefined ? { timestamp: ts } : {};
    if (ev.type === 'content.part') {
      const part = rec(ev.part);
      const id = str(ev.uuid);
      const common = { ...base(offset), role: 'assistant' as const, ...at, ...(s.model !== undefined && { model: s.model }), ...(id !== undefined && { nativeId: id }) };
      if (part?.type === 'text' && typeof part.text === 'string') emit({ type: 'message', ...common, text: part.text });
      else if (part?.type === 'think' && typeof part.think === 'string') emit({ type: 'message', ...common, text: '', thinking: part.think });
    } else if (ev.type === 'tool.call') {
      const callId = str(ev.toolCallId) ?? str(ev.uuid);
      if (callId !== undefined) emit({ type: 'tool_call', ...base(offset), callId, name: str(ev.name) ?? '', input: ev.args ?? null, ...at, ...(str(ev.stepUuid) !== undefined && { messageId: ev.stepUuid as string }) });
    } else if (ev.type === 'tool.result') {
      const callId = str(ev.toolCallId) ?? str(ev.parentUuid);
      const result = rec(ev.result);
      if (callId !== undefined) emit({ type: 'tool_result', ...base(offset), callId, output: result?.output ?? ev.result ?? null, isError: result?.isError === true, ...at });
    }
  }

  function usage(s: KimiState, r: Rec, ts: string | undefined, offset: number, emit: Emit): void {
    const u = rec(r.usage);
    if (u === undefined) return;
    const model = str(r.model) ?? s.model;
    emit(
      usageEventOf(CODEC_ID, sessionId, offset, {
        model,
        timestamp: ts,
        inputTokens: tokenCount(u.inputOther),
        outputTokens: tokenCount(u.output),
        cacheReadTokens: tokenCount(u.inputCacheRead),
        cacheWriteTokens: tokenCount(u.inputCacheCreation),
        singleRequest: true,
        dedupKey: `${CODEC_ID}:${sessionId}:${offset}`,
      }),
    );
  }

  return {
    init(ctx: CoreContext): KimiState {
      const onlyUsage = ctx.options.kinds.size === 1 && ctx.options.kinds.has('usage');
      return { file: ctx.file, model: undefined, cwd: undefined, sessionSeen: false, compacted: false, markers: onlyUsage ? USAGE_MARKERS : undefined };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = rec(snapshot) ?? {};
      s.model = str(o.model);
      s.sessionSeen = o.sessionSeen === true;
      s.compacted = o.compacted === true;
      return s;
    },
    snapshot(s) {
      return { model: s.model, sessionSeen: s.sessionSeen, ...(s.compacted && { compacted: true }) };
    },
    markers(s) {
      return s.markers;
    },
    line(s, line, start, emit: Emit) {
      if (s.markers !== undefined && !hasAnyMarker(line, s.markers)) return;
      const r = parseJsonObject(line, start, CODEC_ID, s.file);
      if (!s.sessionSeen) session(s, r, start, emit);
      if (typeof r.type !== 'string' && r.message !== undefined) {
        const m = rec(r.message);
        const p = rec(m?.payload);
        if (m === undefined || p === undefined) throw new SessionfoldError('MALFORMED_LINE', `kimi-cli wire record without a message payload at byte ${start} of ${s.file}`, { agent: CODEC_ID, file: s.file, byteOffset: start });
        if (m.type === 'CompactionBegin') s.compacted = true;
        cliRecord(m.type, p, r.timestamp, start, emit);
        return;
      }
      const ts = msTime(r.time);
      switch (r.type) {
        case 'config.update':
        case 'profile.bind':
          s.model = str(r.modelAlias) ?? s.model;
          return;
        case 'llm.request':
          s.model = str(r.modelAlias) ?? str(r.model) ?? s.model;
          return;
        case 'context.append_message': {
          const m = rec(r.message);
          if (m === undefined) return;
          const { role, subtype } = m.role === 'user' ? originOf(m.origin) : { role: 'assistant' as const, subtype: undefined };
          emit({ type: 'message', ...base(start), role, text: textOf(m.content), ...(ts !== undefined && { timestamp: ts }), ...(subtype !== undefined && { subtype }) });
          return;
        }
        case 'context.apply_compaction':
          emit({ type: 'message', ...base(start), role: 'system', text: str(r.summary) ?? '', ...(ts !== undefined && { timestamp: ts }), subtype: 'compaction' });
          return;
        case 'context.append_loop_event': {
          const ev = rec(r.event);
          if (ev !== undefined) loopEvent(s, ev, ts, start, emit);
          return;
        }
        case 'usage.record':
          usage(s, r, ts, start, emit);
          return;
        default:
          return; // every other record (config, permissions, plan mode, token counting) carries no event
      }
    },
    end(s, emit): KindCounts {
      if (!s.compacted || !s.sessionSeen) return {};
      emit(sessionEventOf(CODEC_ID, sessionId, 0, { usageUnknown: true }));
      return { session: 1 };
    },
  };
}
