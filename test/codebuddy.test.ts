/**
 * The CodeBuddy Code codec over fixtures/codebuddy (built from the record shapes its README cites): golden
 * events, token totals checked by a deliberately simple second reader, chunk invariance and resume, the
 * token semantics of each usage object, streamed copies counted once in a report, bad lines skipped and
 * counted, and the roots' env override. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/codebuddy.test.ts` (the totals check still holds them to the simple reader).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codebuddy, codeBuddyTokens, getCodeBuddyRoots } from '../codecs/codebuddy/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { byKind, readEvents } from './helpers/codec-harness.js';
import { describeChunkingAndResume } from './helpers/fixture-suite.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals } from './helpers/usage-totals.js';
import { naiveCodeBuddyTotals } from './helpers/codebuddy-naive.js';

const DIR = new URL('../fixtures/codebuddy/projects/home-alice-repo/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/codebuddy/', import.meta.url).pathname;
const FIXTURES = (await readdir(DIR)).filter((n) => n.endsWith('.jsonl')).sort();

/** `fn` given a temp folder, removed after. */
async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-codebuddy-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('codebuddy golden files', () => {
  it.each(FIXTURES)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (name) => {
    const events = await readEvents(codebuddy, `${DIR}${name}`);
    await expectGolden(EXPECTED_DIR, name, events);
    expect(events[0]?.type).toBe('session');
    expect(codecUsageTotals(events)).toEqual(naiveCodeBuddyTotals(await readFile(`${DIR}${name}`, 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    const t = naiveCodeBuddyTotals(await readFile(`${DIR}5b0d1f5c-2f7e-4c8a-9d55-3c1e0a7b9e21.jsonl`, 'utf8'));
    expect(t).toEqual({ input: 24486 + 24700 + 24903, cached: 14720 + 24448, output: 165, reasoning: 12, responses: 3 });
  });

  it('reads the conversation: prompts, a flagged command, thinking, tool calls and results, the title', async () => {
    const events = await readEvents(codebuddy, `${DIR}5b0d1f5c-2f7e-4c8a-9d55-3c1e0a7b9e21.jsonl`);
    const k = byKind(events);
    expect(k.message.map((m) => [(m as { role: string }).role, (m as { subtype?: string }).subtype])).toEqual([
      ['user', 'meta'],
      ['user', undefined],
      ['assistant', undefined],
      ['assistant', undefined],
      ['assistant', undefined],
    ]);
    expect(k.tool_call.map((c) => (c as { name: string }).name)).toEqual(['Read', 'Edit']);
    expect(k.tool_result.map((r) => (r as { isError: boolean }).isError)).toEqual([false, true]);
    expect(k.session.at(-1)).toMatchObject({ sessionId: '5b0d1f5c-2f7e-4c8a-9d55-3c1e0a7b9e21', cwd: '/home/alice/repo', title: '修复 add 测试', startedAt: '2026-05-28T20:26:40.000Z' });
    expect((k.usage as UsageEvent[]).map((u) => [u.messageId, u.model, u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([
      ['msg-1', 'glm-5.1', 0, 14720, 60],
      ['msg-2', 'glm-5.1', 252, 24448, 85],
      ['msg-3', 'glm-5.1', 24903, 0, 20],
    ]);
  });
});

describeChunkingAndResume(codebuddy, DIR, FIXTURES);

describe('codebuddy tokens', () => {
  it('takes the cache reads out of the input CodeBuddy counts them in, by total, by hit or by details', () => {
    expect(codeBuddyTokens({ input_tokens: 24486, output_tokens: 3, total_tokens: 24489, cache_read_input_tokens: 14720 })).toMatchObject({ inputTokens: 9766, cacheReadTokens: 14720, outputTokens: 3 });
    expect(codeBuddyTokens({ input_tokens: 28923, output_tokens: 106, cache_read_input_tokens: 28672 })).toMatchObject({ inputTokens: 251, cacheReadTokens: 28672 });
    expect(codeBuddyTokens({ inputTokens: 100, outputTokens: 5, totalTokens: 105, inputTokensDetails: [{ cached_tokens: 60 }], outputTokensDetails: [{ reasoning_tokens: 2 }] })).toEqual({ inputTokens: 40, outputTokens: 5, reasoningTokens: 2, cacheReadTokens: 60, cacheWriteTokens: 0 });
    expect(codeBuddyTokens({ prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 3, prompt_cache_write_tokens: 4, completion_thinking_tokens: 5 })).toEqual({ inputTokens: 3, outputTokens: 2, reasoningTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 });
  });

  it('takes the cache misses as the input when named, and keeps an input its own total shows without the cache', () => {
    expect(codeBuddyTokens({ inputTokens: 140732, outputTokens: 635, totalTokens: 141367, cacheTokens: 76032, cachedWriteTokens: 0, cachedMissTokens: 64700 })).toMatchObject({ inputTokens: 64700, cacheReadTokens: 76032 });
    expect(codeBuddyTokens({ input_tokens: 20, output_tokens: 5, total_tokens: 125, cache_read_input_tokens: 100 })).toMatchObject({ inputTokens: 20, cacheReadTokens: 100 });
  });

  it('takes the cache writes out of the input too, a prompt_cache_miss_tokens being a write, as CodeBuddy\u2019s own cost does', () => {
    expect(codeBuddyTokens({ prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 3, prompt_cache_write_tokens: 4 })).toMatchObject({ inputTokens: 3, cacheReadTokens: 3, cacheWriteTokens: 4 });
    expect(codeBuddyTokens({ prompt_tokens: 27537, completion_tokens: 552, prompt_cache_hit_tokens: 27264, prompt_cache_miss_tokens: 273 })).toMatchObject({ inputTokens: 0, cacheReadTokens: 27264, cacheWriteTokens: 273 });
    expect(codeBuddyTokens({ prompt_tokens: 100, completion_tokens: 1, prompt_cache_hit_tokens: 10, prompt_cache_write_tokens: 30, prompt_cache_miss_tokens: 60 })).toMatchObject({ inputTokens: 60, cacheWriteTokens: 30 });
    expect(codeBuddyTokens({ prompt_tokens: 5, completion_tokens: 1, prompt_cache_hit_tokens: 4, prompt_cache_write_tokens: 9 })).toMatchObject({ inputTokens: 0, cacheReadTokens: 4, cacheWriteTokens: 9 });
  });

  it('takes the cache counts from the provider\u2019s own object when the one read names none (the writer leaves the writes out of message.usage)', () => {
    const message = { input_tokens: 24486, output_tokens: 60, total_tokens: 24546, cache_read_input_tokens: 14720 };
    const provider = { inputTokens: 24486, outputTokens: 60, totalTokens: 24546, inputTokensDetails: [{ cached_tokens: 14720 }] };
    const raw = { prompt_tokens: 24486, completion_tokens: 60, prompt_cache_hit_tokens: 14720, prompt_cache_miss_tokens: 9766 };
    expect(codeBuddyTokens(message, [provider, raw])).toMatchObject({ inputTokens: 0, cacheReadTokens: 14720, cacheWriteTokens: 9766 });
    expect(codeBuddyTokens({ input_tokens: 24486, output_tokens: 60 }, [provider, raw])).toMatchObject({ inputTokens: 0, cacheReadTokens: 14720, cacheWriteTokens: 9766 });
    expect(codeBuddyTokens(message, [provider])).toMatchObject({ inputTokens: 9766, cacheReadTokens: 14720, cacheWriteTokens: 0 });
  });

  it('takes the reasoning from a copy when the object read names none, inside the output', () => {
    expect(codeBuddyTokens({ input_tokens: 10, output_tokens: 4 }, [{ outputTokensDetails: [{ reasoning_tokens: 3 }] }, { completion_thinking_tokens: 9 }])).toMatchObject({ outputTokens: 4, reasoningTokens: 3 });
    expect(codeBuddyTokens({ input_tokens: 10, output_tokens: 4 }, [{ completion_thinking_tokens: 9 }])).toMatchObject({ outputTokens: 4, reasoningTokens: 4 });
  });

  it('has no counts for an object without tokens, and no insane count reaches one', () => {
    expect(codeBuddyTokens({ input_tokens: 0, output_tokens: 0 })).toBeUndefined();
    expect(codeBuddyTokens({ input_tokens: -5, output_tokens: 1.5, cache_read_input_tokens: 'x' })).toBeUndefined();
    expect(codeBuddyTokens({ input_tokens: 1e300, output_tokens: 7 })).toMatchObject({ inputTokens: 0, outputTokens: 7 });
  });
});

const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: 's', cwd: '/w', timestamp: 1780000000000, ...o });
const call = (id: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  line({ id: `fc-${id}`, type: 'function_call', callId: `c-${id}`, name: 'Read', arguments: '{}', message: { usage }, providerData: { model: 'glm-5.1', messageId: id }, ...extra });

describe('codebuddy bad input and copies', () => {
  it('skips and counts a malformed line and a line that is not an object; the others still count', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's.jsonl');
      await writeFile(file, [call('a', { input_tokens: 100, output_tokens: 7 }), '{"type": broken', '[1,2]', call('b', { input_tokens: 50, output_tokens: 5 })].join('\n') + '\n');
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const usage = byKind(await readEvents(codebuddy, file, { info })).usage as UsageEvent[];
      expect(info.skippedLines).toBe(2);
      expect(usage.map((u) => [u.messageId, u.inputTokens, u.outputTokens])).toEqual([
        ['a', 100, 7],
        ['b', 50, 5],
      ]);
    });
  });

  it('counts a response once in a report: an incomplete (dropped) response is not read, a second copy of one shares its key', async () => {
    await inTempDir(async (dir) => {
      const project = join(dir, '.codebuddy', 'projects', 'w');
      await mkdir(project, { recursive: true });
      const usage = { input_tokens: 1000, output_tokens: 100, total_tokens: 1100, cache_read_input_tokens: 600 };
      await writeFile(
        join(project, 's.jsonl'),
        [call('z', { input_tokens: 900, output_tokens: 10 }, { status: 'incomplete' }), call('a', usage), call('a', usage), call('b', { input_tokens: 50, output_tokens: 5 })].join('\n') + '\n',
      );
      const out = sink();
      const code = await runCli(['cost', 'report', '--json', '--agent', 'codebuddy', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: dir } });
      expect(code).toBe(0);
      expect(JSON.parse(out.text())).toMatchObject({ inputTokens: 450, cacheReadTokens: 600, outputTokens: 105, requestCount: 2 });
    });
  });
});

describe('codebuddy responses of reasoning only', () => {
  it('reads the usage a reasoning record carries when the response had nothing after it, once per response', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's.jsonl');
      const thought = (id: string, usage?: Record<string, unknown>) =>
        line({ id: `r-${id}`, type: 'reasoning', rawContent: [{ type: 'reasoning_text', text: 'thinking' }], providerData: { model: 'glm-5.1', messageId: id, ...(usage !== undefined && { usage }) } });
      const usage = { inputTokens: 300, outputTokens: 40, totalTokens: 340, inputTokensDetails: [{ cached_tokens: 100 }], outputTokensDetails: [{ reasoning_tokens: 40 }] };
      // `a`: a response of reasoning only, its usage on the reasoning; `b`: reasoning then a tool call, the usage on the call
      await writeFile(file, [thought('a', usage), thought('b'), call('b', { input_tokens: 50, output_tokens: 5 })].join('\n') + '\n');
      const events = byKind(await readEvents(codebuddy, file)).usage as UsageEvent[];
      expect(events.map((u) => [u.messageId, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens])).toEqual([
        ['a', 200, 100, 40, 40],
        ['b', 50, 0, 5, 0],
      ]);
      expect(byKind(await readEvents(codebuddy, file, { kinds: ['usage'] })).usage).toEqual(events);
    });
  });
});

describe('codebuddy forks and sub-agents', () => {
  it('counts a response a --fork-session copy holds once, and a sub-agent\u2019s own calls apart', async () => {
    await inTempDir(async (dir) => {
      const project = join(dir, '.codebuddy', 'projects', 'w');
      await mkdir(join(project, 's', 'subagents'), { recursive: true });
      const usage = { input_tokens: 1000, output_tokens: 100, total_tokens: 1100, cache_read_input_tokens: 600 };
      // the fork's first records are the old session's, `sessionId` and all; its own record names the fork
      await writeFile(join(project, 's.jsonl'), [call('a', usage), call('b', usage)].join('\n') + '\n');
      await writeFile(join(project, 'f.jsonl'), [call('a', usage), call('b', usage), line({ ...JSON.parse(call('c', usage)), sessionId: 'f' })].join('\n') + '\n');
      await writeFile(join(project, 's', 'subagents', 'agent-1.jsonl'), line({ ...JSON.parse(call('d', { input_tokens: 10, output_tokens: 1 })), sessionId: 'agent-1' }) + '\n');
      const out = sink();
      const code = await runCli(['cost', 'report', '--json', '--agent', 'codebuddy', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: dir } });
      expect(code).toBe(0);
      expect(JSON.parse(out.text())).toMatchObject({ inputTokens: 3 * 400 + 10, cacheReadTokens: 3 * 600, outputTokens: 3 * 100 + 1, requestCount: 4 });
    });
  });
});

describe('codebuddy roots', () => {
  it('reads $CODEBUDDY_CONFIG_DIR/projects, else ~/.codebuddy/projects', () => {
    expect(getCodeBuddyRoots({ HOME: '/h' })).toEqual(['/h/.codebuddy/projects']);
    expect(getCodeBuddyRoots({ HOME: '/h', CODEBUDDY_CONFIG_DIR: '~/cb' })).toEqual(['/h/cb/projects']);
  });

  it('finds transcripts in project folders and below them, never at the root itself', async () => {
    await inTempDir(async (dir) => {
      await mkdir(join(dir, 'p', 's1', 'subagents'), { recursive: true });
      await writeFile(join(dir, 'stray.jsonl'), '');
      await writeFile(join(dir, 'p', 's1.jsonl'), '');
      await writeFile(join(dir, 'p', 's1', 'subagents', 'agent-1.jsonl'), '');
      const found = [...codebuddy.discoverSync!([dir])].map((f) => f.path.slice(dir.length + 1)).sort();
      expect(found).toEqual(['p/s1.jsonl', 'p/s1/subagents/agent-1.jsonl']);
    });
  });
});
