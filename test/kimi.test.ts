/**
 * Every Kimi Code fixture in ../shared/fixtures/real/kimi, laid out as the CLI lays out a session folder
 * (state.json beside agents/<agent>/wire.jsonl): golden events, token totals checked by a deliberately simple
 * second reader, chunk invariance, resume at every line boundary and random cuts, the state.json dependency,
 * discovery and the env overrides. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run
 * test/kimi.test.ts` (the totals check still holds them to the simple reader).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kimi } from '../codecs/kimi/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { KIMI_LAYOUT, KIMI_REAL, layOutKimi, S2 } from './helpers/kimi-layout.js';
import { codecSplitTotals, type SplitTotals } from './helpers/usage-totals.js';

const REAL = KIMI_REAL;
const EXPECTED = new URL('../fixtures/expected/kimi/', import.meta.url).pathname;
const WIRES = (await readdir(REAL)).filter((n) => n.endsWith('.jsonl')).sort();

type Totals = SplitTotals;

/** The simple second reader: JSON.parse every line and sum the `usage` of each `usage.record`. */
function naiveKimiTotals(text: string): Totals {
  const t: Totals = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, calls: 0 };
  for (const l of text.split('\n')) {
    let r: any;
    try {
      r = JSON.parse(l);
    } catch {
      continue;
    }
    if (r?.type !== 'usage.record' || typeof r.usage !== 'object') continue;
    t.input += r.usage.inputOther ?? 0;
    t.cacheRead += r.usage.inputCacheRead ?? 0;
    t.cacheWrite += r.usage.inputCacheCreation ?? 0;
    t.output += r.usage.output ?? 0;
    t.calls++;
  }
  return t;
}

/** The codec whose `lineCore` is the one `read()` uses for this file (its session id comes from the path). */
const codecFor = (file: string): Codec => ({ ...kimi, lineCore: kimi.lineCoreFor!(file) });

let dir: string;
let root: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-kimi-'));
  root = await layOutKimi(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('kimi golden files (real fixtures in their session folders)', () => {
  it('has every wire fixture of the shared folder', () => {
    expect(WIRES.sort()).toEqual(Object.keys(KIMI_LAYOUT).sort());
  });

  it.each(WIRES)('%s: a fresh read equals the checked-in events', async (name) => {
    const events = await readEvents(kimi, join(root, KIMI_LAYOUT[name]!.wire));
    expect(events[0]?.type).toBe('session');
    await expectGolden(EXPECTED, name, events);
  });

  it.each(WIRES)('%s: golden token totals agree with a deliberately simple second reader', async (name) => {
    const golden = (await readFile(join(EXPECTED, `${name}.events.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(codecSplitTotals(golden)).toEqual(naiveKimiTotals(await readFile(join(REAL, name), 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    const t = naiveKimiTotals(await readFile(join(REAL, 'agent-sessions-wire-subagent-agent-0.jsonl'), 'utf8'));
    expect(t.calls).toBe(3);
    expect(t.input).toBeGreaterThan(10_000);
  });

  it('the session event takes title, cwd and start from state.json; a subagent names its parent', async () => {
    const main = (await readEvents(kimi, join(root, KIMI_LAYOUT['agent-sessions-wire-assistant-tools.jsonl']!.wire)))[0];
    expect(main).toMatchObject({ type: 'session', sessionId: '1bcbe023-4f7e-4971-9dc9-43b8756045b0', title: 'hi', cwd: '/private/tmp/as-agent-lab/kimi/project', startedAt: '2026-08-01T19:33:23.256Z' });
    expect(main).not.toHaveProperty('subagent');
    const sub = (await readEvents(kimi, join(root, KIMI_LAYOUT['agent-sessions-wire-subagent-agent-0.jsonl']!.wire)))[0];
    expect(sub).toMatchObject({ sessionId: '1bcbe023-4f7e-4971-9dc9-43b8756045b0/agent-0', forkedFrom: '1bcbe023-4f7e-4971-9dc9-43b8756045b0', subagent: true });
    // its own start (its wire's metadata.created_at, 42 minutes after the session's) and no borrowed title
    expect(sub).toMatchObject({ startedAt: '2026-08-01T20:15:59.837Z', cwd: '/private/tmp/as-agent-lab/kimi/project' });
    expect(sub).not.toHaveProperty('title');
    expect(kimi.getParseDependencies(join(root, KIMI_LAYOUT['agent-sessions-wire-subagent-agent-0.jsonl']!.wire))).toEqual([join(root, S2, 'state.json')]);
  });

  it('counts usage.record once, not the step.end that repeats it', async () => {
    const events = await readEvents(kimi, join(REAL, 'agent-sessions-wire-assistant-tools.jsonl'));
    const text = await readFile(join(REAL, 'agent-sessions-wire-assistant-tools.jsonl'), 'utf8');
    const stepEnds = text.split('\n').filter((l) => l.includes('"step.end"') && l.includes('"usage"')).length;
    expect(stepEnds).toBeGreaterThan(0);
    expect(byKind(events).usage.length).toBe(naiveKimiTotals(text).calls);
  });
});

describe('kimi chunking and resume over every fixture', () => {
  it.each(WIRES)('%s: same events (all kinds, and usage only) whatever the chunks', async (name) => {
    const file = join(root, KIMI_LAYOUT[name]!.wire);
    const events = await expectChunkInvariant(codecFor(file), file);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(codecFor(file), file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(WIRES)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
    const content = await readFile(join(REAL, name));
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(kimi, content, cuts, {}, name);
    await expectResumeEqualsFull(kimi, content, cuts, { kinds: ['usage'] }, name);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });
});

describe('kimi discovery, roots and bad input', () => {
  it('discovers every wire of the tree, subagents marked', async () => {
    const found = [];
    for await (const f of kimi.discover([root, join(dir, 'missing')])) found.push(f);
    expect(found.map((f) => [f.sessionId, f.subagent === true]).sort()).toEqual([
      ['1bcbe023-4f7e-4971-9dc9-43b8756045b0', false],
      ['1bcbe023-4f7e-4971-9dc9-43b8756045b0/agent-0', true],
      ['9eb1bf57-c1af-48a5-b658-0e8d9fe794f5', false],
    ]);
    expect((await kimi.locate!([root], '9eb1bf57-c1af-48a5-b658-0e8d9fe794f5'))?.path).toBe(join(root, KIMI_LAYOUT['agent-sessions-wire-small.jsonl']!.wire));
  });

  it('honours KIMI_CODE_HOME, KIMI_SHARE_DIR and SESSIONFOLD_KIMI_DIR', () => {
    expect(kimi.defaultRoots({ HOME: '/h' })).toEqual(['/h/.kimi-code/sessions', '/h/.kimi/sessions', '/h/.kimi/imported_sessions']);
    expect(kimi.defaultRoots({ HOME: '/h', KIMI_CODE_HOME: '/c', KIMI_SHARE_DIR: '/s' })).toEqual(['/c/sessions', '/s/sessions', '/s/imported_sessions']);
    expect(kimi.defaultRoots({ HOME: '/h', SESSIONFOLD_KIMI_DIR: '/a, /b' })).toEqual(['/a', '/b']);
  });

  it('skips a malformed line and keeps insane counts out of the totals', async () => {
    const bad = join(dir, 'bad.jsonl');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      bad,
      [
        '{"type":"metadata","protocol_version":"1.4","created_at":1}',
        '{not json',
        '{"type":"usage.record","model":"m","usage":{"inputOther":-5,"output":1.5,"inputCacheRead":1e300,"inputCacheCreation":7},"time":2}',
        '',
      ].join('\n'),
    );
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const usage = byKind(await readEvents(kimi, bad, { info })).usage as UsageEvent[];
    expect(info.skippedLines).toBe(1);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 7 });
  });
});
