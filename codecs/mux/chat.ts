/**
 * A Mux (Xum) workspace's conversation as events: pure, over the texts of `chat-archive.jsonl` and `chat.jsonl`
 * (index.ts reads them). README.md "The chat" has the format with its sources.
 *
 * Each line is one `MuxMessage` (the AI SDK's `UIMessage` with Mux's metadata): `id`, `role` (`user`,
 * `assistant`, `system`), `parts` (`text`, `reasoning`, `file`, and `dynamic-tool` parts holding a tool call and,
 * once it ran, its output) and `metadata` (`historySequence`, `timestamp` in epoch ms, `model`, `synthetic`,
 * `compacted`, `muxMetadata`). The whole history is the archive, then the active file; a message already read
 * (by id, or by a `historySequence` the archive already passed) is not read twice.
 */
import { jsonObject } from '../../cursors/core.js';
import type { MessageRole, SessionfoldEvent } from '../../cursors/protocol/events.js';
import { messageEventOf } from '../../cursors/protocol/events.js';
import { CODEC_ID } from './paths.js';
import { msTime, rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;
type Emit = (e: SessionfoldEvent) => void;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Epoch milliseconds as ISO-8601, for times from 2000 to 2200 only. */
export const muxTime = (v: unknown): string | undefined => msTime(v, { plausible: true });

/** Mux's canonical `provider:model` apart (a name without a provider is the model alone). */
export function splitModel(v: unknown): { model?: string; provider?: string } {
  if (typeof v !== 'string' || v === '') return {};
  const colon = v.indexOf(':');
  return colon > 0 ? { model: v.slice(colon + 1), provider: v.slice(0, colon) } : { model: v };
}

/** Why a message is not conversation, as a message subtype (README "The chat"); undefined for a plain one. */
function subtypeOf(meta: Rec | undefined): string | undefined {
  if (meta === undefined) return undefined;
  const kind = str(rec(meta.muxMetadata)?.type) ?? str(rec(meta.cmuxMetadata)?.type);
  if ((meta.compacted !== undefined && meta.compacted !== false) || kind === 'compaction-summary' || kind === 'compaction-request') return 'compaction';
  if (meta.synthetic === true) return 'synthetic';
  return undefined;
}

/** The parts' texts of one type, joined by blank lines. */
function textOf(parts: readonly Rec[], type: 'text' | 'reasoning'): string {
  return parts
    .filter((p) => p.type === type && typeof p.text === 'string' && p.text !== '')
    .map((p) => p.text as string)
    .join('\n\n');
}

/** The events of one message at `offset` (none for a system message). */
function messageEvents(workspace: string, m: Rec, offset: number, emit: Emit): void {
  const role = m.role;
  if (role !== 'user' && role !== 'assistant') return;
  const meta = rec(m.metadata);
  const parts = (Array.isArray(m.parts) ? m.parts : []).map(rec).filter((p): p is Rec => p !== undefined);
  const timestamp = muxTime(meta?.timestamp);
  const model = role === 'assistant' ? splitModel(meta?.model).model : undefined;
  const text = textOf(parts, 'text');
  const thinking = textOf(parts, 'reasoning');
  if (text !== '' || thinking !== '') {
    emit(
      messageEventOf(CODEC_ID, workspace, offset, role as MessageRole, text, {
        thinking: thinking === '' ? undefined : thinking,
        timestamp,
        model,
        nativeId: str(m.id),
        subtype: subtypeOf(meta),
      }),
    );
  }
  const base = { agent: CODEC_ID, sessionId: workspace, offset };
  for (const p of parts) {
    if (p.type !== 'dynamic-tool') continue;
    const callId = str(p.toolCallId) ?? '';
    const at = muxTime(p.timestamp) ?? timestamp;
    emit({ type: 'tool_call', ...base, callId, name: str(p.toolName) ?? '', input: p.input ?? null, ...(at !== undefined && { timestamp: at }), ...(str(m.id) !== undefined && { messageId: str(m.id) }) });
    // a call that ran has a result; one whose output Mux redacted keeps none of it (`failed` when it failed)
    const ran = p.state === 'output-available' || p.state === 'output-redacted';
    if (ran) emit({ type: 'tool_result', ...base, callId, toolName: str(p.toolName) ?? '', output: p.state === 'output-available' ? (p.output ?? null) : null, isError: p.failed === true, ...(at !== undefined && { timestamp: at }) });
  }
}

/**
 * The conversation's events from the archive's text, then the active file's (either may be absent): offsets
 * are line numbers counted through both (non-blank lines). `lines` read, `skipped` lines that are not JSON
 * objects (a torn last line).
 */
export function parseMuxChat(workspace: string, archive: string | undefined, active: string | undefined): { events: SessionfoldEvent[]; lines: number; skipped: number } {
  const events: SessionfoldEvent[] = [];
  const emit: Emit = (e) => void events.push(e);
  const seen = new Set<string>();
  let lines = 0;
  let skipped = 0;
  let archived = -Infinity;
  for (const [text, isArchive] of [
    [archive, true],
    [active, false],
  ] as const) {
    for (const line of (text ?? '').split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      const m = jsonObject(line);
      if (m === undefined) {
        skipped++;
        continue;
      }
      const id = str(m.id);
      const seq = rec(m.metadata)?.historySequence;
      // the archive holds every sequence older than the active file's: one met again is a copy (README "The chat")
      if ((id !== undefined && seen.has(id)) || (!isArchive && typeof seq === 'number' && seq <= archived)) continue;
      if (id !== undefined) seen.add(id);
      if (isArchive && typeof seq === 'number' && seq > archived) archived = seq;
      messageEvents(workspace, m, lines, emit);
    }
  }
  return { events, lines, skipped };
}
