/**
 * `blankShaped` (src/scan/types.ts): a main-thread parse hands the fold its usage events on
 * `blankUsageEvent()`'s shape, the native lane's, with every value as `read()` gave it.
 */
import { describe, expect, it } from 'vitest';
import { blankUsageEvent, type UsageEvent } from '../cursors/protocol/events.js';
import { blankShaped } from '../src/scan/types.js';

const claudeLike = { type: 'usage', agent: 'claude', sessionId: 's', offset: 7, model: 'claude-sonnet-4-5', provider: 'anthropic', timestamp: '2025-01-02T03:04:05.000Z', inputTokens: 1, outputTokens: 2, reasoningTokens: 0, cacheReadTokens: 3, cacheWriteTokens: 4, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: 'm:r', messageId: 'm' } as UsageEvent;
const codexLike = { type: 'usage', agent: 'codex', sessionId: 'x', offset: 0, model: 'unknown', modelFallback: true, timestamp: '2025-01-02T03:04:05.000Z', inputTokens: 5, outputTokens: 6, reasoningTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, costUsd: 0.5, speed: 'fast', webSearchRequests: 2, singleRequest: false, dedupKey: 'k' } as UsageEvent;

describe('blankShaped', () => {
  it('keeps every value and drops nothing: the same JSON, and equal once undefined fields are left out', () => {
    for (const e of [claudeLike, codexLike]) {
      const r = blankShaped(e);
      expect(r).not.toBe(e);
      expect(JSON.stringify(r)).toBe(JSON.stringify(blankUsageEventOrder(e)));
      expect(Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))).toStrictEqual({ ...e });
    }
  });

  it('gives events of different field sets one key order, blankUsageEvent\'s, with unknown fields after it', () => {
    const keys = Object.keys(blankUsageEvent());
    expect(Object.keys(blankShaped(claudeLike))).toEqual(keys);
    expect(Object.keys(blankShaped(codexLike))).toEqual(keys);
    const extra = { ...claudeLike, note: 'x' } as UsageEvent;
    expect(Object.keys(blankShaped(extra))).toEqual([...keys, 'note']);
    expect((blankShaped(extra) as unknown as { note: string }).note).toBe('x');
  });
});

/** `e`'s fields in blankUsageEvent's order (a simple reference: the blank's keys, then any others). */
function blankUsageEventOrder(e: UsageEvent): Record<string, unknown> {
  const src = e as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(blankUsageEvent())) out[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in out)) out[k] = src[k];
  return out;
}
