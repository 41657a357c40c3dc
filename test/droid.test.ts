/**
 * Every Factory Droid fixture: the shared real files (../shared/fixtures/real/droid: session-store and
 * stream-json shapes, no sidecar) and fixtures/droid/sessions (a stored session with its settings.json, shaped
 * as README "Where" cites). Golden events, token totals by a deliberately simple second reader, chunk
 * invariance, resume at every line boundary and random cuts, the sidecar as a parse dependency whose change
 * a resumed read picks up, and the roots. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/droid.test.ts`.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { droid, getDroidRoots } from '../codecs/droid/index.js';
import type { ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { expectGolden } from './helpers/golden.js';
import { jsonLines } from './helpers/json-lines.js';

const REAL_DIR = new URL('../../shared/fixtures/real/droid/', import.meta.url).pathname;
const OWN_DIR = new URL('../fixtures/droid/sessions/-home-someone-proj/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/droid/', import.meta.url).pathname;
const REAL = (await readdir(REAL_DIR)).filter((n) => n.endsWith('.jsonl')).sort();
const OWN = (await readdir(OWN_DIR)).filter((n) => n.endsWith('.jsonl')).sort();

interface Totals {
  input: number;
  output: number;
  reasoning: number;
}

/** The simple second reader: every line's `completion.usage`, plus the sidecar's `tokenUsage` when there is one. */
function naiveTotals(jsonl: string, settings: string | undefined): Totals {
  const sum: Totals = { input: 0, output: 0, reasoning: 0 };
  for (const r of jsonLines(jsonl)) {
    if (r?.type !== 'completion' || typeof r.usage !== 'object') continue;
    sum.input += r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens;
    sum.output += r.usage.output_tokens;
  }
  if (settings !== undefined) {
    const t = JSON.parse(settings).tokenUsage;
    sum.input += t.inputTokens + t.cacheReadTokens + t.cacheCreationTokens;
    sum.output += t.outputTokens + t.thinkingTokens;
    sum.reasoning += t.thinkingTokens;
  }
  return sum;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const sum: Totals = { input: 0, output: 0, reasoning: 0 };
  for (const u of events.filter((e): e is UsageEvent => e.type === 'usage')) {
    sum.input += u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    sum.output += u.outputTokens;
    sum.reasoning += u.reasoningTokens;
  }
  return sum;
}

const settingsText = (dir: string, name: string) => readFile(join(dir, name.replace(/\.jsonl$/, '.settings.json')), 'utf8').catch(() => undefined);

describe('droid golden files', () => {
  it('has every fixture of the shared folder and a stored session with its sidecar', () => {
    expect(REAL.length).toBeGreaterThanOrEqual(5);
    expect(OWN.length).toBe(1);
  });

  it.each([...REAL.map((n) => [REAL_DIR, n]), ...OWN.map((n) => [OWN_DIR, n])])('%s%s: a fresh read equals the checked-in events, with totals of the simple reader', async (dir, name) => {
    const events = await readEvents(droid, join(dir, name));
    await expectGolden(EXPECTED_DIR, name, events);
    expect(events[0]?.type).toBe('session');
    expect(codecTotals(events)).toEqual(naiveTotals(await readFile(join(dir, name), 'utf8'), await settingsText(dir, name)));
  });

  it('the simple reader sees real usage in both shapes (the comparison is not vacuous)', async () => {
    const stream = await readFile(`${REAL_DIR}agent-sessions-stream_json_schema_drift.jsonl`, 'utf8');
    expect(naiveTotals(stream, undefined)).toEqual({ input: 10, output: 5, reasoning: 0 });
    const own = OWN[0]!;
    expect(naiveTotals(await readFile(join(OWN_DIR, own), 'utf8'), await settingsText(OWN_DIR, own))).toEqual({ input: 1834 + 27630 + 9210, output: 412 + 96, reasoning: 96 });
  });

  it('names the sidecar as the parse dependency and reads its model, provider and totals', async () => {
    const file = join(OWN_DIR, OWN[0]!);
    expect(droid.getParseDependencies(file)).toEqual([file.replace(/\.jsonl$/, '.settings.json')]);
    const usage = (await readEvents(droid, file, { kinds: ['usage'] })) as UsageEvent[];
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ model: 'claude-sonnet-4-5-20250929', provider: 'anthropic', inputTokens: 1834, cacheReadTokens: 27630, cacheWriteTokens: 9210, outputTokens: 508, reasoningTokens: 96, timestamp: '2026-03-02T10:00:20.000Z', singleRequest: false });
  });
});

describeChunkingAndResume(droid, REAL_DIR, REAL);
describeChunkingAndResume({ ...droid, lineCore: droid.lineCoreFor!(join(OWN_DIR, OWN[0]!)) }, OWN_DIR, OWN);

describe('droid sidecar on resume', () => {
  it('a resumed read gives the totals again with what the sidecar says now', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-droid-'));
    try {
      const name = OWN[0]!;
      const content = await readFile(join(OWN_DIR, name));
      const file = join(dir, name);
      const sidecar = file.replace(/\.jsonl$/, '.settings.json');
      const half = content.indexOf('\n', content.length >> 1) + 1;
      await writeFile(file, content.subarray(0, half));
      await writeFile(sidecar, JSON.stringify({ model: 'claude-sonnet-4-5-20250929', tokenUsage: { inputTokens: 5, outputTokens: 1 } }));
      let cursor: ReadCursor | undefined;
      let replaced = -1;
      const first = (await collect(file, undefined, (c) => (cursor = c))).filter((e) => e.type === 'usage') as UsageEvent[];
      expect(first.map((u) => u.inputTokens)).toEqual([5]);
      await writeFile(file, content);
      await copyFile(join(OWN_DIR, name.replace(/\.jsonl$/, '.settings.json')), sidecar);
      const second = (await collect(file, cursor, undefined, (n) => (replaced = n))).filter((e) => e.type === 'usage') as UsageEvent[];
      expect(replaced).toBe(1);
      expect(second.map((u) => u.inputTokens)).toEqual([1834]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function collect(file: string, from: ReadCursor | undefined, onCursor?: (c: ReadCursor) => void, onReplaced?: (n: number) => void): Promise<SessionfoldEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of droid.read(file, { resume: { from, onCursor: (u) => onCursor?.(u.cursor), onStart: (s) => onReplaced?.(s.replaced.usage ?? 0) } })) out.push(e);
  return out;
}

describe('droid roots', () => {
  it('~/.factory/sessions, or the DROID_SESSIONS_DIR list', () => {
    expect(getDroidRoots({ HOME: '/h' })).toEqual(['/h/.factory/sessions']);
    expect(getDroidRoots({ HOME: '/h', DROID_SESSIONS_DIR: '/a, ,/b' })).toEqual(['/a', '/b']);
  });
});

describe('droid bad input', () => {
  it('skips and counts a malformed line; a broken sidecar or insane counts give no usage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-droid-bad-'));
    try {
      const file = join(dir, 'u.jsonl');
      await writeFile(file, '{"type":"session_start","id":"u","cwd":"/p"}\nnot json\n{"type":"completion","finalText":"ok","usage":{"input_tokens":-1,"output_tokens":2.5,"cache_read_input_tokens":"9"}}\n');
      const sidecar = file.replace(/\.jsonl$/, '.settings.json');
      await writeFile(sidecar, '{"tokenUsage":{"inputTokens":-3,"outputTokens":1e300,"thinkingTokens":"7"}}');
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const events = await readEvents(droid, file, { info });
      expect(info.skippedLines).toBe(1);
      expect(events.filter((e) => e.type === 'usage')).toEqual([]);
      expect(events.filter((e) => e.type === 'message')).toHaveLength(1);
      await writeFile(sidecar, '{"tokenUsage": {');
      expect((await readEvents(droid, file)).filter((e) => e.type === 'usage')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('droid from a stream', () => {
  it('takes the session id from the first record when there is no file name', async () => {
    const { parseSync } = await import('../cursors/sync.js');
    const stream = await readFile(`${REAL_DIR}agent-sessions-stream_json_schema_drift.jsonl`);
    expect(parseSync(droid.lineCore!, stream, { file: '-' })[0]).toMatchObject({ type: 'session', sessionId: 'sid_stage0_drift' });
    const stored = await readFile(`${REAL_DIR}agent-sessions-session_store_small.jsonl`);
    expect(parseSync(droid.lineCore!, stored, { file: '-' })[0]).toMatchObject({ type: 'session', sessionId: 'droid_s1' });
  });
});

describe('droid stream-json replies', () => {
  it('the last reply said as a message and again as completion.finalText is one message; reasoning is thinking', async () => {
    const { parseSync } = await import('../cursors/sync.js');
    const line = (o: object) => JSON.stringify({ session_id: 'sid', timestamp: '2026-01-01T00:00:00.000Z', ...o });
    const run = (prompt: string, said: boolean) => [
      line({ type: 'message', role: 'user', id: `u-${prompt}`, text: prompt }),
      line({ type: 'reasoning', id: `r-${prompt}`, text: `Thinking about ${prompt}.` }),
      ...(said ? [line({ type: 'message', role: 'assistant', id: `a-${prompt}`, text: `Done ${prompt}.` })] : []),
      line({ type: 'completion', finalText: `Done ${prompt}.`, usage: { input_tokens: 10, output_tokens: 5 } }),
    ];
    // a run whose reply came as a message, then one whose reply only finalText holds
    const text = [line({ type: 'system', subtype: 'init', model: 'claude-opus-4-7' }), ...run('one', true), ...run('two', false)].join('\n') + '\n';
    const messages = parseSync(droid.lineCore!, Buffer.from(text), { file: '-' }).filter((e) => e.type === 'message');
    expect(messages.map((m) => (m.type === 'message' ? [m.role, m.text, m.thinking ?? ''] : []))).toEqual([
      ['user', 'one', ''],
      ['assistant', '', 'Thinking about one.'],
      ['assistant', 'Done one.', ''],
      ['user', 'two', ''],
      ['assistant', '', 'Thinking about two.'],
      ['assistant', 'Done two.', ''],
    ]);
  });
});
