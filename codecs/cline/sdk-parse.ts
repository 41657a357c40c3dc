/**
 * The document parser of a Cline ≥ 4.1 (SDK) session's messages file (cursors/read-document.ts
 * `DocumentParser`): `{version, updated_at, agent, sessionId, messages[], …}`, rewritten whole on every save, its
 * `messages` walked one element at a time (walk.ts). A session event from the manifest (sdk-session.ts), message
 * and tool events as they come, and one usage event per assistant message with `metrics` (one model call), held
 * until the document is read: which of them count, and whether one is a run's total rather than a call, is known
 * only from the messages after it (a legacy-resume marker, the next prompt). README.md has the format, the
 * counting rules and the sources.
 */
import { rec, str, type JsonRecord } from '../../cursors/json-value.js';
import type { NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { MessageRole, SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { tsOf } from './history.js';
import { skipRecord, titleLine } from './parse.js';
import { readSdkManifest, sdkFileName, type SdkFileName, type SdkManifest } from './sdk-session.js';
import { walkElements } from './walk.js';

/**
 * The user message the VS Code extension adds after the messages it seeds a resumed legacy task with
 * (cline/cline `apps/vscode/src/sdk/legacy-task-handling.ts`, `LEGACY_RESUME_MODEL_WARNING`); matched on its
 * opening words, as Cline matches the whole text with `includes`.
 */
export const LEGACY_RESUME_MARKER = 'Warning: this is a legacy conversation, which means tool names may have changed.';

/**
 * Providers a host registers its own handler for (`registerHandler`: VS Code's `vscode.lm`), whose usage chunk
 * reaches `metrics` as the legacy handler wrote it, input without the cache, where the built-in gateway's holds
 * it (README.md, "Not established").
 */
export const HOST_HANDLER_PROVIDERS: readonly string[] = ['vscode-lm'];

interface Call {
  index: number;
  /** The run (prompt to prompt) it belongs to. */
  run: number;
  ts: number | undefined;
  event: UsageEvent;
}

interface Acc {
  agent: string;
  name: SdkFileName;
  manifest: SdkManifest;
  options: NormalizedReadOptions;
  calls: Call[];
  /** Per run: how many assistant messages, and the index of the last. */
  runs: { assistants: number; last: number }[];
  /** The index of the legacy-resume marker (`isResumeMarker`), -1 without one. */
  marker: number;
  /** Whether a user message has held the warning yet: only the first can be the marker. */
  warned: boolean;
  /** Whether the last assistant message so far is shaped as a resume seed's last (`isSeedTotal`); undefined before one. */
  seedTotal: boolean | undefined;
  /** Whether the session's usage is a lower bound (README.md, "A session's usage as a lower bound"). */
  bound: boolean;
}

const skip = (acc: Acc, message: string): void => skipRecord(acc.agent, acc.options, message);

interface Parts {
  text: string;
  thinking: string;
  calls: { id: string; name: string; input: unknown }[];
  results: { id: string; name: string | undefined; output: unknown; isError: boolean }[];
  /** Whether it holds anything but tool results (a user message that does is a prompt: a new run). */
  prompt: boolean;
}

/** The parts of a message's content: a string, or `text`, `thinking`, `tool_use` and `tool_result` blocks. */
function partsOf(content: unknown): Parts {
  const p: Parts = { text: '', thinking: '', calls: [], results: [], prompt: false };
  if (typeof content === 'string') return { ...p, text: content, prompt: content.trim() !== '' };
  if (!Array.isArray(content)) return p;
  const texts: string[] = [];
  const thoughts: string[] = [];
  for (const raw of content) {
    const b = rec(raw);
    if (b === undefined) continue;
    if (b.type === 'tool_result') {
      const id = str(b.tool_use_id);
      if (id !== undefined) p.results.push({ id, name: str(b.name), output: b.content ?? null, isError: b.is_error === true });
      continue;
    }
    p.prompt = true;
    if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b.type === 'thinking' && typeof b.thinking === 'string') thoughts.push(b.thinking);
    else if (b.type === 'tool_use' && str(b.id) !== undefined) p.calls.push({ id: b.id as string, name: str(b.name) ?? 'tool', input: b.input ?? null });
  }
  return { ...p, text: texts.join('\n'), thinking: thoughts.join('\n') };
}

/**
 * The usage of an assistant message's `metrics`, or undefined without any (or with all zero). `inputTokens` holds
 * the cache through the built-in gateway, so the uncached input is it less both cache counts; a count below
 * the cache cannot be that, so it is taken as 0 and the session's usage as a lower bound, as it is when a
 * host-registered provider reports a cache (its input may exclude it).
 */
function callUsage(acc: Acc, m: JsonRecord, index: number, ts: number | undefined): UsageEvent | undefined {
  const metrics = rec(m.metrics);
  if (metrics === undefined) return undefined;
  let n: { input: number; output: number; read: number; write: number; cost: number | undefined };
  try {
    n = { input: saneCount(metrics.inputTokens, 'inputTokens'), output: saneCount(metrics.outputTokens, 'outputTokens'), read: saneCount(metrics.cacheReadTokens, 'cacheReadTokens'), write: saneCount(metrics.cacheWriteTokens, 'cacheWriteTokens'), cost: saneCost(metrics.cost, 'cost') };
  } catch (e) {
    skip(acc, `${acc.name.sessionId}: message ${index}: ${(e as Error).message}`);
    return undefined;
  }
  if (n.input + n.output + n.read + n.write === 0 && !(n.cost! > 0)) return undefined;
  const info = rec(m.modelInfo);
  const model = str(info?.id)?.trim();
  const provider = model !== undefined ? str(info?.provider)?.trim() : acc.manifest.provider;
  const cache = n.read + n.write;
  if (n.input < cache || (cache > 0 && provider !== undefined && HOST_HANDLER_PROVIDERS.includes(provider))) acc.bound = true;
  return usageEventOf(acc.agent, acc.name.sessionId, index, {
    model: model ?? acc.manifest.model,
    modelFallback: model === undefined,
    provider,
    timestamp: ts !== undefined ? new Date(ts).toISOString() : acc.manifest.startedAt,
    inputTokens: Math.max(0, n.input - cache),
    outputTokens: n.output,
    cacheReadTokens: n.read,
    cacheWriteTokens: n.write,
    costUsd: n.cost !== undefined && n.cost > 0 ? n.cost : undefined,
    singleRequest: true,
    dedupKey: `${acc.agent}:${acc.name.sessionId}:${str(m.id) ?? `#${index}`}`,
  });
}

/**
 * Whether an assistant message is shaped as the last of a resumed legacy task's seed: Cline gives it `metrics`
 * holding the old task's totals and, when the task named a model, `modelInfo` with `provider: "unknown"`
 * (cline/cline `apps/vscode/src/sdk/legacy-task-handling.ts` @ `2bf58a46`, `legacyApiHistoryToSdkMessages`);
 * a call the SDK made names its provider.
 */
function isSeedTotal(m: JsonRecord): boolean {
  const info = rec(m.modelInfo);
  return rec(m.metrics) !== undefined && (info === undefined || info.provider === 'unknown');
}

/**
 * Whether a user message's text is the legacy-resume marker: the first user message holding the warning (Cline
 * appends one only when the seed holds none, and splits the resumed turns at the first, `findIndex`), after
 * a seed's total. A user who pastes the warning later, or into a session of the SDK's own, writes no marker.
 */
function isResumeMarker(acc: Acc, text: string): boolean {
  if (acc.warned || !text.includes(LEGACY_RESUME_MARKER)) return false;
  acc.warned = true;
  return acc.seedTotal === true;
}

/** The events of one stored message (its usage is held in `acc.calls`). */
function* messageEvents(acc: Acc, m: JsonRecord, index: number): Generator<SessionfoldEvent> {
  const role = m.role === 'user' || m.role === 'assistant' ? m.role : undefined;
  if (role === undefined) return;
  const ts = tsOf(m.ts);
  const timestamp = ts === undefined ? undefined : new Date(ts).toISOString();
  const p = partsOf(m.content);
  const base = { agent: acc.agent, sessionId: acc.name.sessionId, offset: index };
  const nativeId = str(m.id);
  if (role === 'user' && p.prompt) acc.runs.push({ assistants: 0, last: -1 });
  const marker = role === 'user' && isResumeMarker(acc, p.text);
  if (marker) acc.marker = index;
  for (const r of p.results) yield { type: 'tool_result', ...base, callId: r.id, ...(r.name !== undefined && { toolName: r.name }), output: r.output, isError: r.isError, ...(timestamp !== undefined && { timestamp }) };
  if (p.text.trim() !== '' || p.thinking !== '') {
    const model = role === 'assistant' ? str(rec(m.modelInfo)?.id)?.trim() : undefined;
    const msgRole: MessageRole = marker ? 'system' : role;
    yield { type: 'message', ...base, role: msgRole, text: p.text, ...(p.thinking !== '' && { thinking: p.thinking }), ...(timestamp !== undefined && { timestamp }), ...(model !== undefined && { model }), ...(nativeId !== undefined && { nativeId }), ...(marker && { subtype: 'injected' }) };
  }
  for (const c of p.calls) yield { type: 'tool_call', ...base, callId: c.id, name: c.name, input: c.input, ...(timestamp !== undefined && { timestamp }), ...(nativeId !== undefined && { messageId: nativeId }) };
  if (role !== 'assistant') return;
  acc.seedTotal = isSeedTotal(m);
  if (acc.runs.length === 0) acc.runs.push({ assistants: 0, last: -1 });
  const run = acc.runs[acc.runs.length - 1]!;
  run.assistants++;
  run.last = index;
  const event = callUsage(acc, m, index, ts);
  if (event !== undefined) acc.calls.push({ index, run: acc.runs.length - 1, ts, event });
}

/**
 * The usage events that count: none before a legacy-resume marker (the seed repeats the task folder's totals,
 * which its `ui_messages.json` holds), none made before a fork (the source session's own); a run whose calls
 * left no `metrics` has its total on its last assistant message (`withLatestAssistantTurnMetadata`), a span.
 */
function* finish(acc: Acc): Generator<UsageEvent> {
  const forkedAt = !acc.name.child && acc.manifest.forkedFrom !== undefined ? (acc.manifest.forkedAtMs ?? Infinity) : undefined;
  const withMetrics = new Map<number, number>();
  for (const c of acc.calls) withMetrics.set(c.run, (withMetrics.get(c.run) ?? 0) + 1);
  for (const c of acc.calls) {
    if (c.index < acc.marker) continue;
    if (forkedAt !== undefined && (c.ts === undefined || c.ts <= forkedAt)) continue;
    const run = acc.runs[c.run]!;
    const total = run.assistants > 1 && withMetrics.get(c.run) === 1 && run.last === c.index;
    yield total ? { ...c.event, singleRequest: false } : c.event;
  }
}

function sessionEvent(acc: Acc, usageUnknown: boolean): SessionfoldEvent {
  const { name, manifest } = acc;
  return sessionEventOf(acc.agent, name.sessionId, 0, {
    cwd: manifest.cwd,
    startedAt: manifest.startedAt,
    title: name.child ? undefined : titleLine(manifest.title ?? manifest.prompt),
    forkedFrom: name.child ? name.rootId : manifest.forkedFrom,
    subagent: name.child || undefined,
    agentType: name.agentType,
    spawnDepth: name.child ? 1 : undefined,
    model: name.child ? undefined : manifest.model,
    provider: name.child ? undefined : manifest.provider,
    usageUnknown: usageUnknown || undefined,
  });
}

/** Whether the usage is a bound is known once every call is read: said again then, when the read made it so. */
function* lateSession(acc: Acc, boundAtStart: boolean): Generator<SessionfoldEvent> {
  if (acc.bound && !boundAtStart) yield sessionEvent(acc, true);
}

/** The document parser of an SDK session's messages file for the codec `agent`. */
export function createSdkParser(agent: string) {
  return function* parseSdkSession(file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
    const name = sdkFileName(file);
    const full = readSdkManifest(name.manifest);
    // A child takes from its root's manifest only what Cline writes once, as the root starts (sdkDependencies):
    // not the lead's model, which a child's call without `modelInfo` need not have used.
    const manifest: SdkManifest = name.child ? { cwd: full.cwd, startedAt: full.startedAt } : full;
    const acc: Acc = { agent, name, manifest, options, calls: [], runs: [], marker: -1, warned: false, seedTotal: undefined, bound: false };
    // A fork's copied prefix is left to its source, so its usage is a lower bound whatever the messages say.
    if (!name.child && acc.manifest.forkedFrom !== undefined) acc.bound = true;
    const boundAtStart = acc.bound;
    yield sessionEvent(acc, boundAtStart);
    const out: unknown[] = [];
    let index = 0;
    try {
      for (const _ of walkElements(chunks(), 'messages', out)) {
        for (const raw of out.splice(0)) {
          const m = rec(raw);
          if (m === undefined) skip(acc, `${name.sessionId}: message ${index} is not an object`);
          else yield* messageEvents(acc, m, index);
          index++;
        }
      }
    } catch (err) {
      // A document cut short keeps what was read before the break, its usage too (cursors/read-document.ts).
      yield* finish(acc);
      yield* lateSession(acc, boundAtStart);
      throw err;
    }
    yield* finish(acc);
    yield* lateSession(acc, boundAtStart);
  };
}
