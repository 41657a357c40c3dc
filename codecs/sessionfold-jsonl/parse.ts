/**
 * The engine of the sessionfold-jsonl codec: pure and synchronous. A header line sets the session; every
 * message line yields a `message`, its tool calls, its tool result and its usage.
 *
 * The same engine reads the session store (`store`, store.ts) with two differences: the session id is the
 * path's (a store name, or `<parent>/<child>` for a stored subagent), never the header's, which names the
 * origin's session; and a stored subagent's session event says so (`subagent`, `forkedFrom` the parent).
 */
import { basename } from 'node:path';
import type { CoreContext, Emit, LineCore } from '../../cursors/core.js';
import { hasAnyMarker, parseJsonObject } from '../../cursors/core.js';
import type { KindCounts, MessageRole } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { isExportHeader, isExportMessage } from '../../cursors/protocol/sessionfold-jsonl.js';
import { CODEC_ID } from './descriptor.js';

export { CODEC_ID };

export interface SessionfoldJsonlState {
  file: string;
  sessionId: string;
  model: string | undefined;
  headerSeen: boolean;
  /** Only lines with one of these markers are parsed (usage-only reads). */
  markers: Buffer[] | undefined;
}

const USAGE_MARKERS = [Buffer.from('"usage"'), Buffer.from('sessionfold.session')];
const ROLES = new Set<MessageRole>(['user', 'assistant', 'system', 'tool']);

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** What a file's path says about its session, for a core that takes ids from paths. */
export interface PathSession {
  sessionId: string;
  /** The parent session, for a subagent's file. */
  parent?: string;
}

export interface CoreOptions {
  /** The codec id put on events. */
  id: string;
  /** Take the session id from the path (not the header), with subagent-ness. */
  pathSession?: (file: string) => PathSession;
}

/** A sessionfold-jsonl engine for codec `id` (see the file header). */
export function createSessionfoldJsonlCore(options: CoreOptions): LineCore<SessionfoldJsonlState> {
  const { id, pathSession } = options;
  return {
    init(ctx: CoreContext): SessionfoldJsonlState {
      const onlyUsage = ctx.options.kinds.size === 1 && ctx.options.kinds.has('usage');
      return {
        file: ctx.file,
        sessionId: pathSession?.(ctx.file).sessionId ?? basename(ctx.file).replace(/\.jsonl$/, ''),
        model: undefined,
        headerSeen: false,
        markers: onlyUsage ? USAGE_MARKERS : undefined,
      };
    },
    restore(snapshot, ctx) {
      const s = this.init(ctx);
      const o = (snapshot ?? {}) as Partial<SessionfoldJsonlState>;
      if (typeof o.sessionId === 'string') s.sessionId = o.sessionId;
      if (typeof o.model === 'string') s.model = o.model;
      s.headerSeen = o.headerSeen === true;
      return s;
    },
    snapshot(s) {
      return { sessionId: s.sessionId, model: s.model, headerSeen: s.headerSeen };
    },
    line(s, line, start, emit: Emit) {
      if (s.markers !== undefined && !hasAnyMarker(line, s.markers)) return;
      const rec = parseJsonObject(line, start, id, s.file);
      if (isExportHeader(rec)) {
        const fromPath = pathSession?.(s.file);
        if (fromPath === undefined) s.sessionId = rec.sessionId;
        s.model = str(rec.model);
        s.headerSeen = true;
        const forkedFrom = fromPath?.parent ?? str(rec.forkedFrom);
        emit(
          sessionEventOf(id, s.sessionId, start, {
            cwd: str(rec.cwd),
            startedAt: str(rec.createdAt),
            title: str(rec.title),
            forkedFrom,
            subagent: fromPath?.parent !== undefined || undefined,
            model: str(rec.model),
            usageUnknown: rec.usageUnknown === true || undefined,
            usageRecorded: rec.usageRecorded === false ? false : undefined,
            version: `${rec.agent}`,
          }),
        );
        return;
      }
      if (!isExportMessage(rec)) return; // unknown record types are skipped
      const role = ROLES.has(rec.role) ? rec.role : 'system';
      const ts = str(rec.timestamp);
      const nativeId = str(rec.id) ?? `${s.sessionId}#${num(rec.index)}`;
      const base = { agent: id, sessionId: s.sessionId, offset: start };
      if (rec.orphanUsage !== true) {
        emit({
          type: 'message',
          ...base,
          role,
          text: typeof rec.content === 'string' ? rec.content : '',
          ...(str(rec.thinking) !== undefined && { thinking: rec.thinking as string }),
          ...(ts !== undefined && { timestamp: ts }),
          ...(str(rec.model) !== undefined && { model: rec.model as string }),
          nativeId,
          ...(str(rec.subtype) !== undefined && { subtype: rec.subtype as string }),
        });
      }
      if (Array.isArray(rec.toolCalls)) {
        for (const tc of rec.toolCalls) {
          if (tc === null || typeof tc !== 'object' || typeof tc.toolCallId !== 'string') continue;
          emit({ type: 'tool_call', ...base, callId: tc.toolCallId, name: String(tc.toolName ?? ''), input: tc.input ?? null, ...(ts !== undefined && { timestamp: ts }), messageId: nativeId });
        }
      }
      const tr = rec.toolResult;
      if (tr !== undefined && tr !== null && typeof tr === 'object' && typeof tr.toolCallId === 'string') {
        emit({ type: 'tool_result', ...base, callId: tr.toolCallId, toolName: String(tr.toolName ?? ''), output: tr.output ?? null, isError: tr.isError === true, ...(ts !== undefined && { timestamp: ts }), ...(typeof tr.durationMs === 'number' && { durationMs: tr.durationMs }) });
      }
      const u = rec.usage;
      if (u !== undefined && u !== null && typeof u === 'object') {
        const model = str(u.model) ?? str(rec.model) ?? s.model;
        emit(
          usageEventOf(base.agent, base.sessionId, base.offset, {
            model,
            modelFallback: model === undefined || u.modelFallback === true,
            provider: str(u.provider),
            timestamp: str(u.timestamp) ?? ts,
            inputTokens: num(u.inputTokens),
            outputTokens: num(u.outputTokens),
            reasoningTokens: num(u.reasoningTokens),
            cacheReadTokens: num(u.cacheReadTokens),
            cacheWriteTokens: num(u.cacheWriteTokens),
            cacheWrite1hTokens: num(u.cacheWrite1hTokens),
            costUsd: typeof u.costUsd === 'number' ? u.costUsd : undefined,
            speed: str(u.speed),
            webSearchRequests: typeof u.webSearchRequests === 'number' ? u.webSearchRequests : undefined,
            singleRequest: u.singleRequest === true,
            dedupKey: str(u.dedupKey) ?? `${id}:${s.sessionId}:${nativeId}`,
            messageId: nativeId,
            copied: u.copied === true,
          }),
        );
      }
    },
    end(): KindCounts {
      return {};
    },
  };
}

export const sessionfoldJsonlCore: LineCore<SessionfoldJsonlState> = createSessionfoldJsonlCore({ id: CODEC_ID });
