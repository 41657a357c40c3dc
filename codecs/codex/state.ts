/** The state of one read of a Codex rollout (parse.ts's LineCore; the usage rules of usage.ts read and move it). */
import type { ReadInfo } from '../../cursors/protocol/codec.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import type { Tok } from './tokens.js';

export type Source = 0 | 1; // 0 = event_msg, 1 = response_item

/** All mutable state of one read. The first block is rebuilt from the read context, the rest is the cursor's. */
export interface CodexState {
  file: string;
  fileId: string;
  info: ReadInfo;
  /** The read wants only usage (and session) events: lines that cannot hold usage are skipped unparsed. */
  usageOnly: boolean;
  /** Response ids seen by this read, exactly. */
  seenExact: Set<string>;
  /** The state came from a cursor: a hash hit in `seenHash` not in `seenExact` is a possible collision. */
  restored: boolean;

  decided: boolean;
  sessionId: string;
  /** Fork or subagent: lines timestamped before `bornAt` are copied history. */
  forked: boolean;
  bornAt: number | null;
  historyStart: number | null;
  /** Id of the last `session_meta` seen: the thread whose counters the next token_count continues. */
  region: string | null;
  /**
   * The current turn is another thread's, copied: its `turn_context` (under another thread's region) names a
   * UUIDv7 turn minted before the owner thread was (usage.ts `isCopiedTurn`). Its usage is marked `copied`.
   */
  copiedTurn: boolean;
  /** Resets of the cumulative counter within the region. */
  epoch: number;
  /** Last cumulative totals (the delta baseline); null when unknown. */
  totals: Tok | null;
  model: string | null;
  metaProvider: string | null;
  ctxProvider: string | null;
  lastTs: string | null;
  recordsSeen: boolean;
  /** A token_count usage event that a matching token_usage_record may still replace. */
  pending: UsageEvent | null;
  seenHash: Set<number>;
  openCalls: Map<string, string>;
  /** Recently emitted message texts awaiting their twin from the other source: [hash, source]. */
  recent: [number, Source][];
}
