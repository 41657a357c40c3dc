/**
 * Every Qwen Code fixture in ../shared/fixtures/real/qwen: golden events, token totals checked by a
 * deliberately simple second reader, glued records split at their own offsets, chunk invariance, resume at
 * every line boundary and random cuts, and the roots' env overrides. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/qwen.test.ts` (the totals check then still holds them to the simple reader).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getQwenRoots, qwen } from '../codecs/qwen/index.js';
import { splitGluedJson } from '../cursors/glued-json.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { expectGolden } from './helpers/golden.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const REAL_DIR = new URL('../../shared/fixtures/real/qwen/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/qwen/', import.meta.url).pathname;
const FIXTURES = (await readdir(REAL_DIR)).filter((n) => n.endsWith('.jsonl')).sort();
const GLUED = 'agent-sessions-glued-objects-019f0000-0000-7000-8000-000000000005.jsonl';

/**
 * The simple second reader: cut every line at each `}{` outside nothing clever (the fixtures hold no such
 * pair inside strings), JSON.parse each piece, and sum the `usageMetadata` of assistant records once per
 * uuid: billed input = promptTokenCount + toolUsePromptTokenCount, output = candidates, plus the thoughts when
 * the total counts them apart.
 */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    for (const piece of line.split('}{').map((p, i, all) => (i > 0 ? '{' : '') + p + (i < all.length - 1 ? '}' : ''))) {
      let r: any;
      try {
        r = JSON.parse(piece);
      } catch {
        continue;
      }
      const u = r?.usageMetadata;
      if (r?.type !== 'assistant' || typeof u !== 'object' || u === null || seen.has(r.uuid)) continue;
      const input = (u.promptTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0);
      // the thoughts are inside the candidates when the total has no room for them (OpenAI-compatible providers)
      const inside = u.totalTokenCount === (u.promptTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0) + (u.candidatesTokenCount ?? 0);
      const output = (u.candidatesTokenCount ?? 0) + (inside ? 0 : (u.thoughtsTokenCount ?? 0));
      if (input + output === 0) continue;
      seen.add(r.uuid);
      sum.input += input;
      sum.cached += u.cachedContentTokenCount ?? 0;
      sum.output += output;
      sum.reasoning += u.thoughtsTokenCount ?? 0;
      sum.responses++;
    }
  }
  return sum;
}

describe('qwen golden files (real fixtures)', () => {
  it('has every fixture of the shared folder', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(FIXTURES)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (name) => {
    const events = await readEvents(qwen, `${REAL_DIR}${name}`);
    await expectGolden(EXPECTED_DIR, name, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(`${REAL_DIR}${name}`, 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    const t = naiveTotals(await readFile(`${REAL_DIR}splitrail-qwen-code-v0.18.1.jsonl`, 'utf8'));
    expect(t).toEqual({ input: 1100, cached: 50, output: 25, reasoning: 0, responses: 2 });
  });

  it('splits glued records and gives each its own byte offset', async () => {
    const content = await readFile(`${REAL_DIR}${GLUED}`);
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(qwen, `${REAL_DIR}${GLUED}`, { info });
    expect(info.skippedLines).toBe(0);
    const messages = byKind(events).message;
    expect(messages.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant']);
    const second = content.indexOf('}{"uuid"') + 1;
    expect(second).toBeGreaterThan(0);
    expect(messages[1]!.offset).toBe(second);
    expect(messages[0]!.offset).toBe(0);
    expect(JSON.parse(content.subarray(second, content.indexOf('\n')).toString()).type).toBe('assistant');
  });

  it('the splitter keeps braces inside strings and hands back garbage whole', () => {
    const line = Buffer.from('{"a":"}{\\"x"} {"b":[1,{"c":2}]}  nope');
    const pieces = splitGluedJson(line).map((p) => line.subarray(p.start, p.end).toString());
    expect(pieces).toEqual(['{"a":"}{\\"x"}', '{"b":[1,{"c":2}]}', 'nope']);
  });
});

describeChunkingAndResume(qwen, REAL_DIR, FIXTURES);

describe('qwen roots', () => {
  it("follows Qwen Code's own order: QWEN_RUNTIME_DIR, QWEN_HOME, ~/.qwen", () => {
    expect(getQwenRoots({ HOME: '/h' })).toEqual(['/h/.qwen/projects']);
    expect(getQwenRoots({ HOME: '/h', QWEN_HOME: '/q' })).toEqual(['/q/projects']);
    expect(getQwenRoots({ HOME: '/h', QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '~/rt' })).toEqual(['/h/rt/projects']);
  });
});

/** An assistant record of session `sessionId` with `usageMetadata`, and any other fields. */
const record = (uuid: string, usageMetadata: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ uuid, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z', type: 'assistant', model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: 'hi' }] }, usageMetadata, ...extra });

/** `fn` given a temp folder, removed after. */
async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-qwen-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The usage events of a session file holding `lines`. */
const usageOfLines = (lines: string[], info?: Parameters<typeof readEvents>[2]) =>
  inTempDir(async (dir) => {
    const file = join(dir, 's.jsonl');
    await writeFile(file, lines.join('\n') + '\n');
    return (await readEvents(qwen, file, info)).filter((e): e is UsageEvent => e.type === 'usage');
  });

describe('qwen thoughts', () => {
  it('counts reasoning once: inside the candidates when the total says so (OpenAI-compatible), beside them otherwise (Gemini)', async () => {
    const usage = await usageOfLines([
      record('openai', { promptTokenCount: 1000, candidatesTokenCount: 300, thoughtsTokenCount: 200, totalTokenCount: 1300, cachedContentTokenCount: 400 }),
      record('gemini', { promptTokenCount: 1000, candidatesTokenCount: 300, thoughtsTokenCount: 200, totalTokenCount: 1500 }),
      record('no-total', { promptTokenCount: 10, candidatesTokenCount: 3, thoughtsTokenCount: 2 }),
      // the converter writes `total_tokens || 0` and may estimate the thoughts from the reasoning text
      record('zero-total', { promptTokenCount: 10, candidatesTokenCount: 3, thoughtsTokenCount: 2, totalTokenCount: 0 }),
    ]);
    expect(usage.map((u) => [u.messageId, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens])).toEqual([
      ['openai', 600, 400, 300, 200],
      ['gemini', 1000, 0, 500, 200],
      ['no-total', 10, 0, 5, 2],
      ['zero-total', 10, 0, 3, 2],
    ]);
  });
});

describe('qwen /branch', () => {
  it('a fork\u2019s copies of the parent\u2019s records (same uuid, new sessionId, forkedFrom) count once in a report', async () => {
    await inTempDir(async (dir) => {
      const chats = join(dir, 'projects', '-w', 'chats');
      await mkdir(chats, { recursive: true });
      const usage = { promptTokenCount: 1000, candidatesTokenCount: 100, totalTokenCount: 1100 };
      await writeFile(join(chats, 'parent.jsonl'), record('a1', usage, { sessionId: 'parent' }) + '\n');
      const copy = record('a1', usage, { sessionId: 'fork', forkedFrom: { sessionId: 'parent', messageUuid: 'a1' } });
      await writeFile(join(chats, 'fork.jsonl'), [copy, record('a2', { promptTokenCount: 50, candidatesTokenCount: 5 }, { sessionId: 'fork' })].join('\n') + '\n');
      const out = sink();
      const code = await runCli(['cost', 'report', '--json', '--agent', 'qwen', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: dir, QWEN_HOME: dir } });
      expect(code).toBe(0);
      expect(JSON.parse(out.text())).toMatchObject({ inputTokens: 1050, outputTokens: 105, requestCount: 2 });
      // `fork.jsonl` sorts before `parent.jsonl`: the copied response still counts in the parent's session.
      const bySession = sink();
      await runCli(['cost', 'report', '--json', '--agent', 'qwen', '--no-cache', '--group-by', 'session'], { stdout: bySession, stderr: sink(), env: { HOME: dir, QWEN_HOME: dir } });
      const rows = (JSON.parse(bySession.text()) as { breakdowns: Record<string, { requestCount: number; inputTokens: number }> }).breakdowns;
      expect(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, [v.requestCount, v.inputTokens]]))).toEqual({ 'qwen:parent': [1, 1000], 'qwen:fork': [1, 50] });
    });
  });
});

describe('qwen bad input', () => {
  it('skips and counts a malformed line, and no insane count reaches a total', async () => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const usage = await usageOfLines(
      [record('a', { promptTokenCount: -5, candidatesTokenCount: 1.5, cachedContentTokenCount: 'x' }), '{"uuid": broken', record('b', { promptTokenCount: 100, candidatesTokenCount: 7, cachedContentTokenCount: 1e300, thoughtsTokenCount: Number.MAX_SAFE_INTEGER + 2 })],
      { info },
    );
    expect(info.skippedLines).toBe(1);
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens])).toEqual([[100, 0, 7, 0]]);
  });
});

describe('qwen background subagents', () => {
  /** A project whose session `parent` ran a background subagent, laid out as Qwen Code writes them. */
  async function project(dir: string): Promise<{ root: string; parent: string; agent: string }> {
    const root = join(dir, 'projects');
    const chats = join(root, '-w', 'chats');
    const agents = join(root, '-w', 'subagents', 'parent');
    await mkdir(chats, { recursive: true });
    await mkdir(agents, { recursive: true });
    const parent = join(chats, 'parent.jsonl');
    await writeFile(parent, record('p1', { promptTokenCount: 1000, candidatesTokenCount: 100, totalTokenCount: 1100 }, { sessionId: 'parent', cwd: '/w' }) + '\n');
    const side = { sessionId: 'parent', cwd: '/w', agentId: 'explore-7f3c', agentName: 'Explore', isSidechain: true };
    const agent = join(agents, 'agent-explore-7f3c.jsonl');
    await writeFile(
      agent,
      [
        JSON.stringify({ uuid: 'a0', parentUuid: null, timestamp: '2026-01-01T00:00:01.000Z', type: 'user', message: { role: 'user', parts: [{ text: 'look around' }] }, ...side }),
        record('a1', { promptTokenCount: 300, candidatesTokenCount: 30, totalTokenCount: 330 }, side),
      ].join('\n') + '\n',
    );
    await writeFile(join(agents, 'agent-explore-7f3c.meta.json'), JSON.stringify({ agentId: 'explore-7f3c', agentType: 'Explore', parentSessionId: 'parent' }));
    await writeFile(join(agents, 'agent-explore-7f3c.jsonl.stream'), '{"v":1,"text":"partial"}\n');
    return { root, parent, agent };
  }

  it('lists a subagent transcript as a subagent session of the one that launched it', async () => {
    await inTempDir(async (dir) => {
      const { root, parent, agent } = await project(dir);
      const files = [];
      for await (const f of qwen.discover([root])) files.push(f);
      expect(files.map((f) => [f.path, f.sessionId, f.subagent === true])).toEqual([
        [parent, 'parent', false],
        [agent, 'agent-explore-7f3c', true],
      ]);
      expect((await readEvents(qwen, agent, { kinds: ['session'] }))[0]).toMatchObject({ nativeId: 'agent-explore-7f3c', cwd: '/w', subagent: true, forkedFrom: 'parent', spawnDepth: 1, agentType: 'Explore' });
    });
  });

  it('counts the subagent\u2019s responses in a report', async () => {
    await inTempDir(async (dir) => {
      await project(dir);
      const out = sink();
      const code = await runCli(['cost', 'report', '--json', '--agent', 'qwen', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: dir, QWEN_HOME: dir } });
      expect(code).toBe(0);
      expect(JSON.parse(out.text())).toMatchObject({ inputTokens: 1300, outputTokens: 130, requestCount: 2 });
    });
  });
});
