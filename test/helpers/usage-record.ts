/** A UsageRecord for fold and export tests: model `alpha`, 1,000 in / 100 out, key `k<seq>`, offset seq × 100. */
import type { UsageRecord } from '../../src/scan/types.js';

export function usageRecord(seq: number, over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    type: 'usage',
    agent: 'claude',
    sessionId: 's1',
    offset: seq * 100,
    file: '/h/s1.jsonl',
    model: 'alpha',
    timestamp: '2026-01-10T12:00:00.000Z',
    inputTokens: 1_000,
    outputTokens: 100,
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    singleRequest: true,
    dedupKey: `k${seq}`,
    ...over,
  };
}
