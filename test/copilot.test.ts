/**
 * Every copilot fixture (../shared/fixtures/real/copilot): golden events, token totals and the usage-unknown
 * flag checked by a deliberately simple second reader, chunk invariance, resume at every line boundary and at
 * random mid-line cuts (all kinds, usage only, and the cost scan's session + usage read), then the rules one by
 * one on inline sessions, and discovery. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/copilot.test.ts` (the simple reader still has to agree).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { copilot, getCopilotRoots, parseWorkspace, sessionIdOfPath } from '../codecs/copilot/index.js';
import { parseSync } from '../cursors/sync.js';
import { newReadInfo, type ReadOptions } from '../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { jsonlFiles } from './helpers/files.js';
import { nativeKernel } from '../cursors/native.js';
import { nativeLineReads } from '../cursors/native-lines.js';

const REAL_DIR = new URL('../../shared/fixtures/real/copilot/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/copilot/', import.meta.url).pathname;
const FIXTURES = await jsonlFiles(REAL_DIR);
const name = (file: string) => file.slice(REAL_DIR.length).replace(/\//g, '__').replace(/\.jsonl$/, '');
const COST_SCAN: ReadOptions = { kinds: ['session', 'usage'], titles: false };

interface Totals {
  billedInput: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  unknown: boolean;
}

/**
 * The deliberately simple second reader: JSON.parse every line; every `session.shutdown` adds each model's
 * `usage` (input gross, as Copilot writes it), or, when no model has one, its `tokenDetails` (input net, so
 * the cache counts are added back). Usage is unknown when some run (split at start and resume) called the
 * model (turn_start or assistant.message) after its last shutdown.
 */
function naiveTotals(text: string): Totals {
  const t: Totals = { billedInput: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0, unknown: false };
  let activeSinceShutdown = false;
  for (const l of text.split('\n')) {
    let r: { type?: string; data?: any };
    try {
      r = JSON.parse(l);
    } catch {
      continue;
    }
    if (r.type === 'session.start' || r.type === 'session.resume') {
      if (activeSinceShutdown) t.unknown = true;
      activeSinceShutdown = false;
    }
    if (r.type === 'assistant.message' || r.type === 'assistant.turn_start') activeSinceShutdown = true;
    if (r.type !== 'session.shutdown') continue;
    activeSinceShutdown = false;
    const withUsage = Object.values(r.data.modelMetrics ?? {}).filter((m: any) => m.usage);
    for (const m of withUsage as any[]) {
      t.billedInput += m.usage.inputTokens;
      t.cacheRead += m.usage.cacheReadTokens;
      t.cacheWrite += m.usage.cacheWriteTokens;
      t.output += m.usage.outputTokens;
      t.reasoning += m.usage.reasoningTokens ?? 0;
    }
    const td = r.data.tokenDetails;
    if (withUsage.length === 0 && td) {
      t.billedInput += td.input.tokenCount + td.cache_read.tokenCount + td.cache_write.tokenCount;
      t.cacheRead += td.cache_read.tokenCount;
      t.cacheWrite += td.cache_write.tokenCount;
      t.output += td.output.tokenCount;
    }
  }
  if (activeSinceShutdown) t.unknown = true;
  return t;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const t: Totals = { billedInput: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0, unknown: false };
  for (const e of events) {
    if (e.type === 'session' && e.usageUnknown !== undefined) t.unknown = e.usageUnknown;
    if (e.type !== 'usage') continue;
    t.billedInput += e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens;
    t.cacheRead += e.cacheReadTokens;
    t.cacheWrite += e.cacheWriteTokens;
    t.output += e.outputTokens;
    t.reasoning += e.reasoningTokens;
  }
  return t;
}

async function golden(file: string): Promise<SessionfoldEvent[]> {
  return (await readFile(`${EXPECTED_DIR}${name(file)}.events.jsonl`, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SessionfoldEvent);
}

describe('copilot golden files (real fixtures)', () => {
  it('reads every fixture there is, both layouts', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(4);
    expect(FIXTURES.some((f) => basename(f) === 'events.jsonl')).toBe(true);
  });

  it.each(FIXTURES.map((f) => [name(f), f]))('%s: a fresh read equals the checked-in events', async (_n, file) => {
    const events = await readEvents(copilot, file);
    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(EXPECTED_DIR, { recursive: true });
      await writeFile(`${EXPECTED_DIR}${name(file)}.events.jsonl`, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    }
    expect(events).toEqual(await golden(file));
  });

  it.each(FIXTURES.map((f) => [name(f), f]))('%s: golden totals and usage-unknown agree with a simple second reader', async (_n, file) => {
    expect(codecTotals(await golden(file))).toEqual(naiveTotals(await readFile(file, 'utf8')));
  });

  it('the simple reader sees real usage and both answers of usage-unknown (the comparison is not vacuous)', async () => {
    const drift = naiveTotals(await readFile(join(REAL_DIR, 'agent-sessions-schema-drift.jsonl'), 'utf8'));
    expect(drift).toEqual({ billedInput: 1000, cacheRead: 800, cacheWrite: 0, output: 50, reasoning: 0, unknown: false });
    const small = naiveTotals(await readFile(join(REAL_DIR, 'agent-sessions-sanitized-small.jsonl'), 'utf8'));
    expect(small).toEqual({ billedInput: 105, cacheRead: 5, cacheWrite: 0, output: 15, reasoning: 0, unknown: true });
    expect(naiveTotals(await readFile(join(REAL_DIR, 'agent-sessions-large.jsonl'), 'utf8')).unknown).toBe(true);
  });

  it('keeps the premium-request cost out of costUsd and counts input uncached', async () => {
    const usage = byKind(await golden(join(REAL_DIR, 'agent-sessions-schema-drift.jsonl'))).usage as UsageEvent[];
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ model: 'gpt-4.1', inputTokens: 200, cacheReadTokens: 800, outputTokens: 50, singleRequest: false, dedupKey: 'copilot:copilot_stage0_drift:e8:gpt-4.1' });
    expect(usage[0]?.costUsd).toBeUndefined();
  });
});

describe('copilot chunking and resume over every fixture', () => {
  it.each(FIXTURES.map((f) => [name(f), f]))('%s: same events in chunks of 1, 2, 3, 7, 64 bytes (all kinds, usage only, the cost scan)', async (_n, file) => {
    const events = await expectChunkInvariant(copilot, file);
    expect(events.length).toBeGreaterThan(0);
    expect(await expectChunkInvariant(copilot, file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
    const scan = await expectChunkInvariant(copilot, file, COST_SCAN);
    expect(byKind(scan).usage).toEqual(byKind(events).usage);
    expect(codecTotals(scan).unknown).toBe(codecTotals(events).unknown);
  });

  it.each(FIXTURES.map((f) => [name(f), f]))('%s: resuming at every line boundary and random mid-line cuts equals a full read', async (_n, file) => {
    const content = await readFile(file);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const fileName = basename(file);
    await expectResumeEqualsFull(copilot, content, cuts, {}, fileName);
    await expectResumeEqualsFull(copilot, content, cuts, { kinds: ['usage'] }, fileName);
    await expectResumeEqualsFull(copilot, content, cuts, COST_SCAN, fileName);
  });
});

/** A read with the native line source on or off (verifyPrefix false lets it take the read). */
async function readWith(native: boolean, file: string, options: ReadOptions): Promise<unknown> {
  const info = newReadInfo();
  const events: SessionfoldEvent[] = [];
  let cursor: unknown;
  const was = process.env.SESSIONFOLD_NATIVE_LINES;
  process.env.SESSIONFOLD_NATIVE_LINES = native ? '1' : '0';
  try {
    for await (const e of copilot.read(file, { ...options, info, resume: { verifyPrefix: false, onCursor: (u) => (cursor = u.cursor) } })) events.push(e);
  } finally {
    if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_LINES;
    else process.env.SESSIONFOLD_NATIVE_LINES = was;
  }
  return { events, info, cursor };
}

(nativeKernel() === undefined ? describe.skip : describe)('copilot through the native line source', () => {
  it('every fixture, every kind of read, buffers of 7 bytes to the default: the same as the JavaScript splitter', async () => {
    const before = nativeLineReads.count;
    let reads = 0;
    for (const file of FIXTURES) {
      for (const options of [{ kinds: ['usage'] }, COST_SCAN, { kinds: ['session'] }] as ReadOptions[]) {
        for (const bufferSize of [7, 300, undefined]) {
          expect(await readWith(true, file, { ...options, bufferSize })).toEqual(await readWith(false, file, { ...options, bufferSize }));
          reads++;
        }
      }
    }
    expect(nativeLineReads.count - before).toBe(reads);
  });
});

const line = (type: string, data: object, id: string, ts = '2026-03-01T10:00:00.000Z') => JSON.stringify({ type, data, id, timestamp: ts, parentId: null });
const START = line('session.start', { sessionId: 's-1', copilotVersion: '1.0.70', startTime: '2026-03-01T10:00:00.000Z', selectedModel: 'gpt-5', context: { cwd: '/w', branch: 'main' } }, 'e0');
const TURN = line('assistant.turn_start', { turnId: '0' }, 'e1');
const REPLY = line('assistant.message', { messageId: 'm1', content: 'hi', toolRequests: [] }, 'e2');
const shutdown = (id: string, usage: object) => line('session.shutdown', { shutdownType: 'routine', modelMetrics: { 'claude-sonnet-4.5': { requests: { count: 3, cost: 3 }, usage } } }, id, '2026-03-01T11:00:00.000Z');
const RESUME = line('session.resume', { resumeTime: '2026-03-02T10:00:00.000Z', context: { cwd: '/w' } }, 'e5');

async function readText(text: string, options?: ReadOptions): Promise<SessionfoldEvent[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-copilot-'));
  try {
    await writeFile(join(dir, 's-1.jsonl'), text);
    return await readEvents(copilot, join(dir, 's-1.jsonl'), options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const unknownOf = (events: readonly SessionfoldEvent[]) => codecTotals(events).unknown;

describe('copilot rules', () => {
  it('one usage event per model per shutdown: runs add up, input is uncached, reasoning is capped', async () => {
    const u1 = { inputTokens: 1000, outputTokens: 40, cacheReadTokens: 700, cacheWriteTokens: 100, reasoningTokens: 90 };
    const u2 = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 50, cacheWriteTokens: 0 };
    const events = await readText([START, TURN, REPLY, shutdown('e3', u1), RESUME, REPLY, shutdown('e6', u2)].join('\n') + '\n');
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.dedupKey])).toEqual([
      [200, 700, 100, 40, 40, 'copilot:s-1:e3:claude-sonnet-4.5'],
      [10, 50, 0, 5, 0, 'copilot:s-1:e6:claude-sonnet-4.5'],
    ]);
    expect(unknownOf(events)).toBe(false);
  });

  it('a run that called the model without a shutdown makes the usage unknown, and a later run cannot bring it back', async () => {
    const u = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(unknownOf(await readText([START, TURN, REPLY].join('\n') + '\n'))).toBe(true);
    expect(unknownOf(await readText([START, TURN, REPLY, shutdown('e3', u)].join('\n') + '\n'))).toBe(false);
    expect(unknownOf(await readText([START, TURN, RESUME, REPLY, shutdown('e6', u)].join('\n') + '\n'))).toBe(true);
    expect(unknownOf(await readText([START, shutdown('e3', u), RESUME].join('\n') + '\n'))).toBe(false);
  });

  it('a resumed read takes the open usage-unknown event back when the shutdown arrives', async () => {
    const content = Buffer.from([START, TURN, REPLY, shutdown('e3', { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 })].join('\n') + '\n');
    for (const options of [{}, COST_SCAN]) {
      const r = await expectResumeEqualsFull(copilot, content, lineBoundaries(content), options);
      expect(r.starts.map((s) => s.replaced.session ?? 0)).toEqual([0, 0, 0, 1, 1, 0]);
      expect(r.kept.session.some((e) => (e as SessionEvent).usageUnknown === true)).toBe(false);
    }
  });

  it('a usage-only read asks for no session events back', async () => {
    const content = Buffer.from([START, TURN, REPLY].join('\n') + '\n');
    const r = await expectResumeEqualsFull(copilot, content, lineBoundaries(content), { kinds: ['usage'] });
    expect(r.starts.every((s) => (s.replaced.session ?? 0) === 0)).toBe(true);
  });

  it('a damaged reply line still says the model was called, in every kind of read', async () => {
    const text = [START, '{"type":"assistant.message","data":{"content":"cut sh'].join('\n') + '\n';
    for (const options of [{}, COST_SCAN, { kinds: ['session'] }] as ReadOptions[]) expect(unknownOf(await readText(text, options))).toBe(true);
  });

  it('never counts damage: negative, fractional and absurd counts are 0, a malformed line is skipped and counted', async () => {
    const bad = shutdown('e3', { inputTokens: -5, outputTokens: 2.5, cacheReadTokens: 1e20, cacheWriteTokens: Number.MAX_SAFE_INTEGER, reasoningTokens: 'x' });
    const info = newReadInfo();
    const events = await readText([START, '{"type":"user.message",', bad].join('\n') + '\n', { info });
    const u = byKind(events).usage[0] as UsageEvent;
    expect([u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.reasoningTokens]).toEqual([0, 0, 0, 0, 0]);
    expect(info.skippedLines).toBe(1);
  });

  it('messages, thinking, tool calls and results with their duration, compaction, model changes', async () => {
    const text = [
      START,
      line('session.model_change', { previousModel: 'gpt-5', newModel: 'claude-sonnet-4.5' }, 'e1'),
      line('user.message', { content: 'list files' }, 'e2'),
      line('assistant.message', { messageId: 'm1', content: '', reasoningText: 'think', toolRequests: [{ toolCallId: 'c1', name: 'bash', arguments: '{"command":"ls"}' }] }, 'e3'),
      line('tool.execution_start', { toolCallId: 'c1', toolName: 'bash', arguments: { command: 'ls' } }, 'e4', '2026-03-01T10:00:01.000Z'),
      line('tool.execution_complete', { toolCallId: 'c1', success: false, result: { content: 'boom' } }, 'e5', '2026-03-01T10:00:03.500Z'),
      line('session.compaction_complete', { success: true, summaryContent: 'summary' }, 'e6'),
    ].join('\n');
    const k = byKind(await readText(text + '\n'));
    expect(k.session.map((e) => (e as SessionEvent).model)).toEqual(['gpt-5', 'claude-sonnet-4.5', undefined]);
    expect(k.session[0]).toMatchObject({ nativeId: 's-1', cwd: '/w', gitBranch: 'main', version: '1.0.70', startedAt: '2026-03-01T10:00:00.000Z' });
    expect(k.message.map((e) => [(e as any).role, (e as any).text, (e as any).thinking, (e as any).model, (e as any).subtype])).toEqual([
      ['user', 'list files', undefined, undefined, undefined],
      ['assistant', '', 'think', 'claude-sonnet-4.5', undefined],
      ['system', 'summary', undefined, undefined, 'compaction'],
    ]);
    expect(k.tool_call).toMatchObject([{ callId: 'c1', name: 'bash', input: { command: 'ls' }, messageId: 'm1' }]);
    expect(k.tool_result).toMatchObject([{ callId: 'c1', toolName: 'bash', output: 'boom', isError: true, durationMs: 2500 }]);
  });
});

/** One random session event line: runs, model activity, shutdowns (some without usage), noise, damage. */
const eventArb = fc.oneof(
  fc.constant(RESUME),
  fc.constant(TURN),
  fc.constant(REPLY),
  fc.constant(line('session.info', { message: 'assistant.message in the text' }, 'i')),
  fc.constant('{"type":"user.message",'),
  // Input gross, as the CLI writes it (the rule for a smaller input is tested inline above).
  fc.record({ id: fc.constantFrom('x1', 'x2', 'x3'), uncached: fc.nat(5000), read: fc.nat(3000), write: fc.nat(500), out: fc.nat(900), model: fc.constantFrom('gpt-5', 'claude-sonnet-4.5') }).map((r) =>
    line('session.shutdown', { modelMetrics: { [r.model]: { requests: { count: 1, cost: 1 }, usage: { inputTokens: r.uncached + r.read + r.write, outputTokens: r.out, cacheReadTokens: r.read, cacheWriteTokens: r.write } } } }, r.id),
  ),
);

describe('copilot over random sessions', () => {
  it('every kind of read agrees with the simple reader on tokens and usage-unknown, and resumes at random cuts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { maxLength: 14 }), fc.array(fc.nat(4000), { maxLength: 4 }), async (events, cutSeeds) => {
        const text = [START, ...events].join('\n') + '\n';
        const want = naiveTotals(text);
        for (const options of [{}, COST_SCAN, { kinds: ['usage'] }] as ReadOptions[]) {
          const got = codecTotals(await readText(text, options));
          if (options.kinds?.length === 1) got.unknown = want.unknown; // a usage-only read has no session events
          expect(got).toEqual(want);
        }
        const content = Buffer.from(text);
        const cuts = cutSeeds.map((c) => c % (content.length + 1)).sort((a, b) => a - b);
        await expectResumeEqualsFull(copilot, content, cuts, COST_SCAN);
      }),
      { numRuns: 40, seed: 18 },
    );
  });
});

describe('copilot workspace.yaml titles', () => {
  it('reads the title from name (newer builds), else summary, in its YAML scalar forms', () => {
    expect(parseWorkspace('id: x\nsummary: Fix the build\nsummary_count: 0\n')).toEqual({ title: 'Fix the build' });
    expect(parseWorkspace('summary: Old\nname: "New \\"one\\""\nuser_named: true\n')).toEqual({ title: 'New "one"' });
    expect(parseWorkspace("name: 'it''s here' \n")).toEqual({ title: "it's here" });
    expect(parseWorkspace('summary: |\n  line one\n  line two\ncwd: /w\n')).toEqual({ title: 'line one\nline two' });
    expect(parseWorkspace('summary: plain # a comment\n')).toEqual({ title: 'plain' });
    expect(parseWorkspace('summary: [a, b]\nnested:\n  name: no\n')).toEqual({});
  });

  it('a folder session takes its title from workspace.yaml in reads with titles, and its lineCoreFor too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-copilot-ws-'));
    try {
      const file = join(dir, 's-1', 'events.jsonl');
      await mkdir(join(dir, 's-1'));
      await writeFile(file, [START, RESUME].join('\n') + '\n');
      await writeFile(join(dir, 's-1', 'workspace.yaml'), 'id: s-1\nname: Tidy the parser\nuser_named: true\n');
      const titles = (o?: ReadOptions) => readEvents(copilot, file, o).then((es) => byKind(es).session.map((e) => (e as SessionEvent).title));
      expect(await titles()).toEqual(['Tidy the parser', 'Tidy the parser']);
      expect(await titles({ titles: false, kinds: ['session', 'usage'] })).toEqual([undefined, undefined]);
      const core = copilot.lineCoreFor!(file)!;
      expect(parseSync(core, await readFile(file), { file }).map((e) => (e as SessionEvent).title)).toEqual(['Tidy the parser', 'Tidy the parser']);
      expect(copilot.getParseDependencies(file)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('copilot discovery and roots', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('finds folder sessions and flat ones, a folder winning over a flat file of the same id; locate finds each', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sf-copilot-home-'));
    dirs.push(home);
    const state = join(home, 'session-state');
    await mkdir(join(state, 'aaa', 'checkpoints'), { recursive: true });
    await mkdir(join(state, 'bbb'), { recursive: true });
    await writeFile(join(state, 'aaa', 'events.jsonl'), START + '\n');
    await writeFile(join(state, 'aaa', 'workspace.yaml'), 'id: aaa\n');
    await writeFile(join(state, 'aaa.jsonl'), START + '\n');
    await writeFile(join(state, 'ccc.jsonl'), START + '\n');
    await writeFile(join(state, 'notes.txt'), 'x');
    const found = [];
    for await (const f of copilot.discover([home])) found.push([f.sessionId, f.path.slice(home.length), f.size]);
    expect(found).toEqual([
      ['aaa', '/session-state/aaa/events.jsonl', START.length + 1],
      ['ccc', '/session-state/ccc.jsonl', START.length + 1],
    ]);
    expect([...copilot.discoverSync!([state])].map((f) => f.sessionId)).toEqual(['aaa', 'ccc']);
    expect((await copilot.locate!([home], 'aaa'))?.path).toBe(join(state, 'aaa', 'events.jsonl'));
    expect((await copilot.locate!([home], 'ccc'))?.path).toBe(join(state, 'ccc.jsonl'));
    expect(await copilot.locate!([home], '../x')).toBeUndefined();
    expect(sessionIdOfPath(join(state, 'aaa', 'events.jsonl'))).toBe('aaa');
  });

  it('honours COPILOT_HOME (comma-separated), else ~/.copilot and $XDG_CONFIG_HOME/.copilot', () => {
    expect(getCopilotRoots({ COPILOT_HOME: '/a, /b', HOME: '/h' })).toEqual(['/a', '/b']);
    expect(getCopilotRoots({ HOME: '/h' })).toEqual(['/h/.copilot']);
    expect(getCopilotRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x' })).toEqual(['/h/.copilot', '/x/.copilot']);
    expect(getCopilotRoots({ HOME: '/h', XDG_CONFIG_HOME: '/h' })).toEqual(['/h/.copilot']);
  });
});
