import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignKeys, diffMessages } from '../src/sessions/diff.js';
import type { SessionMessage } from '../src/sessions/types.js';

/** The textbook O(n·m) LCS length, as an independent check. */
function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, cur[j - 1] as number);
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The steps are an alignment: every index once, in order, and aligned pairs are equal. */
function expectValidAlignment(a: Int32Array, b: Int32Array, steps: ReturnType<typeof alignKeys>): void {
  let i = 0;
  let j = 0;
  for (const s of steps) {
    if (s.op === 'eq') {
      expect([s.i, s.j]).toEqual([i, j]);
      expect(a[s.i]).toBe(b[s.j]);
      i++;
      j++;
    } else if (s.op === 'del') expect(s.i).toBe(i++);
    else expect(s.j).toBe(j++);
  }
  expect([i, j]).toEqual([a.length, b.length]);
}

const m = (role: SessionMessage['role'], content: string): SessionMessage => ({ role, content });

describe('LCS alignment', () => {
  it('is a valid alignment of maximal length on random sequences', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 40 }), (xa, xb) => {
        const a = Int32Array.from(xa);
        const b = Int32Array.from(xb);
        const steps = alignKeys(a, b);
        expectValidAlignment(a, b, steps);
        expect(steps.filter((s) => s.op === 'eq').length).toBe(lcsLength(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('stays exact in linear space on inputs too large for the full table (Hirschberg)', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % 6;
    const a = Int32Array.from({ length: 2600 }, rnd);
    const b = Int32Array.from({ length: 2400 }, rnd);
    const steps = alignKeys(a, b);
    expectValidAlignment(a, b, steps);
    expect(steps.filter((s) => s.op === 'eq').length).toBe(lcsLength(a, b));
  });
});

describe('message diff', () => {
  it('finds nothing but unchanged messages in identical sessions', () => {
    const s = [m('user', 'a'), m('assistant', 'b')];
    const d = diffMessages(s, s.map((x) => ({ ...x })));
    expect(d.stats).toEqual({ removals: 0, additions: 0, modifications: 0, unchanged: 2 });
    expect(d.operations.map((o) => [o.type, o.indexA, o.indexB])).toEqual([
      ['unchanged', 0, 0],
      ['unchanged', 1, 1],
    ]);
  });

  it('pairs a removal and an addition of the same role in one gap into a modification', () => {
    const a = [m('user', 'q'), m('assistant', 'old answer'), m('user', 'thanks')];
    const b = [m('user', 'q'), m('assistant', 'new answer'), m('user', 'thanks')];
    const d = diffMessages(a, b);
    expect(d.operations.map((o) => [o.type, o.indexA, o.indexB])).toEqual([
      ['unchanged', 0, 0],
      ['modification', 1, 1],
      ['unchanged', 2, 2],
    ]);
    expect(d.operations[1]?.messageA?.content).toBe('old answer');
    expect(d.operations[1]?.messageB?.content).toBe('new answer');
    expect(d.stats).toEqual({ removals: 0, additions: 0, modifications: 1, unchanged: 2 });
  });

  it('never pairs messages of different roles; extra ones stay additions and removals, in order', () => {
    const a = [m('user', 'q'), m('assistant', 'x'), m('user', 'end')];
    const b = [m('user', 'q'), m('tool', 'out'), m('assistant', 'y'), m('assistant', 'z'), m('user', 'end')];
    const d = diffMessages(a, b);
    expect(d.operations.map((o) => [o.type, o.indexA, o.indexB])).toEqual([
      ['unchanged', 0, 0],
      ['addition', undefined, 1],
      ['modification', 1, 2],
      ['addition', undefined, 3],
      ['unchanged', 2, 4],
    ]);
    expect(d.stats).toEqual({ removals: 0, additions: 2, modifications: 1, unchanged: 2 });
  });

  it('reports a removal when the gap has no addition of its role', () => {
    const d = diffMessages([m('user', 'a'), m('system', 'gone'), m('user', 'b')], [m('user', 'a'), m('user', 'b')]);
    expect(d.operations.map((o) => [o.type, o.indexA, o.indexB])).toEqual([
      ['unchanged', 0, 0],
      ['removal', 1, undefined],
      ['unchanged', 2, 1],
    ]);
  });

  it('keeps both index sequences increasing and accounts for every message', () => {
    const roles = ['user', 'assistant', 'tool'] as const;
    const arb = fc.array(fc.record({ role: fc.constantFrom(...roles), content: fc.constantFrom('a', 'b', 'c', 'd') }), { maxLength: 25 });
    fc.assert(
      fc.property(arb, arb, (a, b) => {
        const d = diffMessages(a, b);
        const ia = d.operations.flatMap((o) => (o.indexA === undefined ? [] : [o.indexA]));
        const ib = d.operations.flatMap((o) => (o.indexB === undefined ? [] : [o.indexB]));
        expect(ia).toEqual(a.map((_, i) => i));
        expect(ib).toEqual(b.map((_, i) => i));
        for (const o of d.operations) {
          if (o.type === 'modification') {
            expect(o.messageA?.role).toBe(o.messageB?.role);
            expect(o.messageA?.content).not.toBe(o.messageB?.content);
          }
          if (o.type === 'unchanged') expect([o.messageA?.role, o.messageA?.content]).toEqual([o.messageB?.role, o.messageB?.content]);
        }
        const s = d.stats;
        expect(s.unchanged + s.modifications + s.removals).toBe(a.length);
        expect(s.unchanged + s.modifications + s.additions).toBe(b.length);
      }),
      { numRuns: 300 },
    );
  });
});
