/**
 * Mux (`~/.mux/sessions/<workspace>/session-usage.json`) over the fixtures in fixtures/mux, shaped on Mux's
 * `SessionUsageFile` (codecs/mux/README.md cites it): golden events, token totals checked by a deliberately
 * simple second reader, an all-zero ledger giving no usage, an absurd count skipped and counted, the roots,
 * and the CLI's cost report over a temporary HOME (the tree unchanged), also after a ledger grows under a warm
 * cache (its running totals replace the cached ones, never add to them).
 */
import { cp, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverMuxFiles, getMuxRoots, mux } from '../codecs/mux/index.js';
import type { MessageEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { inTempDir, treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/mux/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/mux/', import.meta.url).pathname;
const FILES = [...discoverMuxFiles([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));

/** The simple second reader: per model, input and caches as stored, output plus reasoning. */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  for (const u of Object.values(JSON.parse(text).byModel) as Record<string, { tokens: number }>[]) {
    const t = (k: string) => u[k]?.tokens ?? 0;
    if (['input', 'cached', 'cacheCreate', 'output', 'reasoning'].every((k) => t(k) === 0)) continue;
    sum.input += t('input') + t('cached') + t('cacheCreate');
    sum.cached += t('cached');
    sum.output += t('output') + t('reasoning');
    sum.reasoning += t('reasoning');
    sum.responses++;
  }
  return sum;
}

describe('mux golden files', () => {
  it('discovers each workspace folder holding a ledger', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual(['a1b2c3d4e5', 'f6e7d8c9b0']);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a read equals the checked-in events, with totals of the simple reader', async (id, path) => {
    const events = await readEvents(mux, path);
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(path, 'utf8')));
  });

  it('one usage per model: buckets apart, reasoning added to output, bucket costs summed', async () => {
    const usage = byKind(await readEvents(mux, FILES[0]!.path)).usage as UsageEvent[];
    expect(usage.map((u) => [u.provider, u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.singleRequest])).toEqual([
      ['anthropic', 'claude-sonnet-4-5', 1200, 48000, 6000, 2400, 300, false],
      ['openai', 'gpt-5.1', 5000, 20000, 0, 1200, 400, false],
    ]);
    expect(usage[0]!.costUsd).toBeCloseTo(0.0765, 12);
    expect(usage[0]).toMatchObject({ dedupKey: 'mux:a1b2c3d4e5:anthropic:claude-sonnet-4-5', timestamp: '2026-03-02T09:16:38.770Z' });
    expect(byKind(await readEvents(mux, FILES[1]!.path)).usage).toEqual([]);
  });

  it('a model entry with an absurd count is skipped and counted, the others kept', async () => {
    await inTempDir('sf-mux-', async (dir) => {
      const path = join(dir, 'session-usage.json');
      await writeFile(path, JSON.stringify({ byModel: { 'a:x': { input: { tokens: -5 } }, 'b:y': { output: { tokens: 7 } } }, version: 1 }));
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const usage = byKind(await readEvents(mux, path, { info })).usage as UsageEvent[];
      expect(usage.map((u) => [u.model, u.outputTokens])).toEqual([['y', 7]]);
      expect(info.skippedLines).toBe(1);
    });
  });

  it('an entry (or a whole byModel) that is not an object is skipped and counted, not dropped in silence', async () => {
    await inTempDir('sf-mux-', async (dir) => {
      const path = join(dir, 'session-usage.json');
      const read = async (doc: unknown) => {
        await writeFile(path, JSON.stringify(doc));
        const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
        const usage = byKind(await readEvents(mux, path, { info })).usage as UsageEvent[];
        return [usage.map((u) => u.model), info.skippedLines];
      };
      expect(await read({ byModel: { 'a:x': 42, 'b:y': { output: { tokens: 7 } } }, version: 1 })).toEqual([['y'], 1]);
      expect(await read({ byModel: [{ output: { tokens: 7 } }], version: 1 })).toEqual([[], 1]);
      expect(await read({ version: 1 })).toEqual([[], 0]);
    });
  });

  it('a ledger without a lastRequest time is dated at its last rewrite (the file\u2019s mtime), not left undated', async () => {
    await inTempDir('sf-mux-', async (dir) => {
      const path = join(dir, 'session-usage.json');
      await writeFile(path, JSON.stringify({ byModel: { 'b:y': { output: { tokens: 7 } } }, version: 1 }));
      const when = new Date('2026-04-05T06:07:08.000Z');
      await utimes(path, when, when);
      const usage = byKind(await readEvents(mux, path)).usage as UsageEvent[];
      expect(usage.map((u) => u.timestamp)).toEqual([when.toISOString()]);
    });
  });

  describe('the chat beside the ledger', () => {
    const path = () => FILES[0]!.path;
    it('is read as messages and tool events: archive first, a copy once, system rows and torn lines left out', async () => {
      const skips: unknown[] = [];
      const events = await readEvents(mux, path(), { onSkip: (e: unknown) => skips.push(e) });
      const k = byKind(events);
      expect((k.message as MessageEvent[]).map((m) => [m.role, m.nativeId, m.subtype ?? null])).toEqual([
        ['user', 'msg-u1', null],
        ['assistant', 'msg-a1', null],
        ['assistant', 'msg-s1', 'compaction'],
        ['user', 'msg-u2', null],
        ['user', 'msg-c1', 'synthetic'],
      ]);
      expect((k.tool_call as ToolCallEvent[]).map((t) => [t.callId, t.name])).toEqual([
        ['call-1', 'file_read'],
        ['call-3', 'web_fetch'],
        ['call-2', 'bash'],
      ]);
      // a call that never ran (Mux's `input-available`) has no result; a redacted one keeps no output
      expect((k.tool_result as ToolResultEvent[]).map((t) => [t.callId, t.isError, t.output === null])).toEqual([
        ['call-1', false, false],
        ['call-3', true, true],
      ]);
      expect(skips).toHaveLength(1);
      await expect(readEvents(mux, path(), { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });

    it('a usage read leaves it unread: the same usage, no skip, with the chat or without it', async () => {
      const skips: unknown[] = [];
      const usage = await readEvents(mux, path(), { kinds: ['usage'], onSkip: (e: unknown) => skips.push(e) });
      expect(skips).toEqual([]);
      expect(usage).toEqual(byKind(await readEvents(mux, path())).usage);
      expect(mux.getParseDependencies(path()).map((p) => p.slice(p.lastIndexOf('/') + 1))).toEqual(['chat-archive.jsonl', 'chat.jsonl']);
    });

    it('sessions show reads the workspace\u2019s conversation: its first prompt is the title', async () => {
      await inTempDir('sf-mux-chat-', async (home) => {
        await cp(ROOT, join(home, '.xum', 'sessions'), { recursive: true });
        const s = await createSessionManager({ env: { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC' }, cache: false }).get('mux', 'a1b2c3d4e5');
        expect(s.title).toBe('Add a retry to the upload client.');
        expect(s.messages.filter((m) => m.role !== 'tool' && m.subtype === undefined).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      });
    });
  });

  it('is $XUM_ROOT/sessions, else $MUX_ROOT/sessions, else the sessions of ~/.xum, ~/.mux and ~/.cmux', () => {
    expect(getMuxRoots({ HOME: '/h' })).toEqual(['/h/.xum/sessions', '/h/.mux/sessions', '/h/.cmux/sessions']);
    expect(getMuxRoots({ HOME: '/h', MUX_ROOT: '~/m' })).toEqual(['/h/m/sessions']);
    expect(getMuxRoots({ HOME: '/h', XUM_ROOT: '/x', MUX_ROOT: '/m' })).toEqual(['/x/sessions']);
  });

  it('reads the workspaces of every home once, the home Xum prefers first', async () => {
    await inTempDir('sf-mux-homes-', async (home) => {
      const ledger = (tokens: number) => JSON.stringify({ version: 1, byModel: { 'anthropic:claude-sonnet-4-5': { output: { tokens } } } });
      const put = async (dir: string, workspace: string, tokens: number) => {
        await mkdir(join(home, dir, 'sessions', workspace), { recursive: true });
        await writeFile(join(home, dir, 'sessions', workspace, 'session-usage.json'), ledger(tokens));
      };
      await put('.xum', 'moved', 10);
      await put('.xum', 'both', 20);
      await put('.mux', 'both', 99); // the copy Xum does not read while ~/.xum holds it
      await put('.mux', 'old', 30);
      await put('.cmux', 'older', 40);
      await mkdir(join(home, '.cmux', 'sessions', 'no-ledger'), { recursive: true });
      const files = [...discoverMuxFiles(getMuxRoots({ HOME: home }))];
      expect(files.map((f) => `${f.sessionId} ${f.root.slice(home.length)}`).sort()).toEqual(['both /.xum/sessions', 'moved /.xum/sessions', 'old /.mux/sessions', 'older /.cmux/sessions']);
      const out: number[] = [];
      for (const f of files) for (const u of byKind(await readEvents(mux, f.path)).usage as UsageEvent[]) out.push(u.outputTokens);
      expect(out.sort((a, b) => a - b)).toEqual([10, 20, 30, 40]);
      // a Mux home that Xum's move left as a link to ~/.xum gives nothing twice
      await rm(join(home, '.mux'), { recursive: true });
      await symlink(join(home, '.xum'), join(home, '.mux'));
      expect([...discoverMuxFiles(getMuxRoots({ HOME: home }))].map((f) => f.sessionId).sort()).toEqual(['both', 'moved', 'older']);
    });
  });
});

describe('sessionfold CLI over a Mux tree', () => {
  let home: string;
  let before: string[];
  const trees = (): Promise<string[]> => treeListing(join(home, '.mux'));
  const cli = agentCli(() => home, trees, () => before);

  beforeAll(async () => {
    await buildIfStale(['mux']);
    home = await mkdtemp(join(tmpdir(), 'sf-mux-cli-'));
    await cp(ROOT, join(home, '.mux', 'sessions'), { recursive: true });
    before = await trees();
  }, 300_000);

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('cost report --json --agent mux has the golden tokens and Mux\u2019s recorded cost', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'mux'])) as AgentRow & { totalUsd: number };
    expectGoldenRow(report, 'mux', await goldenUsage(FILES.map((f) => join(EXPECTED_DIR, `${f.sessionId}.events.jsonl`))));
    expect(report).toMatchObject({ inputTokens: 6200, cacheReadTokens: 68000, cacheWriteTokens: 6000, outputTokens: 3600 });
    expect(report.totalUsd).toBeCloseTo(0.0765 + 0.02075, 9);
  });

  it('a ledger rewritten with grown totals replaces the cached one: each model counted once, at its final total', async () => {
    const path = join(home, '.mux', 'sessions', 'a1b2c3d4e5', 'session-usage.json');
    const doc = JSON.parse(await readFile(path, 'utf8'));
    for (const usage of Object.values(doc.byModel) as Record<string, { tokens: number; cost_usd: number }>[]) for (const b of Object.values(usage)) [b.tokens, b.cost_usd] = [b.tokens * 2, b.cost_usd * 2];
    doc.lastRequest.timestamp += 86_400_000;
    await writeFile(path, JSON.stringify(doc, null, 2));
    before = await trees();
    const warm = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'mux'])) as AgentRow & { totalUsd: number; breakdowns: Record<string, unknown> };
    expect(warm).toMatchObject({ inputTokens: 12400, cacheReadTokens: 136000, cacheWriteTokens: 12000, outputTokens: 7200, requestCount: 2 });
    expect(warm.totalUsd).toBeCloseTo(2 * (0.0765 + 0.02075), 9);
    expect(Object.keys(warm.breakdowns)).toEqual(['2026-03-03']);
    expect(JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'mux', '--no-cache']))).toEqual(warm);
  });
});
