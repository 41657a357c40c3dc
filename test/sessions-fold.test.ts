import { describe, expect, it } from 'vitest';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { SessionFold } from '../src/sessions/fold.js';
import { cutTitle, outputText } from '../src/sessions/fold-text.js';
import { resolveNativeId, resolveUnifiedId } from '../src/sessions/ids.js';

const base = { agent: 't', sessionId: 's1' };
let offset = 0;
const at = () => (offset += 100);

function msg(role: 'user' | 'assistant' | 'system' | 'tool', text: string, extra: Record<string, unknown> = {}): SessionfoldEvent {
  return { type: 'message', ...base, offset: at(), role, text, ...extra } as SessionfoldEvent;
}
function usage(extra: Partial<UsageEvent> = {}): UsageEvent {
  return {
    type: 'usage',
    ...base,
    offset: at(),
    model: 'm-1',
    timestamp: '2026-01-01T00:00:09.000Z',
    inputTokens: 100,
    outputTokens: 50,
    reasoningTokens: 10,
    cacheReadTokens: 1000,
    cacheWriteTokens: 200,
    cacheWrite1hTokens: 0,
    singleRequest: true,
    dedupKey: 'k1',
    ...extra,
  };
}
const price = (u: UsageEvent) => (u.model.startsWith('free-') ? undefined : (u.inputTokens + 2 * u.outputTokens) / 1e6);

function fold(events: (SessionfoldEvent | Record<string, unknown>)[], content = true) {
  const f = new SessionFold({ content, price });
  for (const e of events) f.push(e as SessionfoldEvent);
  return f.finish();
}

describe('session fold', () => {
  it('merges consecutive lines of one response into one message and drops exact repeats', () => {
    const r = fold([
      msg('user', 'hi', { nativeId: 'u1', timestamp: '2026-01-01T00:00:00.000Z' }),
      msg('assistant', 'part one', { nativeId: 'a1', timestamp: '2026-01-01T00:00:01.000Z' }),
      msg('assistant', 'part two', { nativeId: 'a1', thinking: 'hmm' }),
      msg('assistant', 'part two', { nativeId: 'a1' }),
      msg('assistant', 'next response', { nativeId: 'a2' }),
    ]);
    expect(r.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'part one\n\npart two'],
      ['assistant', 'next response'],
    ]);
    expect(r.messages[1]?.thinking).toBe('hmm');
    expect(r.messages[1]?.timestamp?.toISOString()).toBe('2026-01-01T00:00:01.000Z');
    expect(r.messageCount).toBe(3);
    expect(r.turnCount).toBe(1);
  });

  it('does not merge lines that share an id across roles or that have no id', () => {
    const r = fold([msg('assistant', 'a', { nativeId: 'x' }), msg('user', 'b', { nativeId: 'x' }), msg('user', 'c'), msg('user', 'd')]);
    expect(r.messages.map((m) => m.content)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('attaches tool calls by message id, results to their calls, and results become tool messages', () => {
    const r = fold([
      msg('user', 'list files'),
      msg('assistant', 'sure', { nativeId: 'a1' }),
      { type: 'tool_call', ...base, offset: at(), callId: 'c1', name: 'Bash', input: { command: 'ls' }, messageId: 'a1' },
      msg('user', '', { nativeId: 'u2' }), // a tool-result-only user line: dropped
      { type: 'tool_result', ...base, offset: at(), callId: 'c1', output: [{ type: 'text', text: 'a.txt' }], isError: false, durationMs: 12 },
      { type: 'tool_result', ...base, offset: at(), callId: 'ghost', toolName: 'Read', output: 'x', isError: true },
    ]);
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    const call = r.messages[1]?.toolCalls?.[0];
    expect(call).toEqual({ toolCallId: 'c1', toolName: 'Bash', input: { command: 'ls' }, output: [{ type: 'text', text: 'a.txt' }], durationMs: 12 });
    expect(r.messages[2]).toMatchObject({ content: 'a.txt', toolResult: { toolCallId: 'c1', toolName: 'Bash' } });
    expect(r.messages[3]).toMatchObject({ content: 'x', toolResult: { toolCallId: 'ghost', toolName: 'Read', isError: true } });
    expect(r.unmatchedToolResults).toBe(1);
  });

  it('gives a tool call without a message a tool-only assistant message', () => {
    const r = fold([msg('user', 'go'), { type: 'tool_call', ...base, offset: at(), callId: 'c9', name: 'Edit', input: {} }]);
    expect(r.messages[1]).toMatchObject({ role: 'assistant', content: '', toolCalls: [{ toolCallId: 'c9', toolName: 'Edit' }] });
    expect(r.turnCount).toBe(1);
  });

  it('completes a tool message when its result comes from the same line (sessionfold-jsonl)', () => {
    const o = at();
    const r = fold([
      { type: 'message', ...base, offset: o, role: 'tool', text: 'out' },
      { type: 'tool_result', ...base, offset: o, callId: 'c1', toolName: 'Bash', output: 'out', isError: false },
    ]);
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0]).toMatchObject({ role: 'tool', content: 'out', toolResult: { toolCallId: 'c1', output: 'out' } });
  });

  it('counts usage once per dedupKey, prices it, attaches it to its message and sums cost per model', () => {
    const r = fold([
      msg('user', 'q'),
      msg('assistant', 'a', { nativeId: 'a1' }),
      usage({ messageId: 'a1' }),
      usage({ messageId: 'a1' }), // same dedupKey: ignored
      usage({ dedupKey: 'k2', model: 'free-x', inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }),
    ]);
    expect(r.cost).toMatchObject({ totalUsd: 200 / 1e6, inputTokens: 101, outputTokens: 51, thinkingTokens: 10, cachedTokens: 1200, requestCount: 2, unpricedCount: 1 });
    expect(r.costByModel['m-1']?.totalUsd).toBeCloseTo(200 / 1e6, 12);
    expect(r.costByModel['free-x']?.unpricedCount).toBe(1);
    const m = r.messages[1];
    expect(m?.tokenUsage).toEqual({ inputTokens: 101, outputTokens: 51, thinkingTokens: 10, cachedTokens: 1200 });
    expect(m?.usage).toMatchObject({ requests: 2, dedupKey: 'k1+k2', singleRequest: false });
    expect(m?.cost).toMatchObject({ requestCount: 2, unpricedCount: 1 });
    expect(m?.cost?.totalUsd).toBeCloseTo(200 / 1e6, 12);
    expect(r.model).toBe('m-1');
  });

  it('keeps usage before any assistant message as orphan usage, counted in the session cost', () => {
    const r = fold([usage(), msg('user', 'q')]);
    expect(r.orphanUsage).toHaveLength(1);
    expect(r.orphanUsage[0]).toMatchObject({ dedupKey: 'k1', requests: 1, timestamp: '2026-01-01T00:00:09.000Z' });
    expect(r.cost?.requestCount).toBe(1);
  });

  it('attaches usage to the message it names when that message comes later, and falls back only at the end', () => {
    const r = fold([
      msg('user', 'q1'),
      msg('assistant', 'a1', { nativeId: 'a1' }),
      usage({ messageId: 'a2', dedupKey: 'k2' }), // its message comes after: not a1's
      usage({ messageId: 'gone', dedupKey: 'k3', inputTokens: 7 }), // never comes: a1, the last reply when it came
      msg('user', 'q2'),
      msg('assistant', 'a2', { nativeId: 'a2' }),
      msg('assistant', 'a3', { nativeId: 'a3' }),
    ]);
    expect(r.messages.map((m) => [m.content, m.usage?.dedupKey])).toEqual([
      ['q1', undefined],
      ['a1', 'k3'],
      ['q2', undefined],
      ['a2', 'k2'],
      ['a3', undefined],
    ]);
    expect(r.orphanUsage).toEqual([]);
    expect(r.cost).toMatchObject({ requestCount: 2, inputTokens: 107 });
  });

  it("skips usage naming another session than the file's: its session event's, else its first event's", () => {
    const session = { type: 'session', ...base, offset: at(), nativeId: 's1' };
    const relayed = usage({ sessionId: 'agent-x', dedupKey: 'k-sub', messageId: 'sub' }); // a subagent's copy
    const own = usage({ messageId: 'a1' });
    const r = fold([session, msg('user', 'q'), msg('assistant', 'a', { nativeId: 'a1' }), relayed, own]);
    expect(r.cost?.requestCount).toBe(1);
    expect(r.messages[1]?.usage).toMatchObject({ requests: 1, dedupKey: 'k1' });
    expect(r.orphanUsage).toEqual([]);
    // A usage-only fold: the first event names the session.
    expect(fold([own, relayed]).cost?.requestCount).toBe(1);
    // A line before the first with a sessionId can carry another id (a renamed Claude file's summary line
    // carries its file name): the session event, not that line, names the file's session.
    const early = msg('system', 'old branch', { sessionId: 'copy' });
    expect(fold([early, session, msg('assistant', 'a', { nativeId: 'a1' }), own]).cost?.requestCount).toBe(1);
  });

  it('takes the title from the agent, else the first real user prompt cut to 100 characters', () => {
    const long = `${'words '.repeat(30)}\n\nmore`;
    const r = fold([msg('user', '<env>ctx</env>', { subtype: 'injected' }), msg('user', long), msg('assistant', 'ok')]);
    expect(r.title).toBe(cutTitle(long));
    expect(Array.from(r.title)).toHaveLength(100);
    expect(r.agentTitle).toBe(false);
    const t = fold([{ type: 'session', ...base, offset: at(), nativeId: 's1', title: 'Named by agent' }, msg('user', long)]);
    expect(t.title).toBe('Named by agent');
    expect(t.agentTitle).toBe(true);
  });

  it('drops the space a cut leaves at the end, so cutting twice changes nothing', () => {
    const t = cutTitle(`${'x'.repeat(99)} tail`);
    expect(t).toBe('x'.repeat(99));
    expect(cutTitle(t)).toBe(t);
  });

  it('cuts titles on code points, never inside a surrogate pair', () => {
    const t = cutTitle('🐛'.repeat(150));
    expect(Array.from(t)).toHaveLength(100);
    expect(t).toBe('🐛'.repeat(100));
  });

  it('counts a turn per answered prompt; unanswered and injected prompts are not turns', () => {
    const r = fold([msg('user', 'a'), msg('assistant', 'b'), msg('assistant', 'c'), msg('user', 'ctx', { subtype: 'meta' }), msg('assistant', 'd'), msg('user', 'e'), msg('user', 'f'), msg('assistant', 'g'), msg('user', 'h')]);
    expect(r.turnCount).toBe(2);
    expect(r.messageCount).toBe(9);
  });

  it('takes dates from the session start and the latest event, ignoring unknown event kinds', () => {
    const r = fold([
      { type: 'session', ...base, offset: at(), nativeId: 's1', startedAt: '2026-01-01T00:00:00.000Z', cwd: '/w', forkedFrom: 'p' },
      msg('user', 'q', { timestamp: '2026-01-01T00:00:05.000Z' }),
      { type: 'weather', ...base, offset: at(), timestamp: '2030-01-01T00:00:00.000Z' },
      msg('assistant', 'a', { timestamp: '2026-01-01T00:01:00.000Z' }),
    ]);
    expect(new Date(r.firstMs as number).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(new Date(r.lastMs as number).toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(r).toMatchObject({ cwd: '/w', forkedFrom: 'p', sessionId: 's1' });
  });

  it('counts the same messages with and without content', () => {
    const events: SessionfoldEvent[] = [
      msg('user', 'q'),
      msg('assistant', '', { nativeId: 'a' }),
      { type: 'tool_call', ...base, offset: at(), callId: 'c', name: 'X', input: 1, messageId: 'a' },
      { type: 'tool_result', ...base, offset: at(), callId: 'c', output: [], isError: false },
      msg('assistant', '', { nativeId: 'b' }),
      msg('assistant', 'done'),
    ];
    const full = fold(events, true);
    const light = fold(events, false);
    expect(light.messageCount).toBe(full.messages.length);
    expect(light.turnCount).toBe(full.turnCount);
    expect(light.title).toBe(full.title);
    expect(light.messages).toEqual([]);
  });

  it('renders tool outputs as text: strings, text blocks, else JSON', () => {
    expect(outputText('x')).toBe('x');
    expect(outputText([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])).toBe('a\nb');
    expect(outputText({ content: 'c' })).toBe('c');
    expect(outputText({ exit: 0 })).toBe('{"exit":0}');
    expect(outputText(null)).toBe('');
  });
});

describe('unified ids', () => {
  it('joins agent and native id with a colon, without checking anything', () => {
    expect(resolveUnifiedId('claude', 'a1b2')).toBe('claude:a1b2');
    expect(resolveUnifiedId('nope', 'x:y')).toBe('nope:x:y');
  });

  it('splits on the first colon only and keeps the native id byte for byte', () => {
    expect(resolveNativeId('sessionfold-jsonl:a:b:c')).toEqual({ agent: 'sessionfold-jsonl', nativeSessionId: 'a:b:c' });
    expect(resolveNativeId('sessionfold-jsonl: spaced ')).toEqual({ agent: 'sessionfold-jsonl', nativeSessionId: ' spaced ' });
  });

  it('resolves an alias to the codec id', () => {
    expect(resolveNativeId('sessionfold:x')).toEqual({ agent: 'sessionfold-jsonl', nativeSessionId: 'x' });
  });

  it('returns null without a colon, with an empty side, or for an unregistered agent', () => {
    expect(resolveNativeId('no-colon')).toBeNull();
    expect(resolveNativeId(':x')).toBeNull();
    expect(resolveNativeId('sessionfold-jsonl:')).toBeNull();
    expect(resolveNativeId('unknown-agent:123')).toBeNull();
  });

  it('round-trips every registered agent', () => {
    for (const agent of ['sessionfold-jsonl']) expect(resolveNativeId(resolveUnifiedId(agent, 'id:1'))).toEqual({ agent, nativeSessionId: 'id:1' });
  });
});
