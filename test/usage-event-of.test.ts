/**
 * `usageEventOf` (cursors/protocol/events.ts), the one builder of the line codecs' usage events: counts left out
 * are 0, optional fields left undefined stay undefined on `blankUsageEvent()`'s one shape (so absent from the
 * JSON: a golden event file holds no `"costUsd": null`), and a missing model or time has the same stand-in for
 * every codec.
 */
import { describe, expect, it } from 'vitest';
import { blankUsageEvent, TOKEN_FIELDS, usageEventOf, usageEventsFromJson } from '../cursors/protocol/events.js';

describe('usageEventOf', () => {
  it('fills counts left out with 0 and leaves undefined optional fields out of the JSON', () => {
    const e = usageEventOf('qwen', 's1', 42, { model: 'qwen3-coder', timestamp: '2026-01-02T03:04:05.000Z', outputTokens: 7, provider: undefined, costUsd: undefined, messageId: undefined, singleRequest: true, dedupKey: 'qwen:s1:u1' });
    expect(e).toEqual({
      type: 'usage', agent: 'qwen', sessionId: 's1', offset: 42, model: 'qwen3-coder', timestamp: '2026-01-02T03:04:05.000Z',
      inputTokens: 0, outputTokens: 7, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0,
      singleRequest: true, dedupKey: 'qwen:s1:u1',
    });
    expect(e.costUsd).toBeUndefined();
    expect(e.modelFallback).toBeUndefined();
    expect(Object.keys(JSON.parse(JSON.stringify(e)))).toEqual(['type', 'agent', 'sessionId', 'offset', 'model', 'timestamp', ...TOKEN_FIELDS, 'singleRequest', 'dedupKey']);
    for (const f of TOKEN_FIELDS) expect(Number.isInteger(e[f])).toBe(true);
  });

  it('marks a missing model as the fallback `unknown`, and an undated record with the epoch', () => {
    const e = usageEventOf('droid', 's2', 0, { model: undefined, timestamp: undefined, singleRequest: false, dedupKey: 'k' });
    expect(e.model).toBe('unknown');
    expect(e.modelFallback).toBe(true);
    expect(e.timestamp).toBe('1970-01-01T00:00:00.000Z');
  });

  it('takes an explicit fallback flag for a model borrowed from the session', () => {
    expect(usageEventOf('gemini', 's3', 1, { model: 'gemini-2.5-pro', modelFallback: true, timestamp: undefined, singleRequest: true, dedupKey: 'k' }).modelFallback).toBe(true);
    const e = usageEventOf('gemini', 's3', 1, { model: 'gemini-2.5-pro', modelFallback: false, timestamp: undefined, singleRequest: true, dedupKey: 'k' });
    expect(e.modelFallback).toBeUndefined();
    expect(JSON.stringify(e)).not.toContain('modelFallback');
  });

  it('builds every event on blankUsageEvent\'s shape: all of its keys, in its order, whichever are set', () => {
    const keys = Object.keys(blankUsageEvent());
    expect(keys).toEqual(['type', 'agent', 'sessionId', 'offset', 'model', 'modelFallback', 'provider', 'timestamp', ...TOKEN_FIELDS, 'costUsd', 'speed', 'webSearchRequests', 'singleRequest', 'dedupKey', 'messageId', 'copied']);
    const full = usageEventOf('goose', 's4', 3, { model: 'm', provider: 'p', timestamp: 't', inputTokens: 1, costUsd: 0.5, speed: 'fast', webSearchRequests: 2, singleRequest: false, dedupKey: 'd', messageId: 'x', copied: true });
    const bare = usageEventOf('droid', 's5', 0, { model: undefined, timestamp: undefined, singleRequest: false, dedupKey: 'k' });
    expect(Object.keys(full)).toEqual(keys);
    expect(Object.keys(bare)).toEqual(keys);
    expect(JSON.parse(JSON.stringify(full))).toEqual({
      type: 'usage', agent: 'goose', sessionId: 's4', offset: 3, model: 'm', provider: 'p', timestamp: 't',
      inputTokens: 1, outputTokens: 0, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0,
      costUsd: 0.5, speed: 'fast', webSearchRequests: 2, singleRequest: false, dedupKey: 'd', messageId: 'x', copied: true,
    });
  });
});

describe('usageEventsFromJson', () => {
  it('brings a cursor state\'s usage events back on the one shape and drops anything else', () => {
    const e = usageEventOf('fx', 's1', 3, { model: 'm', timestamp: undefined, inputTokens: 2, singleRequest: true, dedupKey: 'k' });
    const back = usageEventsFromJson(JSON.parse(JSON.stringify([e, null, 7, { type: 'session' }, e])));
    expect(back).toEqual([e, e]);
    expect(Object.keys(back[0]!)).toEqual(Object.keys(blankUsageEvent()));
    expect(usageEventsFromJson({ type: 'usage' })).toEqual([]);
    expect(usageEventsFromJson(undefined)).toEqual([]);
  });
});
