/**
 * Jcode (`~/.jcode/sessions/<id>.json` with `<id>.journal.jsonl`), over the sessions of fixtures/jcode, written
 * from Jcode's own types (fixtures/jcode/README.md): golden events, token totals checked by a deliberately simple
 * second reader (snapshot then journal, each message id once, the provider's input rule in plain code), a
 * journal line or snapshot that does not parse skipped and counted, the same events whatever the read buffer,
 * resume with fingerprint cursors that see a journal append, discovery, roots and variables, and the built CLI
 * under an isolated HOME (the sessions folder byte for byte unchanged).
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/jcode.test.ts`.
 */
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJcodeRoots, jcode } from '../codecs/jcode/index.js';
import { bucketsOf } from '../codecs/jcode/parse.js';
import { newReadInfo, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, readEvents } from './helpers/codec-harness.js';
import { inTempDir, treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/jcode/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/jcode/', import.meta.url).pathname;
const IDS = (await readdir(ROOT)).filter((n) => n.endsWith('.json')).map((n) => n.replace(/\.json$/, '')).sort();
const FOX = 'session_fox_1772441999';
const OAK = 'session_oak_1772546400';
const ELM = 'session_elm_1772611200';
const snap = (id: string, dir = ROOT) => join(dir, `${id}.json`);
const journal = (id: string, dir = ROOT) => join(dir, `${id}.journal.jsonl`);

/** The simple second reader: every assistant message with a non-zero `token_usage`, snapshot then journal, each id once. */
async function naiveTotals(ids: readonly string[], dir = ROOT): Promise<UsageTotals> {
  const t = emptyTotals();
  const seen = new Set<string>();
  for (const id of ids) {
    const doc = JSON.parse(await readFile(snap(id, dir), 'utf8'));
    const lines = existsSync(journal(id, dir)) ? (await readFile(journal(id, dir), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    const messages = [...doc.messages, ...lines.flatMap((e: any) => e.append_messages ?? [])];
    for (const m of messages) {
      const u = m.token_usage;
      if (m.role !== 'assistant' || !u || seen.has(m.id)) continue;
      seen.add(m.id);
      const cache = (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      if (u.input_tokens + u.output_tokens + cache === 0) continue;
      // Anthropic's input leaves the cache out; OpenAI's holds it
      const billed = doc.provider_key === 'claude' ? u.input_tokens + cache : u.input_tokens;
      t.input += billed;
      t.cached += u.cache_read_input_tokens ?? 0;
      t.output += u.output_tokens;
      t.responses++;
    }
  }
  return t;
}

describe('jcode golden files', () => {
  it.each(IDS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id) => {
    const events = await readEvents(jcode, snap(id));
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: id });
    expect(codecUsageTotals(events)).toEqual(await naiveTotals([id]));
  });

  it('reads the snapshot, then the journal, each message once, with the journal\u2019s later model', async () => {
    const k = byKind(await readEvents(jcode, snap(FOX)));
    const usage = k.usage as UsageEvent[];
    expect(usage.map((u) => u.messageId)).toEqual(['message_03', 'message_05', 'message_07', 'message_09']);
    // OpenAI's input holds the cache reads: taken out
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([[4000, 8000, 300], [1100, 11800, 450], [700, 12800, 620], [200, 13900, 90]]);
    expect(usage.every((u) => u.singleRequest && u.modelFallback === true && u.provider === 'openai' && u.dedupKey === `jcode:msg:${u.messageId}`)).toBe(true);
    expect(usage.map((u) => u.model)).toEqual(['gpt-5.2-codex', 'gpt-5.2-codex', 'gpt-5.2-codex', 'gpt-5.4']);
    const messages = k.message as MessageEvent[];
    expect(messages[0]).toMatchObject({ role: 'system', text: expect.stringContaining('<system-reminder>') });
    expect(messages.find((m) => m.nativeId === 'message_03')).toMatchObject({ role: 'assistant', text: 'Let me run it.', thinking: 'Run the test first.' });
    expect((k.tool_call as ToolCallEvent[]).map((c) => [c.callId, c.name])).toEqual([['call_a1', 'bash'], ['call_a2', 'edit']]);
    expect((k.tool_result as ToolResultEvent[]).map((r) => [r.callId, r.isError])).toEqual([['call_a1', true], ['call_a2', false]]);
    expect((k.session as SessionEvent[]).at(-1)).toMatchObject({ cwd: '/home/dev/api', title: 'Login test failure', model: 'gpt-5.4' });
  });

  it('keeps Anthropic\u2019s buckets apart and marks a call stored without tokens unknown', async () => {
    const k = byKind(await readEvents(jcode, snap(OAK)));
    expect((k.usage as UsageEvent[]).map((u) => [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens])).toEqual([[50, 20000, 1500, 800], [3, 21500, 120, 40]]);
    expect((k.session as SessionEvent[]).at(-1)).toMatchObject({ title: 'Changelog', usageUnknown: true });
  });

  it('marks a split session\u2019s inherited calls copied, under the parent\u2019s keys, so they count once', async () => {
    const k = byKind(await readEvents(jcode, snap(ELM)));
    const usage = k.usage as UsageEvent[];
    expect(usage.map((u) => [u.messageId, u.copied === true])).toEqual([['message_03', true], ['message_05', true], ['message_22', false]]);
    expect((k.session as SessionEvent[])[0]).toMatchObject({ forkedFrom: FOX });
    const all = (await Promise.all(IDS.map((id) => readEvents(jcode, snap(id))))).flat();
    expect(codecUsageTotals(all)).toEqual(await naiveTotals(IDS));
  });
});

describe('jcode splits and the journal', () => {
  /** The split session with its parent beside it, the parent named by the snapshot, the journal, or both. */
  async function splitWith(dir: string, where: 'snapshot' | 'journal' | 'both'): Promise<SessionfoldEvent[]> {
    for (const f of [snap(FOX), journal(FOX)]) await cp(f, join(dir, f.slice(ROOT.length)));
    const doc = JSON.parse(await readFile(snap(ELM), 'utf8'));
    const meta = { ...doc, messages: undefined, updated_at: '2026-03-04T08:00:10.000Z' };
    if (where === 'journal') delete doc.parent_id;
    await writeFile(snap(ELM, dir), JSON.stringify(doc));
    if (where !== 'snapshot') await writeFile(journal(ELM, dir), JSON.stringify({ meta: { ...meta, parent_id: FOX } }) + '\n');
    return readEvents(jcode, snap(ELM, dir));
  }

  it.each(['snapshot', 'journal', 'both'] as const)('a split whose parent the %s names marks the same copies, and counts each call once', async (where) => {
    await inTempDir('sf-jcode-split-', async (dir) => {
      const k = byKind(await splitWith(dir, where));
      expect((k.usage as UsageEvent[]).map((u) => [u.messageId, u.copied === true])).toEqual([['message_03', true], ['message_05', true], ['message_22', false]]);
      expect((k.session as SessionEvent[]).every((e) => e.forkedFrom === FOX)).toBe(true);
      const all = [...(await readEvents(jcode, snap(FOX, dir))), ...k.usage!];
      expect(codecUsageTotals(all)).toEqual(await naiveTotals([FOX, ELM], dir));
    });
  });
});

describe('jcode buckets per provider', () => {
  const u = (input: number, read = 0, write = 0, prompt?: number) => ({ input_tokens: input, output_tokens: 10, cache_read_input_tokens: read, cache_creation_input_tokens: write, ...(prompt !== undefined && { prompt_tokens: prompt }) });

  it('takes the cache out of an input that holds it: OpenAI, OpenRouter, Gemini', () => {
    // OpenAI's Responses usage: input_tokens holds input_tokens_details.cached_tokens (ResponseStats doc)
    expect(bucketsOf(u(5000, 4000), 'openai')).toEqual({ input: 1000, output: 10, cacheRead: 4000, cacheWrite: 0 });
    // OpenRouter (openrouter_sse_stream.rs): input is prompt_tokens, which holds cached_tokens and passed-through writes
    expect(bucketsOf(u(10000, 6000, 1000), 'openrouter')).toEqual({ input: 3000, output: 10, cacheRead: 6000, cacheWrite: 1000 });
    // Gemini (gemini.rs): input is promptTokenCount, which holds cachedContentTokenCount; no writes
    expect(bucketsOf(u(10000, 7000), 'gemini')).toEqual({ input: 3000, output: 10, cacheRead: 7000, cacheWrite: 0 });
    // and a provider jcode names otherwise (Copilot, Cursor, a namespace) the same way, the cautious reading
    expect(bucketsOf(u(800, 300), 'copilot')).toMatchObject({ input: 500, cacheRead: 300 });
    expect(bucketsOf(u(800, 300), undefined)).toMatchObject({ input: 500, cacheRead: 300 });
  });

  it('keeps an input apart from its cache: Anthropic\u2019s, a prompt_tokens that proves it, a cache larger than the input', () => {
    expect(bucketsOf(u(5000, 300, 200), 'claude')).toMatchObject({ input: 5000, cacheRead: 300, cacheWrite: 200 });
    expect(bucketsOf(u(5000, 300), 'anthropic')).toMatchObject({ input: 5000 });
    expect(bucketsOf(u(500, 300, 0, 800), 'openrouter')).toMatchObject({ input: 500, cacheRead: 300 });
    expect(bucketsOf(u(800, 300, 0, 800), 'openrouter')).toMatchObject({ input: 500, cacheRead: 300 });
    expect(bucketsOf(u(50, 20000, 1500), 'openrouter')).toMatchObject({ input: 50, cacheRead: 20000, cacheWrite: 1500 });
  });

  it('has no buckets for a call stored without usage, and refuses an absurd count', () => {
    expect(bucketsOf({ input_tokens: 0, output_tokens: 0 }, 'openai')).toBeUndefined();
    expect(() => bucketsOf({ input_tokens: -5, output_tokens: 1 }, 'openai')).toThrow(/absurd/);
  });
});

describe('jcode buffers, bad records and resume', () => {
  it.each(IDS)('%s: the same events whatever the read buffer', async (id) => {
    const events = await expectChunkInvariant(jcode, snap(id));
    expect(events).toEqual(await readEvents(jcode, snap(id)));
  });

  it('the same text whatever the read buffer, with characters of 2, 3 and 4 bytes cut between chunks', async () => {
    await inTempDir('sf-jcode-', async (dir) => {
      const doc = JSON.parse(await readFile(snap(ELM), 'utf8')) as { title: unknown; messages: { content: { type: string; text?: string }[] }[] };
      doc.title = 'Überprüfung — 日本語 🚀';
      for (const m of doc.messages) for (const b of m.content) if (typeof b.text === 'string') b.text = `${b.text} ÄÖü 漢字 🚀🧪`;
      await writeFile(snap(ELM, dir), JSON.stringify(doc));
      const events = await expectChunkInvariant(jcode, snap(ELM, dir));
      const texts = events.filter((e): e is MessageEvent => e.type === 'message').map((e) => e.text);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.every((t) => t.includes('ÄÖü 漢字 🚀🧪'))).toBe(true);
      expect((events[0] as SessionEvent).title).toBe('Überprüfung — 日本語 🚀');
    });
  });

  it('skips and counts a journal line that does not parse, reading the rest', async () => {
    await inTempDir('sf-jcode-', async (dir) => {
      await cp(snap(FOX), snap(FOX, dir));
      const lines = (await readFile(journal(FOX), 'utf8')).split('\n').filter(Boolean);
      await writeFile(journal(FOX, dir), `${lines[0]}\n{"meta": {"title": \n${lines.slice(1).join('\n')}\n{"torn":`);
      const info = newReadInfo();
      const usage = byKind(await readEvents(jcode, snap(FOX, dir), { info })).usage as UsageEvent[];
      expect(info.skippedLines).toBe(2);
      expect(usage.map((u) => u.messageId)).toEqual(['message_03', 'message_05', 'message_07', 'message_09']);
      await expect(readEvents(jcode, snap(FOX, dir), { strict: true })).rejects.toThrow(/journal line 2/);
    });
  });

  it('skips and counts an absurd count and a snapshot that is not JSON', async () => {
    await inTempDir('sf-jcode-', async (dir) => {
      const doc = JSON.parse(await readFile(snap(OAK), 'utf8'));
      doc.messages[1].token_usage.output_tokens = -5;
      await writeFile(snap(OAK, dir), JSON.stringify(doc));
      const info = newReadInfo();
      const usage = byKind(await readEvents(jcode, snap(OAK, dir), { info })).usage as UsageEvent[];
      expect([info.skippedLines, usage.length]).toEqual([1, 1]);
      await writeFile(snap(ELM, dir), '{"id": "session_elm_1772611200", "messages": [');
      const bad = newReadInfo();
      expect(await readEvents(jcode, snap(ELM, dir), { info: bad })).toEqual([]);
      expect(bad.skippedLines).toBe(1);
    });
  });

  it('an unchanged session is not read again; a journal append or a checkpoint reads it again', async () => {
    await inTempDir('sf-jcode-', async (dir) => {
      await cp(snap(FOX), snap(FOX, dir));
      await cp(journal(FOX), journal(FOX, dir));
      const read = async (from?: ReadCursor) => {
        let cursor: ReadCursor | undefined;
        let start: ResumeStart | undefined;
        const events: SessionfoldEvent[] = [];
        for await (const e of jcode.read(snap(FOX, dir), { resume: { from, onCursor: (u) => (cursor = u.cursor), onStart: (s) => (start = s) } })) events.push(e);
        return { events, cursor: cursor!, start: start! };
      };
      const full = await read();
      const again = await read(full.cursor);
      expect([again.events, again.start.restarted]).toEqual([[], false]);
      const entry = { meta: { updated_at: '2026-03-02T09:02:00.000Z' }, append_messages: [{ id: 'message_10', role: 'assistant', content: [{ type: 'text', text: 'Done.' }], timestamp: '2026-03-02T09:02:00.000Z', token_usage: { input_tokens: 14300, output_tokens: 12, cache_read_input_tokens: 14000 } }] };
      await appendFile(journal(FOX, dir), `${JSON.stringify(entry)}\n`);
      const appended = await read(again.cursor);
      expect(appended.start).toMatchObject({ restarted: true, reason: 'prefix-changed' });
      expect((byKind(appended.events).usage as UsageEvent[]).map((u) => u.messageId).at(-1)).toBe('message_10');
      // a checkpoint: the snapshot holds everything, the journal is gone; the same calls, once each
      const doc = JSON.parse(await readFile(snap(FOX, dir), 'utf8'));
      const entries = (await readFile(journal(FOX, dir), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const ids = new Set(doc.messages.map((m: { id: string }) => m.id));
      for (const e of entries) for (const m of e.append_messages) if (!ids.has(m.id)) (ids.add(m.id), doc.messages.push(m));
      await writeFile(snap(FOX, dir), JSON.stringify(doc));
      await rm(journal(FOX, dir));
      const checkpoint = await read(appended.cursor);
      expect(checkpoint.start.restarted).toBe(true);
      expect(codecUsageTotals(checkpoint.events)).toEqual(codecUsageTotals(appended.events));
    });
  });
});

describe('jcode discovery and roots', () => {
  it('lists the snapshots, not the journal or the backup, and finds one by id', async () => {
    expect((await discoverAll(jcode, [ROOT, '/nonexistent/jcode'])).map((f) => f.sessionId).sort()).toEqual(IDS);
    expect(await jcode.locate!([ROOT], OAK)).toMatchObject({ sessionId: OAK, path: snap(OAK) });
    expect(jcode.getParseDependencies(snap(FOX))).toEqual([journal(FOX)]);
    expect(jcode.resumeCommand!(FOX)).toEqual(['jcode', '--resume', FOX]);
  });

  it('takes SESSIONFOLD_JCODE_DIR, else JCODE_HOME, else ~/.jcode', () => {
    expect(getJcodeRoots({ HOME: '/h' })).toEqual(['/h/.jcode/sessions']);
    expect(getJcodeRoots({ HOME: '/h', JCODE_HOME: '~/jc' })).toEqual(['/h/jc/sessions']);
    expect(getJcodeRoots({ USERPROFILE: 'C:/Users/u', JCODE_HOME: '/j' })).toEqual(['/j/sessions']);
    expect(getJcodeRoots({ HOME: '/h', JCODE_HOME: '/j', SESSIONFOLD_JCODE_DIR: '/a,/b' })).toEqual(['/a', '/b']);
  });
});

describe('sessionfold CLI over a Jcode home', () => {
  let home: string;
  let before: string[];
  const trees = (): Promise<string[]> => treeListing(join(home, '.jcode'));
  const cli = agentCli(() => home, trees, () => before);

  beforeAll(async () => {
    await buildIfStale(['jcode']);
    home = await mkdtemp(join(tmpdir(), 'sf-jcode-cli-'));
    await cp(ROOT, join(home, '.jcode', 'sessions'), { recursive: true });
    before = await trees();
  }, 300_000);

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('cost report --json --agent jcode has the golden tokens, each call once', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'jcode'])) as AgentRow;
    expectGoldenRow(report, 'jcode', await goldenUsage(IDS.map((id) => join(EXPECTED_DIR, `${id}.events.jsonl`))));
    const simple = await naiveTotals(IDS);
    expect(report.inputTokens + report.cacheReadTokens + report.cacheWriteTokens).toBe(simple.input);
    expect([report.cacheReadTokens, report.outputTokens, report.requestCount]).toEqual([simple.cached, simple.output, simple.responses]);
  });

  it('sessions list and show read the sessions; the one with a call stored without tokens is unknown', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'jcode', '--json'])) as { sessionId: string; usageUnknown?: boolean }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(IDS);
    expect(list.filter((s) => s.usageUnknown === true).map((s) => s.sessionId)).toEqual([OAK]);
    expect(await cli(['sessions', 'show', 'jcode', FOX])).toContain('Fixed: the clock now follows the test run.');
  });
});
