/**
 * The OpenHands web app's copy of a conversation (README.md, "The web app"): `<persistence>/v1/events/<uuid>/`,
 * one SDK event per file named `<YYYYMMDDHHMMSS>_<class>_<id hex>` (so the names sort by time), and the row of
 * `openhands.db` `conversation_metadata` (app-db.ts). The parser (cursors/read-document.ts `DocumentParser`)
 * is handed the folder's first event file; it reads the folder beside it.
 *
 * Usage: the agent server emits `ConversationStateUpdateEvent(key="stats")` after each LLM response and
 * `key="full_state"` when the app subscribes (start, resume). Both hold, per usage id, the running totals
 * (`accumulated_token_usage`, `accumulated_cost`); the stats event holds no per-call list. So usage is read
 * from those totals alone, as deltas: per usage id, each event's totals less the previous event's (the first
 * less zero), one usage event per growth, keyed by conversation, usage id and event id. A full state's
 * per-call lists are never read: its totals are one more reading of the same running sum, so every span
 * between two readings is counted once, from one source. A total that goes down books nothing and marks
 * the session's usage unknown; the next readings grow from it.
 */
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { lineSkipper } from '../../cursors/core.js';
import { saneCost } from '../../cursors/sane.js';
import { FILE, listDir } from '../../cursors/list-dir.js';
import { join, basename, dirname } from 'node:path';
import { readAppMetadata, type AppMetadata } from './app-db.js';
import { eventEvents } from './convert.js';
import { parseEventText, readEventText } from './events.js';
import { APP_EVENT_NAME, CODEC_ID, appConversationId, appDbOf } from './paths.js';
import { kindOf, modelName, rec, str, type Rec } from './schema.js';
import { beyond, bucketsOf, isZero, tokensOf, type Tokens } from './stats.js';
import { instantOf, isoOf } from './time.js';

/** The class whose files hold the running totals (`openhands/sdk/event/conversation_state.py`). */
const STATE_UPDATE = 'ConversationStateUpdateEvent';
const TOTALS_MARKER = /"(?:usage|service)_to_metrics"/;
/** Cost growth below this is float noise of a running sum, not spend. */
const COST_EPSILON = 1e-12;

interface AppEventFile {
  /** Its place in the folder's listing by name (the offset of its events). */
  idx: number;
  path: string;
  kind: string;
  id: string;
}

/** The app event files of `dir`, by name: by time, then class, then id. */
export function listAppEventFiles(dir: string): AppEventFile[] {
  const out: AppEventFile[] = [];
  for (const e of listDir(dir)) {
    const m = e.kind === FILE ? APP_EVENT_NAME.exec(e.name) : null;
    if (m !== null) out.push({ idx: out.length, path: join(dir, e.name), kind: m[2] as string, id: (m[3] as string).toLowerCase() });
  }
  return out;
}

/** One usage id's running totals in one event. */
interface Reading {
  usageId: string;
  model: string | undefined;
  tokens: Tokens;
  cost: number;
}

/** The per-usage-id table of a `stats` or `full_state` update; undefined for any other record. */
function metricsTable(r: Rec): { table: Rec; full: boolean } | undefined {
  if (kindOf(r) !== STATE_UPDATE) return undefined;
  const full = r.key === 'full_state';
  const stats = full ? rec(rec(r.value)?.stats) : r.key === 'stats' ? rec(r.value) : undefined;
  const table = rec(stats?.usage_to_metrics) ?? rec(stats?.service_to_metrics);
  return table === undefined ? undefined : { table, full };
}

/** The readings of a table; an absurd count or cost refuses its usage id (a reason in `refused`). */
function readingsOf(table: Rec, refused: string[]): Reading[] {
  const out: Reading[] = [];
  for (const [usageId, v] of Object.entries(table)) {
    const m = rec(v);
    try {
      if (m === undefined) throw new SessionfoldError('MALFORMED_LINE', 'metrics that are not an object');
      const acc = rec(m.accumulated_token_usage) ?? {};
      out.push({ usageId, model: modelName(m.model_name) ?? modelName(acc.model), tokens: tokensOf(acc), cost: saneCost(m.accumulated_cost, 'accumulated_cost') ?? 0 });
    } catch (e) {
      if (!(e instanceof SessionfoldError)) throw e;
      refused.push(`${usageId}: ${e.message}`);
    }
  }
  return out;
}

/** What the pass over the totals found. */
/** What one usage id's totals grew by in one event. */
interface Growth {
  idx: number;
  eventId: string;
  time: unknown;
  usageId: string;
  model: string | undefined;
  tokens: Tokens;
  cost: number;
  full: boolean;
}

interface Totals {
  growth: Growth[];
  /** A total went down, or a record was refused: the usage is a lower bound. */
  unknown: boolean;
  /** Some event holds the totals (stats or a full state). */
  read: boolean;
  refused: string[];
  unreadable: string[];
  /** The first full state: the conversation's workspace, tags and LLM. */
  fullState: Rec | undefined;
  /** The records this pass parsed, by file index, for a later pass not to read them again: the first file's, and all when kept. */
  parsed: Map<number, Rec | Error>;
}

/**
 * The growth of the running totals of the folder's state updates, in file order (README.md, "The web app").
 * `keep`: every record parsed is kept in `parsed` (a read of the conversation reads them all again).
 */
function readTotals(files: readonly AppEventFile[], keep: boolean): Totals {
  const out: Totals = { growth: [], unknown: false, read: false, refused: [], unreadable: [], fullState: undefined, parsed: new Map() };
  const last = new Map<string, Reading>();
  for (const f of files) {
    if (f.kind !== STATE_UPDATE) continue;
    const text = readEventText(f);
    if (typeof text === 'string' && !TOTALS_MARKER.test(text)) continue;
    const r = parseEventText(text);
    if (keep || f.idx === 0) out.parsed.set(f.idx, r);
    if (r instanceof Error) {
      out.unreadable.push(`${f.path}: ${r.message}`);
      out.unknown = true; // it may have been the last reading of some usage id
      continue;
    }
    const t = metricsTable(r);
    if (t === undefined) continue;
    out.read = true;
    if (t.full) out.fullState ??= rec(r.value);
    const before = out.refused.length;
    const readings = readingsOf(t.table, out.refused);
    if (out.refused.length > before) out.unknown = true;
    const seen = new Set<string>();
    for (const now of readings) {
      const prev = last.get(now.usageId);
      last.set(now.usageId, now);
      // one Metrics object kept under two usage ids (a delegate sharing its parent's LLM) reads the same twice
      const same = JSON.stringify([now.tokens, now.cost]);
      if (seen.has(same)) continue;
      seen.add(same);
      const grown = prev === undefined ? now.tokens : beyond(now.tokens, prev.tokens);
      const cost = now.cost - (prev?.cost ?? 0);
      if (grown === undefined || cost < -COST_EPSILON) {
        out.unknown = true;
        continue;
      }
      if (isZero(grown) && cost <= COST_EPSILON) continue;
      out.growth.push({ idx: f.idx, eventId: f.id, time: r.timestamp, usageId: now.usageId, model: now.model, tokens: grown, cost, full: t.full });
    }
  }
  return out;
}

/**
 * One growth as a usage event. The agent server may stream the totals with their model names redacted: the
 * conversation's LLM then stands in (`modelFallback`).
 */
function usageOf(sessionId: string, g: Growth, agentModel: string | undefined): UsageEvent {
  return usageEventOf(CODEC_ID, sessionId, g.idx, {
    model: g.model ?? agentModel,
    modelFallback: g.model === undefined && agentModel !== undefined ? true : undefined,
    timestamp: isoOf(instantOf(g.time, 0)),
    ...bucketsOf(g.tokens),
    costUsd: g.cost > COST_EPSILON ? g.cost : undefined,
    // a stats event follows each response; a full state's growth is whatever came before it
    singleRequest: !g.full,
    dedupKey: `${CODEC_ID}:${sessionId}:${g.usageId}:${g.eventId}`,
  });
}

/** An event file's record: the one the pass over the totals parsed, else read now. */
const recordOf = (f: AppEventFile, parsed: ReadonlyMap<number, Rec | Error>): Rec | Error => parsed.get(f.idx) ?? parseEventText(readEventText(f));

/** The time of the folder's first event, as UTC (a zone-less `datetime.now()` of the sandbox). */
function firstTime(files: readonly AppEventFile[], parsed: ReadonlyMap<number, Rec | Error>): number | undefined {
  const first = files[0];
  if (first === undefined) return undefined;
  const r = recordOf(first, parsed);
  return r instanceof Error ? undefined : instantOf(r.timestamp, 0);
}

/** The document parser of an app conversation, handed its folder's first event file. */
export function* parseOpenHandsApp(file: string, _chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  const skip = lineSkipper(options, file);
  const dir = dirname(file);
  const sessionId = appConversationId(dir);
  const files = listAppEventFiles(dir);
  const meta: AppMetadata | undefined = readAppMetadata(appDbOf(file), basename(dir));
  const totals = readTotals(files, options.conversation);
  const agentModel = meta?.model ?? modelName(rec(rec(totals.fullState?.agent)?.llm)?.model);
  for (const why of totals.refused) skip(new SessionfoldError('MALFORMED_LINE', `${file}: ${why}`, { agent: CODEC_ID, file }));
  if (!options.conversation) for (const why of totals.unreadable) skip(new SessionfoldError('MALFORMED_LINE', why, { agent: CODEC_ID, file }));
  const answered = files.some((f) => f.kind === 'ActionEvent');
  yield sessionEventOf(CODEC_ID, sessionId, 0, {
    cwd: str(rec(totals.fullState?.workspace)?.working_dir),
    startedAt: isoOf(meta?.createdMs ?? firstTime(files, totals.parsed)),
    title: meta?.title ?? str(rec(totals.fullState?.tags)?.title),
    model: agentModel,
    usageUnknown: totals.unknown || (answered && !totals.read) || undefined,
  });
  const usage = totals.growth.map((g) => usageOf(sessionId, g, agentModel));
  let u = 0;
  if (options.conversation) {
    const acpCalls = new Set<string>();
    const acpResults = new Set<string>();
    const modelOf = () => undefined; // no event names the call its totals grew by
    for (const f of files) {
      const r = recordOf(f, totals.parsed);
      totals.parsed.delete(f.idx);
      if (r instanceof Error) skip(new SessionfoldError('MALFORMED_LINE', `${f.path}: ${r.message}`, { agent: CODEC_ID, file }));
      else yield* eventEvents(r, { sessionId, idx: f.idx, timestamp: isoOf(instantOf(r.timestamp, 0)), modelOf, acpCalls, acpResults });
      while (u < usage.length && (usage[u] as UsageEvent).offset <= f.idx) yield usage[u++] as UsageEvent;
    }
  }
  while (u < usage.length) yield usage[u++] as UsageEvent;
}
