/**
 * Generated pi trees (seeded): entries hang under the last entry, under a random earlier one (near or far
 * back), under an id no line has, or start a new root. For each, a full read's messages equal those of a
 * deliberately simple branch walker (pi's rule), its usage is every response once, and resuming at every
 * line boundary equals the full read.
 */
import { describe, expect, it } from 'vitest';
import { OPEN_NODES, pi } from '../codecs/pi/index.js';
import type { MessageEvent } from '../cursors/protocol/events.js';
import { expectResumeEqualsFull, lineBoundaries } from './helpers/codec-harness.js';
import { assistant, HEADER, jsonl, user, usages } from './pi-helpers.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rec = { id: string; parentId: string | null; message: { role: string; content: { text: string }[] } };

function generate(seed: number, count: number): Rec[] {
  const rnd = prng(seed);
  const out: Rec[] = [];
  for (let i = 0; i < count; i++) {
    const last = out[out.length - 1]?.id ?? null;
    const r = rnd();
    let parent: string | null = last;
    if (out.length > 0 && r < 0.08) parent = out[Math.floor(rnd() * out.length)]!.id;
    else if (out.length > 3 && r < 0.12) parent = out[out.length - 1 - Math.floor(rnd() * 4)]!.id;
    else if (r < 0.14) parent = `missing-${i}`;
    else if (r < 0.15) parent = null;
    const id = `e${i}`;
    out.push((i % 2 === 0 ? user(id, parent, `t${i}`) : assistant(id, parent, `t${i}`, 10 + i, 1)) as unknown as Rec);
  }
  return out;
}

/** pi's rule, written plainly: link unknown parents to the entry before, then walk from the last entry. */
function branchTexts(recs: readonly Rec[]): string[] {
  const parent = new Map<string, string | null>();
  let prev: string | null = null;
  for (const r of recs) {
    parent.set(r.id, r.parentId === null ? null : parent.has(r.parentId) ? r.parentId : prev);
    prev = r.id;
  }
  const path: string[] = [];
  for (let cur = prev; cur !== null; cur = parent.get(cur) ?? null) path.unshift(cur);
  const byId = new Map(recs.map((r) => [r.id, r]));
  return path.map((id) => byId.get(id)!.message.content[0]!.text);
}

let restarts = 0;

describe('generated pi trees', () => {
  it.each([1, 2, 3, 4, 5, 6])('seed %i: branch, usage and resume at every line boundary', async (seed) => {
    const recs = generate(seed, 2 * OPEN_NODES + 30);
    const content = jsonl([HEADER, ...recs]);
    const r = await expectResumeEqualsFull(pi, content, lineBoundaries(content));
    expect((r.full.message as MessageEvent[]).map((m) => m.text)).toEqual(branchTexts(recs));
    expect(usages(r.full.usage).map((u) => u.messageId)).toEqual(recs.filter((x) => x.message.role === 'assistant').map((x) => x.id));
    expect(r.full.message.length, 'some entries are off the branch').toBeLessThan(recs.length);
    restarts += r.starts.filter((s) => s.restarted && s.reason === 'id-collision').length;
  }, 60_000);

  it('the seeds include branches back past the open window (resumed reads that restart)', () => {
    expect(restarts).toBeGreaterThan(0);
  });
});
