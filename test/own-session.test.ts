/**
 * OwnSession (src/own-session.ts): the one rule for which session a file's usage belongs to, shared by
 * the session fold, the usage scan and the status line. Its edge cases, then the session fold held to it.
 */
import { describe, expect, it } from 'vitest';
import { sessionEventOf, usageEventOf } from '../cursors/protocol/events.js';
import { OwnSession } from '../src/own-session.js';
import { SessionFold } from '../src/sessions/fold.js';

describe('OwnSession', () => {
  it('is named by the first record with a session id; later records of another session are not its own', () => {
    const own = new OwnSession();
    expect(own.id).toBeUndefined();
    expect([own.claim('parent'), own.claim('sub'), own.claim('parent'), own.claim('Parent')]).toEqual([true, false, true, false]);
    expect(own.id).toBe('parent');
  });

  it('counts records without a string id as its own until one names it, and they name nothing', () => {
    const own = new OwnSession();
    expect([own.claim(undefined), own.claim(null), own.claim(7)]).toEqual([true, true, true]);
    expect(own.id).toBeUndefined();
    expect(own.claim('a')).toBe(true);
    expect([own.claim(undefined), own.claim('b')]).toEqual([false, false]);
  });

  it('takes the empty string as a name like any other', () => {
    const own = new OwnSession();
    expect([own.claim(''), own.claim('a'), own.claim('')]).toEqual([true, false, true]);
    expect(own.id).toBe('');
  });

  it('lets a session event name it over an earlier record, and undefined hand it back to the next record', () => {
    const own = new OwnSession();
    own.claim('summary-line-file-name');
    own.name('real');
    expect([own.claim('real'), own.claim('summary-line-file-name')]).toEqual([true, false]);
    own.name(undefined);
    expect([own.claim('next'), own.claim('real')]).toEqual([true, false]);
  });

  it('holds the copy `keep` makes, made once, when the session is named', () => {
    const kept: string[] = [];
    const own = new OwnSession((id) => (kept.push(id), `copy of ${id}`));
    own.claim('a');
    own.claim('a');
    own.claim('b');
    expect(kept).toEqual(['a']);
    expect(own.id).toBe('copy of a');
    own.name('c');
    expect(own.id).toBe('copy of c');
    expect(own.claim('copy of c')).toBe(true);
  });
});

describe('the session fold counts only its own session’s usage', () => {
  const usage = (sessionId: string, offset: number, inputTokens: number) =>
    usageEventOf('claude', sessionId, offset, { model: 'm', timestamp: '2026-01-01T00:00:00Z', inputTokens, outputTokens: 1, singleRequest: true, dedupKey: `k${offset}` });

  it('drops a relayed usage of another session, before and after the session event names the file’s', () => {
    const fold = new SessionFold({ content: false });
    fold.push(usage('early', 0, 1000)); // counted: nothing has named the session yet, and it names 'early'
    fold.push(sessionEventOf('claude', 'parent', 1));
    fold.push(usage('parent', 2, 10));
    fold.push(usage('sub', 3, 100));
    fold.push(usage('early', 4, 10000));
    expect(fold.finish().cost?.inputTokens).toBe(1010);
  });
});
