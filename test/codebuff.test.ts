/**
 * Codebuff (`chat-messages.json`) over the fixtures in fixtures/codebuff, shaped like the `ChatMessage[]`
 * Codebuff writes (codecs/codebuff/README.md cites it): golden events, token totals checked by a deliberately
 * simple second reader, the same events whatever the read buffer, resume (a fingerprint cursor) equal to a full
 * read, a broken document as one skipped record, and the roots. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/codebuff.test.ts` (the totals check still holds them to the simple reader).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { chatIdTime, codebuff, discoverCodebuffSync, getCodebuffRoots } from '../codecs/codebuff/index.js';
import type { MessageEvent, SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, randomCuts, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/codebuff/projects/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/codebuff/', import.meta.url).pathname;
const FILES = [...discoverCodebuffSync([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));
const MAIN = '2026-01-04T09-15-00.000Z';
const BROKEN = '2026-01-06T07-00-00.000Z';
const WHOLE = FILES.filter((f) => f.sessionId !== BROKEN).map((f) => [f.sessionId!, f.path]);

/**
 * The simple second reader: JSON.parse the array; for each ai/agent message take `metadata.usage`, else the
 * last assistant entry of `metadata.runState…messageHistory` whose `providerOptions.codebuff.usage` has
 * tokens. Anthropic names are apart; an OpenAI `prompt_tokens` includes its `cached_tokens`. Counts that are
 * not non-negative integers are 0.
 */
function naiveTotals(text: string): UsageTotals {
  const sum = emptyTotals();
  const n = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  for (const m of JSON.parse(text) as any[]) {
    if (m?.variant !== 'ai' && m?.variant !== 'agent') continue;
    let u = m.metadata?.usage;
    if (u === undefined) {
      const h = m.metadata?.runState?.sessionState?.mainAgentState?.messageHistory ?? [];
      u = [...h].reverse().find((e: any) => e.role === 'assistant' && e.providerOptions?.codebuff?.usage)?.providerOptions.codebuff.usage;
    }
    if (u === undefined) continue;
    const input = u.prompt_tokens !== undefined ? n(u.prompt_tokens) : n(u.inputTokens) + n(u.cacheReadInputTokens) + n(u.cacheCreationInputTokens);
    const cached = u.prompt_tokens !== undefined ? n(u.prompt_tokens_details?.cached_tokens) : n(u.cacheReadInputTokens);
    const output = n(u.completion_tokens) + n(u.outputTokens);
    if (input + output === 0) continue;
    sum.input += input;
    sum.cached += cached;
    sum.output += output;
    sum.responses++;
  }
  return sum;
}

describe('codebuff golden files', () => {
  it('discovers every chat folder of the fixture tree', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual([MAIN, '2026-01-05T18-40-12.345Z', BROKEN]);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events', async (id, path) => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const events = await readEvents(codebuff, path, { info });
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]?.type).toBe('session');
    expect(info.skippedLines, 'only the truncated document is skipped').toBe(id === BROKEN ? 1 : 0);
  });

  it.each(WHOLE)('%s: token totals of the simple reader', async (_id, path) => {
    expect(codecUsageTotals(await readEvents(codebuff, path))).toEqual(naiveTotals(await readFile(path, 'utf8')));
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', async () => {
    expect(naiveTotals(await readFile(FILES[0]!.path, 'utf8'))).toEqual({ input: 25300, cached: 19000, output: 1070, reasoning: 0, responses: 2 });
  });

  it('reads messages, reasoning, nested tool blocks and the error banner', async () => {
    const k = byKind(await readEvents(codebuff, FILES[0]!.path));
    const msgs = k.message as MessageEvent[];
    expect(msgs.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Add a health check endpoint'],
      ['assistant', 'Added GET /health returning 200.'],
      ['user', 'Now add a test for it.'],
      ['assistant', 'Added test/health.test.ts; it passes.'],
      ['assistant', 'Running the suite again.'],
      ['system', 'Out of credits for this cycle.'],
    ]);
    expect(msgs[1]!.thinking).toBe('I should look at the router first.');
    expect(k.tool_call.map((t) => (t as { name: string }).name)).toEqual(['read_files', 'find_files', 'str_replace']);
    expect(k.tool_result.map((t) => (t as { callId: string }).callId)).toEqual(['tc-1', 'tc-2']);
    const usage = k.usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens])).toEqual([
      ['anthropic/claude-sonnet-4.5', 1800, 12000, 2500, 420],
      ['openai/gpt-5', 2000, 7000, 0, 650],
    ]);
  });

  it('a chat without token usage says its usage is unknown, not zero', async () => {
    const events = await readEvents(codebuff, FILES[1]!.path);
    expect(byKind(events).usage).toEqual([]);
    expect(events.filter((e): e is SessionEvent => e.type === 'session').at(-1)).toMatchObject({ usageUnknown: true, startedAt: '2026-01-05T18:40:12.345Z' });
  });
});

describe('codebuff buffers and resume', () => {
  it.each(WHOLE)('%s: same events (all kinds, and usage only) whatever the read buffer', async (_id, path) => {
    const events = await expectChunkInvariant(codebuff, path);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(codebuff, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(WHOLE)('%s: resuming as the document is rewritten equals a full read, with fingerprint cursors', async (_id, path) => {
    const content = await readFile(path);
    const run = await resumeAcrossCuts(codebuff, content, randomCuts(content.length, 12, 7), {}, 'chat-messages.json');
    // The chat id is the folder's name, `growing` or `whole` in the harness: the same chat under two names.
    expect(JSON.parse(JSON.stringify(run.kept).replaceAll(/(["/])growing\b/g, '$1whole'))).toEqual(run.full);
    expect(run.cursors.every((c) => c.format === 'json')).toBe(true);
  });
});

describe('codebuff roots', () => {
  it('is ~/.config/manicode/projects, with the dev and staging builds beside it', () => {
    expect(getCodebuffRoots({ HOME: '/h' })).toEqual(['/h/.config/manicode/projects', '/h/.config/manicode-dev/projects', '/h/.config/manicode-staging/projects']);
  });

  it('reads the time a chat id names', () => {
    expect(chatIdTime('2026-01-02T03-04-05.000Z')).toBe('2026-01-02T03:04:05.000Z');
    expect(chatIdTime('chat-1')).toBeUndefined();
  });
});
