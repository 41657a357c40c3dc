/**
 * The WorkBuddy codec (CodeBuddy's engine under WorkBuddy's roots and name) over fixtures/workbuddy: golden
 * events, token totals checked by a deliberately simple second reader, chunk invariance and resume, bad lines
 * skipped and counted, the roots and their variables, discovery of both editions' folders, a transcript both
 * codecs can reach counted once, and the built CLI under an isolated HOME (sessions list and show, cost report
 * equal to the fixture's totals) with WorkBuddy's folders unchanged byte for byte. Regenerate the golden files
 * with `UPDATE_GOLDEN=1 npx vitest run test/workbuddy.test.ts`.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkBuddyRoots, workbuddy } from '../codecs/workbuddy/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage } from './helpers/agent-cli.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { inTempDir, treeDigests } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { naiveCodeBuddyTotals } from './helpers/codebuddy-naive.js';
import { codecUsageTotals } from './helpers/usage-totals.js';

const PROJECTS = fileURLToPath(new URL('../fixtures/workbuddy/projects/', import.meta.url));
const DIR = join(PROJECTS, 'Users-alice-sales-report') + '/';
const EXPECTED_DIR = fileURLToPath(new URL('../fixtures/expected/workbuddy/', import.meta.url));
const MAIN = '7d1e4b2a-3c5f-4a6e-9b8d-0f1a2c3e4d5b';
const SUB = 'agent-3f9a21c0';
const FIXTURES = [`${MAIN}.jsonl`, `${MAIN}/subagents/${SUB}.jsonl`];
const golden = (name: string) => join(EXPECTED_DIR, `${basename(name)}.events.jsonl`);

describe('workbuddy golden files', () => {
  it.each(FIXTURES)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (name) => {
    const events = await readEvents(workbuddy, `${DIR}${name}`);
    await expectGolden(EXPECTED_DIR, basename(name), events);
    expect(events[0]?.type).toBe('session');
    expect(events.every((e) => e.agent === 'workbuddy')).toBe(true);
    expect(codecUsageTotals(events)).toEqual(naiveCodeBuddyTotals(await readFile(`${DIR}${name}`, 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    expect(naiveCodeBuddyTotals(await readFile(`${DIR}${FIXTURES[0]}`, 'utf8'))).toEqual({ input: 140732 + 44143 + 113415, cached: 76032 + 34112 + 112224, output: 635 + 2991 + 990, reasoning: 1746, responses: 3 });
    expect(naiveCodeBuddyTotals(await readFile(`${DIR}${FIXTURES[1]}`, 'utf8'))).toEqual({ input: 12000, cached: 8000, output: 300, reasoning: 120, responses: 1 });
  });

  it('reads the conversation, and counts each response once with the cache out of the input', async () => {
    const k = byKind(await readEvents(workbuddy, `${DIR}${FIXTURES[0]}`));
    expect(k.message.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'user', 'assistant']);
    expect(k.tool_call.map((c) => (c as { name: string }).name)).toEqual(['LS']);
    expect(k.tool_result.map((r) => (r as { isError: boolean }).isError)).toEqual([false]);
    expect(k.session.at(-1)).toMatchObject({ sessionId: MAIN, cwd: '/Users/alice/sales-report', title: '销售周报' });
    // the `incomplete` stream of msg-w2 is not counted; its completed record is
    expect((k.usage as UsageEvent[]).map((u) => [u.messageId, u.model, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens])).toEqual([
      ['msg-w1', 'glm-5.2', 64700, 76032, 635, 0],
      ['msg-w2', 'hy3', 10031, 34112, 2991, 1746],
      ['msg-w3', 'hy3', 1191, 112224, 990, 0],
    ]);
    // the keys are the CLI's responses', whichever codec reads the file
    expect((k.usage as UsageEvent[]).map((u) => u.dedupKey)).toEqual([`codebuddy:${MAIN}:msg-w1`, `codebuddy:${MAIN}:msg-w2`, `codebuddy:${MAIN}:msg-w3`]);
  });
});

describeChunkingAndResume(workbuddy, DIR, FIXTURES);

describe('workbuddy bad input', () => {
  it('skips and counts a malformed line and a line that is not an object; the others still count', async () => {
    await inTempDir('sf-workbuddy-', async (dir) => {
      const file = join(dir, 's.jsonl');
      const call = (id: string, n: number) => JSON.stringify({ id, type: 'function_call', sessionId: 's', cwd: '/w', timestamp: 1780000000000, providerData: { model: 'hy3', messageId: id, rawUsage: { prompt_tokens: n, completion_tokens: 1 } } });
      await writeFile(file, [call('a', 100), '{"type": broken', '"text"', call('b', 1e300), call('c', 50)].join('\n') + '\n');
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const usage = byKind(await readEvents(workbuddy, file, { info })).usage as UsageEvent[];
      expect(info.skippedLines).toBe(2);
      // an insane count reaches no total: `b` keeps only its output
      expect(usage.map((u) => [u.messageId, u.inputTokens, u.outputTokens])).toEqual([
        ['a', 100, 1],
        ['b', 0, 1],
        ['c', 50, 1],
      ]);
    });
  });
});

describe('workbuddy roots', () => {
  it('reads both editions\u2019 folders, else $WORKBUDDY_CONFIG_DIR/projects, else $SESSIONFOLD_WORKBUDDY_DIR; never CodeBuddy\u2019s variable', () => {
    expect(getWorkBuddyRoots({ HOME: '/h' })).toEqual(['/h/.workbuddy/projects', '/h/.workbuddy-ai/projects']);
    expect(getWorkBuddyRoots({ HOME: '/h', WORKBUDDY_CONFIG_DIR: ' /wb ' })).toEqual(['/wb/projects']);
    expect(getWorkBuddyRoots({ HOME: '/h', WORKBUDDY_CONFIG_DIR: '  ' })).toEqual(['/h/.workbuddy/projects', '/h/.workbuddy-ai/projects']);
    expect(getWorkBuddyRoots({ HOME: '/h', WORKBUDDY_CONFIG_DIR: '/wb', SESSIONFOLD_WORKBUDDY_DIR: '/a,/b' })).toEqual(['/a', '/b']);
    expect(getWorkBuddyRoots({ HOME: '/h', CODEBUDDY_CONFIG_DIR: '/cb' })).toEqual(['/h/.workbuddy/projects', '/h/.workbuddy-ai/projects']);
    expect(workbuddy.rootVariables).toEqual(['WORKBUDDY_CONFIG_DIR', 'SESSIONFOLD_WORKBUDDY_DIR']);
  });

  it('lists every transcript of both editions, sub-agents\u2019 included, as workbuddy\u2019s', async () => {
    await inTempDir('sf-workbuddy-', async (home) => {
      await cp(PROJECTS, join(home, '.workbuddy', 'projects'), { recursive: true });
      await mkdir(join(home, '.workbuddy-ai', 'projects', 'p'), { recursive: true });
      await writeFile(join(home, '.workbuddy-ai', 'projects', 'p', 'intl.jsonl'), '');
      await writeFile(join(home, '.workbuddy-ai', 'projects', 'stray.jsonl'), '');
      const found = [...workbuddy.discoverSync!(getWorkBuddyRoots({ HOME: home }))];
      expect(found.map((f) => f.path.slice(home.length + 1)).sort()).toEqual([
        `.workbuddy-ai/projects/p/intl.jsonl`,
        `.workbuddy/projects/Users-alice-sales-report/${MAIN}.jsonl`,
        `.workbuddy/projects/Users-alice-sales-report/${MAIN}/subagents/${SUB}.jsonl`,
      ]);
      expect(found.every((f) => f.agent === 'workbuddy')).toBe(true);
      expect(found.map((f) => f.sessionId).sort()).toEqual([MAIN, SUB, 'intl'].sort());
    });
  });
});

describe('workbuddy and codebuddy over one folder', () => {
  it('counts a transcript both codecs reach once (CODEBUDDY_CONFIG_DIR pointed at WorkBuddy\u2019s folder, as the app does)', async () => {
    await inTempDir('sf-workbuddy-', async (home) => {
      await cp(PROJECTS, join(home, '.workbuddy', 'projects'), { recursive: true });
      const report = async (env: Record<string, string>) => {
        const out = sink();
        expect(await runCli(['cost', 'report', '--json', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: home, ...env } })).toBe(0);
        const r = JSON.parse(out.text()) as { totalUsd: number; requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number };
        return { totalUsd: r.totalUsd, requestCount: r.requestCount, inputTokens: r.inputTokens, outputTokens: r.outputTokens, cacheReadTokens: r.cacheReadTokens };
      };
      const alone = await report({});
      const both = await report({ CODEBUDDY_CONFIG_DIR: join(home, '.workbuddy') });
      expect(alone).toMatchObject({ requestCount: 4, inputTokens: 64700 + 10031 + 1191 + 4000, outputTokens: 635 + 2991 + 990 + 300 });
      expect(both).toEqual(alone);
    });
  });
});

describe('sessionfold CLI over a WorkBuddy tree', () => {
  let home: string;
  let before: string[];
  // paths, sizes, mtimes and every file's SHA-256: WorkBuddy's folders unchanged byte for byte
  const tree = (): Promise<string[]> => treeDigests([join(home, '.workbuddy'), join(home, '.workbuddy-ai')]);

  beforeAll(async () => {
    await buildIfStale(['workbuddy', 'codebuddy']);
    home = await mkdtemp(join(tmpdir(), 'sf-workbuddy-cli-'));
    await cp(PROJECTS, join(home, '.workbuddy', 'projects'), { recursive: true });
    // the international edition's folder, with a copy of the main session: its responses count once
    await mkdir(join(home, '.workbuddy-ai', 'projects', 'Users-alice-sales-report'), { recursive: true });
    await cp(`${DIR}${MAIN}.jsonl`, join(home, '.workbuddy-ai', 'projects', 'Users-alice-sales-report', `${MAIN}.jsonl`));
    before = await tree();
  }, 300_000);

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const cli = agentCli(() => home, tree, () => before);

  it('sessions list workbuddy lists every transcript with its title and cwd', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'workbuddy', '--json'])) as { sessionId: string; agent: string; title?: string; cwd?: string }[];
    // the copy under the other edition's folder is the same session
    expect(rows.map((r) => r.sessionId).sort()).toEqual([MAIN, SUB]);
    expect(rows.every((r) => r.agent === 'workbuddy' && r.cwd === '/Users/alice/sales-report')).toBe(true);
    expect(rows.find((r) => r.sessionId === MAIN)?.title).toBe('销售周报');
  });

  it('sessions show workbuddy <id> has the conversation', async () => {
    const shown = JSON.parse(await cli(['sessions', 'show', 'workbuddy', SUB, '--format', 'json'])) as { messages?: { role: string }[] };
    expect(JSON.stringify(shown)).toContain('读取 sales-w49.xlsx 并汇总');
    expect(JSON.stringify(shown)).toContain('华东 52 万');
  });

  it('cost report --json --agent workbuddy equals the fixture\u2019s totals, cold and from the warm cache', async () => {
    const usage = await goldenUsage(FIXTURES.map(golden));
    expect(usage.length).toBe(4);
    const grouped = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'workbuddy', '--group-by', 'agent'])) as { breakdowns: Record<string, Parameters<typeof expectGoldenRow>[0]> };
    expectGoldenRow(grouped.breakdowns.workbuddy, 'workbuddy', usage);
    const total = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'workbuddy'])) as { inputTokens: number; cacheReadTokens: number; outputTokens: number; requestCount: number; totalCost?: number };
    expect(total).toMatchObject({ inputTokens: 64700 + 10031 + 1191 + 4000, cacheReadTokens: 76032 + 34112 + 112224 + 8000, outputTokens: 635 + 2991 + 990 + 300, requestCount: 4 });
    expect(JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'workbuddy'])), 'a second report from the warm cache').toEqual(total);
  });
});
