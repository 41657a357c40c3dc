/**
 * `EventChunks` (cursors/protocol/chunks.ts): a JSONL read offers its events by chunk, which the scan takes
 * instead of one `for await` step per event. Over every real Claude and Codex fixture (a subagent transcript
 * with its sidecar included), small buffers so that a file spans many chunks: the chunks hold the same events
 * as the per-event read, in order, none empty, each a new array the consumer keeps; the resume callbacks
 * give the same start and cursor; a resumed read (its events held until the end) too. A read that wraps
 * another's events offers no chunks, nor does a copy of a read's own properties (spread, Object.assign).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import type { Codec, CursorUpdate, ReadCursor, ReadOptions, ResumeStart } from '../cursors/protocol/codec.js';
import { EVENT_CHUNKS, eventChunks } from '../cursors/protocol/chunks.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { REAL_DIR as CODEX_REAL } from './codex-helpers.js';

const CLAUDE_REAL = new URL('../../shared/fixtures/real/claude/', import.meta.url).pathname;

function jsonlUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const CASES: [string, Codec, string][] = [
  ...jsonlUnder(CLAUDE_REAL).map((f): [string, Codec, string] => [f.slice(CLAUDE_REAL.length), claude, f]),
  ...jsonlUnder(CODEX_REAL).map((f): [string, Codec, string] => [f.slice(CODEX_REAL.length), codex, f]),
];

interface Taken {
  events: SessionfoldEvent[];
  chunks: SessionfoldEvent[][];
  start: ResumeStart | undefined;
  update: CursorUpdate | undefined;
}

/** One read of `file`, taken by chunk or event by event, with its resume callbacks' answers. */
async function take(codec: Codec, file: string, byChunk: boolean, options: ReadOptions, from?: ReadCursor): Promise<Taken> {
  const t: Taken = { events: [], chunks: [], start: undefined, update: undefined };
  const read = codec.read(file, { ...options, resume: { from, onStart: (s) => (t.start = s), onCursor: (u) => (t.update = u) } });
  if (!byChunk) {
    for await (const e of read) t.events.push(e);
    return t;
  }
  const chunks = eventChunks(read);
  expect(chunks).toBeDefined();
  for await (const c of chunks!) {
    t.chunks.push(c);
    t.events.push(...c);
  }
  return t;
}

describe('a JSONL read by chunk (EventChunks)', () => {
  it('covers a subagent transcript with its sidecar, and fixtures of both codecs', () => {
    expect(CASES.some(([name]) => name.includes('/subagents/agent-'))).toBe(true);
    expect(CASES.filter(([, c]) => c === codex).length).toBeGreaterThan(3);
  });

  describe.each(CASES)('%s', (_name, codec, file) => {
    for (const options of [{ bufferSize: 4096 }, { bufferSize: 4096, kinds: ['session', 'usage'] as const, titles: false }]) {
      const label = options.kinds === undefined ? 'all kinds' : 'usage only';
      it(`${label}: the same events, start and cursor as one by one; chunks non-empty, each the consumer's`, async () => {
        const one = await take(codec, file, false, { ...options, kinds: options.kinds && [...options.kinds] });
        const byChunk = await take(codec, file, true, { ...options, kinds: options.kinds && [...options.kinds] });
        expect(one.events.length).toBeGreaterThan(0);
        expect(byChunk.events).toEqual(one.events);
        expect(byChunk.chunks.every((c) => c.length > 0)).toBe(true);
        expect(new Set(byChunk.chunks).size).toBe(byChunk.chunks.length);
        expect(byChunk.chunks.flat()).toEqual(byChunk.events); // nothing emptied or reused after it was handed over
        expect(byChunk.start).toEqual(one.start);
        expect(byChunk.update).toEqual(one.update);
      });
    }

    it('a resumed read (events held to its end) gives the same by chunk', async () => {
      const full = await take(codec, file, false, { bufferSize: 4096 });
      const cursor = full.update!.cursor;
      // Resume from the cursor a read of the whole file left: nothing new, the same replayed tail either way.
      const one = await take(codec, file, false, { bufferSize: 4096 }, cursor);
      const byChunk = await take(codec, file, true, { bufferSize: 4096 }, cursor);
      expect(one.start?.restarted).toBe(false);
      expect(byChunk.events).toEqual(one.events);
      expect(byChunk.chunks.length).toBeLessThanOrEqual(1);
      expect(byChunk.start).toEqual(one.start);
      expect(byChunk.update).toEqual(one.update);
    });
  });

  it('a read that wraps another read’s events offers no chunks (and is taken event by event)', async () => {
    const [, codec, file] = CASES[0]!;
    async function* wrapped(): AsyncGenerator<SessionfoldEvent> {
      for await (const e of codec.read(file)) yield { ...e, agent: 'other' };
    }
    expect(eventChunks(wrapped())).toBeUndefined();
    expect(eventChunks(codec.read(file))).toBeDefined();
  });

  it('a copy of a read by spread or Object.assign does not carry its chunks', () => {
    for (const [, codec, file] of [CASES[0]!, CASES.find(([, c]) => c === codex)!]) {
      const read = codec.read(file);
      expect(eventChunks(read)).toBeDefined();
      // A wrapper building its own iterable from a read's own properties keeps none of the untransformed chunks.
      const spread = { ...read, [Symbol.asyncIterator]: () => read[Symbol.asyncIterator]() };
      const assigned = Object.assign({ [Symbol.asyncIterator]: () => read[Symbol.asyncIterator]() }, read);
      expect(Object.getOwnPropertySymbols(spread)).not.toContain(EVENT_CHUNKS);
      expect(eventChunks(spread)).toBeUndefined();
      expect(eventChunks(assigned)).toBeUndefined();
    }
  });
});
