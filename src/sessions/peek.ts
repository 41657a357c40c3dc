/**
 * The lazy part of `list()`: a summary from file stats plus the head and tail of the file, not a full parse.
 *
 * A JSONL codec exposes its pure `lineCore`; we feed it the complete lines of two byte windows:
 * - head: HEAD_BYTES at a time, line by line, stopping as soon as the fold knows the first user prompt
 *   (title) and a start time, or at HEAD_MAX_BYTES; so a prompt behind a long preamble is still the title
 *   `get()` finds; the session line (cwd, fork parent, agent title) comes first in every format;
 * - tail: the complete lines of the last 16 KiB (64 KiB when those hold no timestamp or no model), fed to a
 *   fresh core state, for the latest timestamp (updatedAt), the model in use and a late agent title.
 * A file no larger than FULL_PEEK_BYTES is folded whole through the same core (exact counts and cost).
 * Codecs without a lineCore (SQLite, whole-document JSON) are read whole through `read()`.
 *
 * The tail's core starts mid-file, so events whose meaning depends on earlier lines (cumulative usage deltas,
 * streaming dedup) are not trusted there: only timestamps, models and titles are taken from it. Nor can the
 * tail tell the file's own session (a running Claude parent's last lines are its subagents' agent_progress
 * copies): its usage counts for the session the head named (src/own-session.ts), as in the whole fold.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { loadCodec } from '../registry.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import type { LineCore } from '../../cursors/core.js';
import { feedWindow, openWindowFeed } from '../../cursors/window.js';
import { SessionFold, type FoldResult } from './fold.js';
import type { PriceFn } from './cost.js';
import { OwnSession } from '../own-session.js';

export const HEAD_BYTES = 64 * 1024;
/**
 * How far the head read goes, HEAD_BYTES at a time, looking for the first user prompt: Codex 0.137+ writes
 * 60–70 KB of instructions (base instructions, developer message, AGENTS.md) before it. Bounded, so a file
 * with no user prompt at all (an exec run, a usage-only log) costs at most this much.
 */
export const HEAD_MAX_BYTES = 1024 * 1024;
/** Tail windows tried in turn until one yields both a timestamp and a model. */
export const TAIL_WINDOWS = [16 * 1024, 64 * 1024] as const;
export const TAIL_BYTES = 64 * 1024;
export const FULL_PEEK_BYTES = HEAD_BYTES + TAIL_BYTES;

export interface PeekResult {
  fold: FoldResult;
  /** Latest timestamp / model / title from the tail window (large files only). */
  tail?: { lastMs?: number; model?: string; title?: string; usageUnknown?: true };
  /**
   * What the head window's lines said (large files only): a session event's `usageUnknown` written in the file
   * (an export's header), not one its core's end emits mid-file, where a run is always still open.
   */
  head?: { usageUnknown?: true };
  /** True when the whole file was folded. */
  exact: boolean;
}

/** Fold a whole file through `read()` (codecs without a lineCore, and exact reads). */
export async function foldWholeFile(codec: Codec, file: SessionFile, price: PriceFn | undefined, kinds?: SessionfoldEvent['type'][]): Promise<FoldResult> {
  const fold = new SessionFold({ content: false, price });
  for await (const e of codec.read(file.path, kinds === undefined ? {} : { kinds })) fold.push(e);
  return fold.finish();
}

/**
 * Timestamps, model and title from the complete lines of the last `window` bytes. Usage of another session
 * than the file's own is that session's: skipped. The own session is `ownId` (the head's) when known; else
 * the first usage event's of the tail (`claim`) until the tail's first session event names it (`name`), so
 * usage ahead of that session event is judged against the first usage event's id.
 */
async function peekTail(fh: FileHandle, core: LineCore<unknown>, path: string, size: number, window: number, ownId: string | undefined): Promise<NonNullable<PeekResult['tail']>> {
  const tailStart = Math.max(0, size - window);
  const tail = Buffer.allocUnsafe(window + 1);
  // One byte before the window tells whether its first line is complete.
  const { bytesRead } = await fh.read(tail, 0, size - tailStart + (tailStart > 0 ? 1 : 0), tailStart > 0 ? tailStart - 1 : 0);
  let from = 0;
  if (tailStart > 0) {
    const lf = tail.indexOf(10);
    from = lf === -1 || lf >= bytesRead ? bytesRead : lf + 1;
  }
  const t: NonNullable<PeekResult['tail']> = {};
  const base = tailStart > 0 ? tailStart - 1 : 0;
  const own = new OwnSession();
  let named = ownId !== undefined;
  own.name(ownId);
  feedWindow(core, path, tail.subarray(from), bytesRead - from, base + from, (e) => {
    if (e.type === 'session' && !named) {
      own.name(e.sessionId);
      named = true;
    }
    if (e.type === 'usage' && !own.claim(e.sessionId)) return;
    const ts = e.type === 'session' ? e.startedAt : 'timestamp' in e && typeof e.timestamp === 'string' ? e.timestamp : undefined;
    const ms = ts === undefined ? NaN : Date.parse(ts);
    if (Number.isFinite(ms) && ms > 0 && (t.lastMs === undefined || ms > t.lastMs)) t.lastMs = ms;
    if (e.type === 'usage' && e.modelFallback !== true && e.model !== '') t.model = e.model;
    else if (e.type === 'message' && e.model !== undefined) t.model = e.model;
    if (e.type === 'session' && typeof e.title === 'string' && e.title.trim() !== '') t.title = e.title;
    if (e.type === 'session' && e.usageUnknown === true) t.usageUnknown = true;
  });
  return t;
}

/** A summary's fold from the head and tail of the file (see the file header). */
export async function peekFile(codec: Codec, file: SessionFile, size: number, price: PriceFn | undefined): Promise<PeekResult> {
  await loadCodec(codec);
  const core = (codec.lineCoreFor !== undefined ? codec.lineCoreFor(file.path) : codec.lineCore) as LineCore<unknown> | undefined;
  if (core === undefined) return { fold: await foldWholeFile(codec, file, price), exact: true };
  const fh = await open(file.path, 'r');
  try {
    if (size <= FULL_PEEK_BYTES) {
      const buf = Buffer.allocUnsafe(Math.max(1, size));
      const { bytesRead } = await fh.read(buf, 0, size, 0);
      const fold = new SessionFold({ content: false, price });
      feedWindow(core, file.path, buf, bytesRead, 0, (e) => fold.push(e));
      return { fold: fold.finish(), exact: true };
    }
    const fold = new SessionFold({ content: false, price: undefined });
    let haveUser = false;
    let haveTime = false;
    let ended = false;
    let said: boolean | undefined;
    const feed = openWindowFeed(
      core,
      file.path,
      0,
      (e) => {
        fold.push(e);
        if (!ended && e.type === 'session' && typeof e.usageUnknown === 'boolean') said = e.usageUnknown;
        if (e.type === 'message' && e.role === 'user' && e.subtype === undefined && e.text !== '') haveUser = true;
        if ((e.type === 'session' && e.startedAt !== undefined) || ('timestamp' in e && typeof e.timestamp === 'string')) haveTime = true;
      },
      () => haveUser && haveTime,
    );
    const head = Buffer.allocUnsafe(HEAD_BYTES);
    for (let pos = 0; pos < Math.min(size, HEAD_MAX_BYTES); ) {
      const { bytesRead } = await fh.read(head, 0, Math.min(HEAD_BYTES, HEAD_MAX_BYTES - pos), pos);
      if (bytesRead === 0 || feed.push(head, bytesRead)) break;
      pos += bytesRead;
    }
    ended = true;
    feed.end();
    let t: NonNullable<PeekResult['tail']> = {};
    for (const window of TAIL_WINDOWS) {
      t = await peekTail(fh, core, file.path, size, window, fold.ownSessionId);
      if (t.lastMs !== undefined && t.model !== undefined) break;
    }
    return { fold: fold.finish(), tail: t, head: said === true ? { usageUnknown: true } : {}, exact: false };
  } finally {
    await fh.close();
  }
}
