/**
 * What a usage event costs beyond its tokens' list prices, from fields the codecs carry (cursors/protocol/events.ts):
 *
 * - `speed: "fast"` (Anthropic fast mode, Claude API only): the whole request is billed at a multiple of the
 *   standard rates, and the multiple "stacks with other pricing modifiers" (cache multiples, the long-context
 *   tier), so it applies to the computed token cost as a whole. Opus 4.6: 6x (Anthropic's fast-mode docs:
 *   $30 / $150 per MTok ≤ 200K, $60 / $225 above); Opus 4.7: 6x; Opus 4.8 and Opus 5: 2x ($10 / $50)
 *   (LiteLLM's `fast` multipliers, OpenRouter's `-fast` pages; see codecs/claude/README.md). Any other model
 *   recorded as fast is billed at 6x, the only multiple Anthropic documents, and never at the standard rate.
 * - `webSearchRequests` (Anthropic server-side web search): $10 per 1,000 searches on top of tokens.
 *
 * A recorded `costUsd` (mode `auto`) already includes all of it and is used as is.
 */
import type { UsageEvent } from '../../cursors/protocol/events.js';

export const FAST_MODE_DEFAULT_MULTIPLIER = 6;
export const WEB_SEARCH_USD_PER_REQUEST = 10 / 1000;

/** Model-id patterns (normalized: lowercase, `.` or `-` between version digits) and their fast-mode multiples. */
const FAST_MODE_MULTIPLIERS: readonly [RegExp, number][] = [
  [/opus-4[.-]6/, 6],
  [/opus-4[.-]7/, 6],
  [/opus-4[.-]8/, 2],
  [/opus-5(?![.-]?\d)/, 2],
];

/** The fast-mode multiple of a model id. */
export function fastModeMultiplier(model: string): number {
  const m = model.toLowerCase();
  for (const [re, x] of FAST_MODE_MULTIPLIERS) if (re.test(m)) return x;
  return FAST_MODE_DEFAULT_MULTIPLIER;
}

/** Apply the surcharges of `u` to its computed token cost. */
export function withSurcharges(tokenUsd: number, u: Partial<Pick<UsageEvent, 'speed' | 'webSearchRequests'>> & { model: string }): number {
  let usd = tokenUsd;
  if (u.speed === 'fast') usd *= fastModeMultiplier(u.model);
  const searches = u.webSearchRequests;
  if (typeof searches === 'number' && searches > 0) usd += searches * WEB_SEARCH_USD_PER_REQUEST;
  return usd;
}
