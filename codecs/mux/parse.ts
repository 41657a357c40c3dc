/**
 * A Mux `session-usage.json` as events: pure, over the file's text (index.ts reads it). README.md has the
 * format with its sources.
 *
 * The file is the workspace's running ledger, rewritten whole after every stream: `byModel` maps a canonical
 * `provider:model` to that model's cumulative `ChatUsageDisplay` (buckets `input`, `cached`, `cacheCreate`,
 * `output`, `reasoning`, each `{tokens, cost_usd?}`), `lastRequest` the latest request with its epoch-ms
 * `timestamp`. One session event, and one usage event per model (`singleRequest: false`).
 */
import { jsonObject } from '../../cursors/core.js';
import type { SessionfoldEvent, UsageEvent } from '../../cursors/protocol/events.js';
import { sessionEventOf, usageEventOf } from '../../cursors/protocol/events.js';
import { saneCost, saneCount } from '../../cursors/sane.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { CODEC_ID } from './paths.js';
import { muxTime, splitModel } from './chat.js';
import { rec } from '../../cursors/json-value.js';

type Rec = Record<string, unknown>;


/** A bucket's tokens and recorded cost. */
function bucket(u: Rec, name: string): { tokens: number; cost: number | undefined } {
  const b = rec(u[name]);
  return { tokens: saneCount(b?.tokens, `${name}.tokens`), cost: saneCost(b?.cost_usd, `${name}.cost_usd`) };
}

/** One `byModel` entry as a usage event (README "Tokens"); undefined when it holds no tokens. */
export function muxUsage(workspace: string, key: string, usage: Rec, timestamp: string | undefined): UsageEvent | undefined {
  const [input, cached, create, output, reasoning] = ['input', 'cached', 'cacheCreate', 'output', 'reasoning'].map((n) => bucket(usage, n)) as [ReturnType<typeof bucket>, ReturnType<typeof bucket>, ReturnType<typeof bucket>, ReturnType<typeof bucket>, ReturnType<typeof bucket>];
  const all = [input, cached, create, output, reasoning];
  if (all.every((b) => b.tokens === 0)) return undefined;
  const costs = all.map((b) => b.cost).filter((c): c is number => c !== undefined);
  const { model, provider } = splitModel(key);
  return usageEventOf(CODEC_ID, workspace, 0, {
    model: model ?? key,
    provider,
    timestamp,
    inputTokens: input.tokens,
    // Mux keeps the reasoning apart from the output (README "Tokens")
    outputTokens: output.tokens + reasoning.tokens,
    reasoningTokens: reasoning.tokens,
    cacheReadTokens: cached.tokens,
    cacheWriteTokens: create.tokens,
    costUsd: costs.length === 0 ? undefined : costs.reduce((a, c) => a + c, 0),
    singleRequest: false,
    dedupKey: `${CODEC_ID}:${workspace}:${key}`,
  });
}

/**
 * The events of one `session-usage.json` text; a model entry that is not an object or holds an absurd count
 * is skipped and counted, as is a `byModel` that is not an object. `mtimeMs` (the file's) dates the usage of
 * a ledger without a `lastRequest` time: Mux rewrites the file at each stream's end (README "Tokens").
 */
export function parseMuxUsage(text: string, workspace: string, mtimeMs?: number): { events: SessionfoldEvent[]; skipped: number } {
  const doc = jsonObject(text);
  if (doc === undefined) throw new SessionfoldError('MALFORMED_LINE', `session-usage.json of ${workspace} is not a JSON object`, { agent: CODEC_ID });
  const last = rec(doc.lastRequest);
  const timestamp = muxTime(last?.timestamp) ?? muxTime(mtimeMs);
  const { model, provider } = splitModel(last?.model);
  const events: SessionfoldEvent[] = [sessionEventOf(CODEC_ID, workspace, 0, { model, provider })];
  const byModel = rec(doc.byModel);
  let skipped = byModel === undefined && doc.byModel !== undefined ? 1 : 0;
  for (const [key, value] of Object.entries(byModel ?? {})) {
    const usage = rec(value);
    if (usage === undefined) {
      skipped++;
      continue;
    }
    try {
      const e = muxUsage(workspace, key, usage, timestamp);
      if (e !== undefined) events.push(e);
    } catch (err) {
      if (!(err instanceof SessionfoldError)) throw err;
      skipped++;
    }
  }
  return { events, skipped };
}
