/**
 * `get(agent, id)`: one session, whole. The file is found by id through the codec (`locate`, or the ids
 * `discover` reads off paths), never by parsing every session; then one `read()` of every event kind is
 * folded (fold.ts) into messages, tool calls with their results, per-message usage and cost.
 *
 * Errors: AGENT_NOT_FOUND (no such codec), SESSION_NOT_FOUND (no file for the id, or it vanished),
 * PARSE_ERROR (the file exists but yields no event of the codec's format, or the codec failed reading it).
 */
import { open, stat } from 'node:fs/promises';
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { getParserString, newReadInfo } from '../../cursors/protocol/codec.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { getCodec, loadCodec } from '../registry.js';
import { fileSessionId, type ManagerContext } from './context.js';
import { SessionFold } from './fold.js';
import { resolveUnifiedId } from './ids.js';
import type { Session } from './types.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';

/** The file of session `id`, or SESSION_NOT_FOUND. */
export async function locateSession(ctx: ManagerContext, codec: Codec, id: string): Promise<SessionFile> {
  if (typeof id !== 'string' || id === '') throw new SessionfoldError('SESSION_NOT_FOUND', `No ${codec.id} session with an empty id`, { agent: codec.id });
  const roots = ctx.rootsFor(codec);
  let found: SessionFile | undefined;
  await loadCodec(codec);
  if (codec.locate !== undefined) found = await codec.locate(roots, id);
  else for await (const f of codec.discover(roots)) if (fileSessionId(f) === id) {
    found = f;
    break;
  }
  if (found === undefined) throw new SessionfoldError('SESSION_NOT_FOUND', `No ${codec.id} session "${id}" under ${roots.join(', ') || '(no roots)'}`, { agent: codec.id });
  return found;
}

async function isBlank(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return bytesRead < buf.length && buf.subarray(0, bytesRead).toString('utf8').trim() === '';
  } finally {
    await fh.close();
  }
}

/** `get(agent, id)`: see the file header. */
export async function getSession(ctx: ManagerContext, agent: string, id: string): Promise<Session> {
  const codec = getCodec(agent);
  const file = await locateSession(ctx, codec, id);
  let size: number;
  let mtimeMs: number;
  try {
    // the stat discovery took, when it took one (a session inside a database has no file of its own)
    const s = file.size !== undefined && file.mtimeMs !== undefined ? { size: file.size, mtimeMs: file.mtimeMs } : await stat(file.path);
    size = s.size;
    mtimeMs = s.mtimeMs;
  } catch (cause) {
    throw new SessionfoldError('SESSION_NOT_FOUND', `${codec.id} session "${id}": ${file.path} is gone`, { agent: codec.id, file: file.path, cause });
  }
  const price = await ctx.price();
  const info = newReadInfo();
  const fold = new SessionFold({ content: true, price });
  try {
    for await (const e of codec.read(file.path, { info })) fold.push(e);
  } catch (cause) {
    if (cause instanceof SessionfoldError && (cause.code === 'SESSION_NOT_FOUND' || cause.code === 'PARSE_ERROR')) throw cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new SessionfoldError('PARSE_ERROR', `Cannot read ${file.path} as ${codec.id}: ${why}`, { agent: codec.id, file: file.path, cause });
  }
  const r = fold.finish();
  if (r.events === 0 && size > 0 && !(await isBlank(file.path))) {
    throw new SessionfoldError(
      'PARSE_ERROR',
      `${file.path} is not a ${codec.displayName} session: no records of its format (${info.skippedLines} malformed of ${info.lines} lines)`,
      { agent: codec.id, file: file.path },
    );
  }
  const session: Session = {
    agent: codec.id,
    sessionId: id,
    unifiedId: resolveUnifiedId(codec.id, id),
    title: r.title,
    createdAt: new Date(r.firstMs ?? mtimeMs),
    updatedAt: new Date(r.lastMs ?? mtimeMs),
    turnCount: r.turnCount,
    tags: ctx.tags().tagsFor(codec.id, id, r.cwd),
    messages: r.messages,
  };
  if (r.model !== undefined) session.model = r.model;
  if (r.cost !== undefined) {
    session.cost = r.cost;
    session.costByModel = r.costByModel;
  }
  if (r.usageUnknown === true) session.usageUnknown = true;
  if (r.cwd !== undefined) session.cwd = r.cwd;
  if (r.forkedFrom !== undefined) session.forkedFrom = r.forkedFrom;
  session.raw = {
    file: file.path,
    sizeBytes: size,
    parser: getParserString(codec),
    lines: info.lines,
    skippedLines: info.skippedLines,
    events: info.events,
    sessionEvents: r.sessionEvents.map((e) => ({ ...e })),
    orphanUsage: r.orphanUsage,
    unmatchedToolResults: r.unmatchedToolResults,
  };
  return session;
}

/** A session file's usage events as its codec yields them, each dedup key once (the first, as the fold keeps). */
export async function readUsageEvents(agent: string, file: string): Promise<UsageEvent[]> {
  const seen = new Set<string>();
  const out: UsageEvent[] = [];
  for await (const e of getCodec(agent).read(file, { kinds: ['usage'] })) {
    if (e.type !== 'usage' || seen.has(e.dedupKey)) continue;
    seen.add(e.dedupKey);
    out.push(e);
  }
  return out;
}
