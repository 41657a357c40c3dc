/**
 * Every Gemini CLI fixture in ../shared/fixtures/real/gemini: golden events, token totals checked by a
 * deliberately simple second reader, chunk invariance (JSONL through the core and the file reader; JSON
 * through the file reader's buffer sizes), and resume at every line boundary and random cuts. Regenerate the
 * golden files with `UPDATE_GOLDEN=1 npx vitest run test/gemini-fixtures.test.ts` (the totals check then
 * still holds them to the simple reader).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { gemini } from '../codecs/gemini/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';

const REAL_DIR = new URL('../../shared/fixtures/real/gemini/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/gemini/', import.meta.url).pathname;
const FIXTURES = (await readdir(REAL_DIR)).filter((n) => n.endsWith('.json') || n.endsWith('.jsonl')).sort();
const JSONL = FIXTURES.filter((n) => n.endsWith('.jsonl'));

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  responses: number;
}

/**
 * The deliberately simple second reader: JSON.parse the document (or every line), and sum the `tokens` of
 * each message id's first copy that has them: billed input = input + tool (input holds the cached part),
 * output = output + thoughts. No rewinds, checkpoints or models.
 */
function naiveTotals(name: string, text: string): Totals {
  const records: any[] = name.endsWith('.jsonl')
    ? text.split('\n').flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      })
    : (JSON.parse(text).messages ?? []);
  const sum: Totals = { input: 0, cached: 0, output: 0, reasoning: 0, responses: 0 };
  const seen = new Set<string>();
  for (const r of records) {
    if (typeof r?.id !== 'string' || typeof r.tokens !== 'object' || r.tokens === null || seen.has(r.id)) continue;
    seen.add(r.id);
    const t = r.tokens;
    sum.input += (t.input ?? 0) + (t.tool ?? 0);
    sum.cached += t.cached ?? 0;
    sum.output += (t.output ?? 0) + (t.thoughts ?? 0);
    sum.reasoning += t.thoughts ?? 0;
    sum.responses++;
  }
  return sum;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const sum: Totals = { input: 0, cached: 0, output: 0, reasoning: 0, responses: 0 };
  for (const u of events.filter((e): e is UsageEvent => e.type === 'usage')) {
    sum.input += u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    sum.cached += u.cacheReadTokens;
    sum.output += u.outputTokens;
    sum.reasoning += u.reasoningTokens;
    sum.responses++;
  }
  return sum;
}

const goldenPath = (name: string) => `${EXPECTED_DIR}${name}.events.jsonl`;

async function golden(name: string): Promise<SessionfoldEvent[]> {
  return (await readFile(goldenPath(name), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SessionfoldEvent);
}

/** The codec without its line core: a JSON document is not read line by line. */
const documentCodec: Codec = { ...gemini, lineCore: undefined };

describe('gemini golden files (real fixtures)', () => {
  it('has every fixture of the shared folder', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(5);
    expect(JSONL.length).toBeGreaterThanOrEqual(1);
  });

  it.each(FIXTURES)('%s: a fresh read equals the checked-in events', async (name) => {
    const events = await readEvents(gemini, `${REAL_DIR}${name}`);
    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(EXPECTED_DIR, { recursive: true });
      await writeFile(goldenPath(name), events.map((e) => JSON.stringify(e) + '\n').join(''));
    }
    expect(events).toEqual(await golden(name));
    expect(events[0]?.type).toBe('session');
  });

  it.each(FIXTURES)('%s: golden token totals agree with a deliberately simple second reader', async (name) => {
    expect(codecTotals(await golden(name))).toEqual(naiveTotals(name, await readFile(`${REAL_DIR}${name}`, 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    const t = naiveTotals('x.jsonl', await readFile(`${REAL_DIR}agent-sessions-jsonl-v0.40.jsonl`, 'utf8'));
    expect(t).toEqual({ input: 23924, cached: 11502, output: 228, reasoning: 0, responses: 2 });
  });
});

describe('gemini chunking and resume over every fixture', () => {
  it.each(FIXTURES)('%s: same events (all kinds, and usage only) whatever the chunks', async (name) => {
    const file = `${REAL_DIR}${name}`;
    const codec = name.endsWith('.jsonl') ? gemini : documentCodec;
    const events = await expectChunkInvariant(codec, file);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(codec, file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(FIXTURES)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
    const content = await readFile(`${REAL_DIR}${name}`);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(gemini, content, cuts, {}, name);
    await expectResumeEqualsFull(gemini, content, cuts, { kinds: ['usage'] }, name);
    if (name.endsWith('.jsonl')) expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
    else expect(run.cursors.every((c) => c.format === 'json')).toBe(true);
  });
});
