/**
 * Every pi and OpenClaw fixture of ../shared/fixtures/real (read in place): golden events, token and cost
 * totals checked by a deliberately simple second reader, chunk invariance, and resume at every line
 * boundary and random mid-line cuts, all kinds and usage only. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/pi-fixtures.test.ts` (the simple reader still has to agree).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openclaw } from '../codecs/openclaw/index.js';
import { pi } from '../codecs/pi/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionfoldEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectUsageShape } from './helpers/golden.js';
import { EXPECTED_DIR, goldenForm, OPENCLAW_SESSIONS, PI_MESSAGE_JSON, PI_SESSIONS, REAL_OPENCLAW, REAL_PI, usages } from './pi-helpers.js';

interface Case {
  codec: Codec;
  name: string;
  file: string;
}

const CASES: Case[] = [
  ...PI_SESSIONS.map((name) => ({ codec: pi, name, file: `${REAL_PI}${name}.jsonl` })),
  ...OPENCLAW_SESSIONS.map((name) => ({ codec: openclaw, name, file: `${REAL_OPENCLAW}${name}.jsonl` })),
];
const EACH = CASES.map((c) => [`${c.codec.id}/${c.name}`, c] as const);

interface Totals {
  responses: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number;
}

/**
 * The deliberately simple second reader: JSON.parse every line, and for every assistant message with a
 * usage add up its four counts and its recorded cost (responses without tokens are not responses). No
 * tree, no branch, no dedup: each fixture file holds each response once.
 */
function naiveTotals(text: string): Totals {
  const t: Totals = { responses: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
  for (const line of text.split('\n')) {
    let rec: any;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    const u = rec?.type === 'message' && rec.message?.role === 'assistant' ? rec.message.usage : undefined;
    if (!u) continue;
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    if (n(u.input) + n(u.output) + n(u.cacheRead) + n(u.cacheWrite) === 0) continue;
    t.responses++;
    t.input += n(u.input);
    t.output += n(u.output);
    t.cacheRead += n(u.cacheRead);
    t.cacheWrite += n(u.cacheWrite);
    t.usd += n(u.cost?.total);
  }
  return t;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const t: Totals = { responses: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
  for (const u of usages(events)) {
    t.responses++;
    t.input += u.inputTokens;
    t.output += u.outputTokens;
    t.cacheRead += u.cacheReadTokens;
    t.cacheWrite += u.cacheWriteTokens;
    t.usd += u.costUsd ?? 0;
  }
  return t;
}

function goldenPath(c: Case): string {
  return join(EXPECTED_DIR, c.codec.id, `${c.name}.events.jsonl`);
}

async function loadGolden(c: Case): Promise<SessionfoldEvent[]> {
  return (await readFile(goldenPath(c), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
}

function closeTotals(a: Totals, b: Totals): void {
  expect({ ...a, usd: 0 }).toEqual({ ...b, usd: 0 });
  expect(Math.abs(a.usd - b.usd)).toBeLessThan(1e-9);
}

describe('pi family golden files', () => {
  it.each(EACH)('%s: a fresh read equals the checked-in events', async (_n, c) => {
    const events = (await readEvents(c.codec, c.file)).map(goldenForm) as SessionfoldEvent[];
    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(join(EXPECTED_DIR, c.codec.id), { recursive: true });
      await writeFile(goldenPath(c), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    }
    expect(events).toEqual(await loadGolden(c));
  });

  it.each(EACH)('%s: golden token and cost totals agree with a deliberately simple second reader', async (_n, c) => {
    closeTotals(codecTotals(await loadGolden(c)), naiveTotals(await readFile(c.file, 'utf8')));
  });

  it('the simple reader sees real usage and recorded cost in the pi fixtures (the comparison is not vacuous)', async () => {
    const v1 = naiveTotals(await readFile(`${REAL_PI}${PI_SESSIONS[1]}.jsonl`, 'utf8'));
    expect(v1.responses).toBeGreaterThan(400);
    expect(v1.cacheRead).toBeGreaterThan(1_000_000);
    expect(v1.usd).toBeGreaterThan(1);
    expect(naiveTotals(await readFile(`${REAL_PI}${PI_SESSIONS[0]}.jsonl`, 'utf8')).responses).toBe(2);
  });

  it('the branch of the v3 fixture: every message entry, compactions as system messages, in file order', async () => {
    const events = await readEvents(pi, `${REAL_PI}${PI_SESSIONS[0]}.jsonl`);
    const msgs = byKind(events).message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.subtype ?? ''])).toEqual([
      ['user', ''],
      ['assistant', ''],
      ['system', 'compaction'],
      ['user', ''],
      ['assistant', ''],
      ['system', 'compaction'],
    ]);
    expect(msgs.map((m) => m.nativeId)).toEqual(['30c6a75f', '22a2720e', 'c139a627', 'ddd2179a', '4a666296', '2c19d326']);
  });
});

describe('pi AssistantMessage fixture (one message object, not a session file)', () => {
  it('its thinking with code fences, its text, tool calls and usage come out of a session line holding it', async () => {
    const msg = JSON.parse(await readFile(PI_MESSAGE_JSON, 'utf8'));
    const dir = await mkdtemp(join(tmpdir(), 'sf-pi-msg-'));
    try {
      const file = join(dir, '2026-01-01T00-00-00-000Z_m1.jsonl');
      const header = { type: 'session', version: 3, id: 'm1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' };
      const entry = { type: 'message', id: 'e1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: msg };
      await writeFile(file, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);
      const events = await readEvents(pi, file);
      const [m] = byKind(events).message as MessageEvent[];
      const blocks = msg.content as { type: string; text?: string; thinking?: string }[];
      expect(m?.thinking).toBe(blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking).join('\n'));
      expect(m?.thinking).toContain('```');
      expect(m?.text).toBe(blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
      const [u] = usages(events);
      expect(u).toMatchObject({ model: msg.model, provider: msg.provider, inputTokens: msg.usage.input, outputTokens: msg.usage.output, cacheReadTokens: msg.usage.cacheRead, cacheWriteTokens: msg.usage.cacheWrite, costUsd: msg.usage.cost.total, dedupKey: `pi:e1:${msg.timestamp}` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('read as a session file it yields nothing and every line is skipped, none fatal', async () => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    expect(await readEvents(pi, PI_MESSAGE_JSON, { info })).toEqual([]);
    expect(info.skippedLines).toBe(info.lines);
    expect(info.lines).toBeGreaterThan(10);
  });
});

describe('pi family chunking and resume over every fixture', () => {
  it.each(EACH)('%s: same events (all kinds, and usage only) in chunks of 1, 2, 3, 7, 64 bytes', async (_n, c) => {
    const events = await expectChunkInvariant(c.codec, c.file);
    expect(events.length).toBeGreaterThan(0);
    expect(await expectChunkInvariant(c.codec, c.file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  }, 120_000);

  it.each(EACH)('%s: resuming at every line boundary and random mid-line cuts equals a full read', async (_n, c) => {
    const content = await readFile(c.file);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const r = await expectResumeEqualsFull(c.codec, content, cuts);
    // Events restored from the cursor's tree keep the one shape; where the simple reader finds responses in the
    // fixture, the check must see some (it is not vacuous there).
    expectUsageShape(r.kept.usage, naiveTotals(content.toString('utf8')).responses > 0);
    expect(r.full.session.length).toBeGreaterThan(0);
    await expectResumeEqualsFull(c.codec, content, cuts, { kinds: ['session', 'usage'] });
  }, 120_000);
});
