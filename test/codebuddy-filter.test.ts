/**
 * CodeBuddy's usage-only reads (the cost scan's: kinds ⊆ {usage, session}) pass over the lines that cannot
 * hold usage, a model or a title by their bytes (codecs/codebuddy/filter.ts), before any JSON.parse: the
 * megabytes of `function_call_result` lines are never parsed. Over every fixture and a generated transcript
 * (fixtures/generate/codebuddy.ts), at read chunks of 1 MiB, 4 KiB and 61 bytes, such a read gives the
 * events of the full parse, and resuming it at every cut gives the full read's.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { codebuddy } from '../codecs/codebuddy/index.js';
import type { ReadOptions } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { parseSync } from '../cursors/sync.js';
import { generateCodeBuddySession } from '../fixtures/generate/codebuddy.js';
import { Rng } from '../fixtures/generate/prng.js';
import { expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';

const DIR = new URL('../fixtures/codebuddy/projects/home-alice-repo/', import.meta.url).pathname;
const FIXTURES = (await readdir(DIR)).filter((n) => n.endsWith('.jsonl')).map((n) => `${DIR}${n}`);
const CHUNKS = [1 << 20, 4096, 61] as const;

let tmp = '';
let generated = '';
let generatedTotals = { responses: 0, input: 0, cacheRead: 0, output: 0 };

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-codebuddy-filter-'));
  const s = generateCodeBuddySession(join(tmp, 'projects', 'home-dev-project', 'c0ffee00-0000-4000-8000-000000000001.jsonl'), 400_000, new Rng('codebuddy-filter'));
  generated = s.path;
  generatedTotals = s.totals;
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const only = (events: readonly SessionfoldEvent[], kinds: readonly string[]) => events.filter((e) => kinds.includes(e.type));

/** The usage-only reads and the full parse they must equal (all kinds, then the kinds the read asks for). */
const READS: readonly { name: string; options: ReadOptions; kinds: readonly string[] }[] = [
  { name: 'usage', options: { kinds: ['usage'] }, kinds: ['usage'] },
  { name: 'session + usage', options: { kinds: ['session', 'usage'] }, kinds: ['session', 'usage'] },
  { name: 'session + usage without titles (the cost scan)', options: { kinds: ['session', 'usage'], titles: false }, kinds: ['session', 'usage'] },
];

describe('codebuddy usage-only reads', () => {
  it('the generated transcript has what the filter is for (huge results, calls without usage, copies, a title)', async () => {
    const text = await readFile(generated, 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines.some((l) => l.includes('"function_call_result"') && l.length > 300_000)).toBe(true);
    expect(lines.some((l) => l.includes('"function_call"') && !l.includes('"usage"'))).toBe(true);
    expect(lines.some((l) => l.includes('"incomplete"'))).toBe(true);
    expect(lines.some((l) => l.includes('"ai-title"'))).toBe(true);
    const usage = (await readEvents(codebuddy, generated, { kinds: ['usage'] })) as UsageEvent[];
    expect(usage.length).toBe(generatedTotals.responses);
    expect(usage.reduce((a, u) => a + u.inputTokens, 0)).toBe(generatedTotals.input);
    expect(usage.reduce((a, u) => a + u.cacheReadTokens, 0)).toBe(generatedTotals.cacheRead);
    expect(usage.reduce((a, u) => a + u.outputTokens, 0)).toBe(generatedTotals.output);
  });

  describe.each(READS)('$name', ({ options, kinds }) => {
    it.each(CHUNKS)('equals the full parse over every fixture and the generated transcript, read in chunks of %i bytes', async (chunk) => {
      for (const file of [...FIXTURES, generated]) {
        const full = only(await readEvents(codebuddy, file, { titles: options.titles }), kinds);
        expect(full.some((e) => e.type === 'usage')).toBe(true);
        expect(await readEvents(codebuddy, file, { ...options, bufferSize: chunk }), `${file} file read`).toEqual(full);
        const content = await readFile(file);
        expect(parseSync(codebuddy.lineCore!, content, { ...options, chunkSize: chunk, file }), `${file} parseSync`).toEqual(full);
      }
    });

    it('resuming at line boundaries and random cuts equals a full read', async () => {
      for (const file of [...FIXTURES, generated]) {
        const content = await readFile(file);
        const bounds = lineBoundaries(content);
        const cuts = [...new Set([...bounds.filter((_, i) => i % 7 === 0), ...randomCuts(content.length, 25, content.length)])].sort((a, b) => a - b);
        const run = await expectResumeEqualsFull(codebuddy, content, cuts, options, file.split('/').pop());
        expect(run.full.usage.length).toBeGreaterThan(0);
      }
    });
  });

  it('never parses a line without a marker: no tool result or prompt past the first line reaches JSON.parse', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const info = newReadInfo();
      const usage = await readEvents(codebuddy, generated, { kinds: ['session', 'usage'], titles: false, info });
      expect(usage.length).toBeGreaterThan(1);
      const parsed = parse.mock.calls.map((c) => String(c[0]));
      expect(parsed.filter((t) => t.includes('"function_call_result"'))).toEqual([]);
      expect(parsed.filter((t) => t.includes('"role":"user"')).length).toBeLessThanOrEqual(1);
      expect(info.filteredLines).toBeGreaterThan(0);
    } finally {
      parse.mockRestore();
    }
  });
});
