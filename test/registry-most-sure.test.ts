/**
 * `mostSure`, the registry's rule for which codec wrote a file (`detectCodec`, and the scan's for a kept file
 * outside every root): each candidate pairs what it answers with and the loaded codec it asks; the highest
 * `detect` score plus bonus wins, the first on a tie, and a codec that scores 0 never wins, whatever its bonus.
 */
import { describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import { type DetectCandidate, mostSure } from '../src/registry.js';

/** A loaded codec whose `detect` gives `score` for every file (only `id` and `detect` are read). */
function scoring(id: string, score: number): Codec {
  return { id, detect: () => score } as unknown as Codec;
}

function pick(candidates: readonly DetectCandidate<string>[], bonus?: (c: Codec) => number): string | undefined {
  return mostSure(candidates, '/x/session.jsonl', Buffer.from('{}\n'), bonus);
}

describe('mostSure', () => {
  it('answers with the candidate paired with the highest-scoring loaded codec', () => {
    const candidates = [
      { codec: 'lazy-a', loaded: scoring('a', 1) },
      { codec: 'lazy-b', loaded: scoring('b', 3) },
      { codec: 'lazy-c', loaded: scoring('c', 2) },
    ];
    expect(pick(candidates)).toBe('lazy-b');
  });

  it('takes the first of those tied', () => {
    expect(pick([{ codec: 'first', loaded: scoring('a', 2) }, { codec: 'second', loaded: scoring('b', 2) }])).toBe('first');
  });

  it('adds the bonus only to a codec that claims the file', () => {
    const candidates = [
      { codec: 'refuses', loaded: scoring('a', 0) },
      { codec: 'unsure', loaded: scoring('b', 1) },
      { codec: 'sure', loaded: scoring('c', 2) },
    ];
    const bonus = (c: Codec) => (c.id === 'a' || c.id === 'b' ? 5 : 0);
    expect(pick(candidates, bonus)).toBe('unsure');
    expect(pick(candidates)).toBe('sure');
  });

  it('is undefined when no codec claims the file, or there are none', () => {
    expect(pick([{ codec: 'a', loaded: scoring('a', 0) }], () => 9)).toBeUndefined();
    expect(pick([])).toBeUndefined();
  });

  it('asks a codec without detect nothing and passes it over', () => {
    const silent = { id: 's' } as unknown as Codec;
    expect(pick([{ codec: 'silent', loaded: silent }, { codec: 'b', loaded: scoring('b', 1) }])).toBe('b');
  });
});
