/**
 * The chunking and resume checks every JSONL codec's real fixtures get, as one call: same events (all kinds,
 * and usage only) whatever the chunks, and resuming at every line boundary and random cuts equals a full read
 * without a restart.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Codec } from '../../cursors/protocol/codec.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts } from './codec-harness.js';

export function describeChunkingAndResume(codec: Codec, dir: string, fixtures: readonly string[]): void {
  describe(`${codec.id} chunking and resume over every fixture`, () => {
    it.each(fixtures)('%s: same events (all kinds, and usage only) whatever the chunks', async (name) => {
      const file = `${dir}${name}`;
      const events = await expectChunkInvariant(codec, file);
      expect(events.length).toBeGreaterThan(1);
      expect(await expectChunkInvariant(codec, file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
    });

    it.each(fixtures)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
      const content = await readFile(`${dir}${name}`);
      const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
      const run = await expectResumeEqualsFull(codec, content, cuts, {}, name);
      expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
    });
  });
}
