/**
 * Auggie, Augment Code's CLI (`~/.augment/sessions/<id>.json`), over the session documents of fixtures/auggie,
 * built in the shape the readers cited in codecs/auggie/README.md read ("Fixtures"): golden events, token totals
 * checked by a deliberately simple second reader (every turn's first `token_usage` summed in plain code), a
 * session with an answer but no tokens saying its usage is unknown, a document that does not parse skipped and
 * counted, the same events whatever the read buffer, resume with fingerprint cursors, discovery and roots.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/auggie.test.ts`.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { auggie, getAuggieRoots } from '../codecs/auggie/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, randomCuts, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { inTempDir as inTempDirOf } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';

const ROOT = new URL('../fixtures/auggie/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/auggie/', import.meta.url).pathname;
const IDS = (await readdir(ROOT)).map((n) => n.replace(/\.json$/, '')).sort();
const MAIN = '2f0c6b1e-8d4a-4c2e-9b7a-3c5d1e0f9a21';
const NO_TOKENS = '9d3e5a70-1b2c-4d8e-8f90-a1b2c3d4e5f6';
const WRITER_ORDER = '5e7a9c1b-3d2f-4e8a-b6c4-0f1e2d3c4b5a';

/**
 * The simple second reader: JSON.parse the document; each turn's first non-empty `token_usage`, the session's
 * and its sub-agents', and each summarization record, summed.
 */
function naiveTotals(text: string): UsageTotals {
  const t = emptyTotals();
  const add = (u: any) => {
    if (!u || !(u.input_tokens || u.output_tokens || u.cache_read_input_tokens || u.cache_creation_input_tokens)) return;
    t.input += (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    t.cached += u.cache_read_input_tokens ?? 0;
    t.output += u.output_tokens ?? 0;
    t.responses++;
  };
  const doc = JSON.parse(text);
  const turns = [...(doc.chatHistory ?? []), ...(doc.subAgents ?? []).flatMap((a: any) => a.chatHistory ?? [])];
  for (const turn of turns) add((turn.exchange?.response_nodes ?? []).map((n: any) => n.token_usage).find((x: any) => x && (x.input_tokens || x.output_tokens || x.cache_read_input_tokens || x.cache_creation_input_tokens)));
  for (const s of doc.summarizations ?? []) add(s);
  return t;
}

const inTempDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> => inTempDirOf('sf-auggie-', fn);

describe('auggie golden files', () => {
  it.each(IDS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id) => {
    const file = `${ROOT}${id}.json`;
    const events = await readEvents(auggie, file);
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: id });
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(file, 'utf8')));
  });

  it('books each turn\u2019s buckets apart, names the turn\u2019s model, and reads the conversation', async () => {
    const events = await readEvents(auggie, `${ROOT}${MAIN}.json`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.offset])).toEqual([
      ['claude-sonnet-4-5', 1200, 0, 9000, 80, 0],
      ['claude-sonnet-4-5', 300, 9000, 450, 150, 1],
      ['gpt-5-4', 2000, 0, 0, 40, 2],
    ]);
    expect(usage.every((u) => u.singleRequest && u.costUsd === undefined && u.dedupKey.startsWith('auggie:req:'))).toBe(true);
    const messages = byKind(events).message as MessageEvent[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'user']);
    expect(messages[0]!.text).toBe('Run the tests and fix what fails — naïve totals ✓');
    expect((byKind(events).tool_call as { name: string; input: unknown }[]).map((c) => [c.name, c.input])).toEqual([
      ['launch-process', { command: 'npm test' }],
      ['str-replace-editor', { path: 'src/cart.ts', old_str_1: 'i < n - 1', new_str_1: 'i < n' }],
    ]);
    expect((byKind(events).tool_result as ToolResultEvent[]).map((r) => [r.callId, r.isError])).toEqual([
      ['toolu_01', true],
      ['toolu_02', false],
    ]);
    const last = (byKind(events).session as SessionEvent[]).at(-1);
    expect(last).toMatchObject({ cwd: '/home/dev/shop', title: 'Fix the failing cart test', model: 'claude-sonnet-4-5', startedAt: '2026-07-20T13:30:00.000Z' });
    expect(last?.usageUnknown).toBeUndefined();
  });

  it('a turn that answered without its tokens leaves the usage unknown, and a turn without a model takes the session\u2019s', async () => {
    const events = await readEvents(auggie, `${ROOT}${NO_TOKENS}.json`);
    const usage = byKind(events).usage as UsageEvent[];
    expect(usage.map((u) => [u.model, u.modelFallback, u.dedupKey])).toEqual([['gpt-5-4', true, `auggie:${NO_TOKENS}:turn:0`]]);
    expect((byKind(events).session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
  });
});

/** A document in the key order Auggie 0.36.0 writes (`SessionManager.saveSession`): the turns first, then the state. */
function writerOrder(turns: unknown[], rest: Record<string, unknown>): string {
  return JSON.stringify({ sessionId: 's1', created: '2026-07-22T10:00:00.000Z', modified: '2026-07-22T10:05:00.000Z', chatHistory: turns, agentState: { modelId: 'claude-sonnet-4-5' }, ...rest });
}
const turn = (requestId: string, usage: Record<string, number>, model = 'claude-sonnet-4-5') => ({
  exchange: { request_id: requestId, request_message: '', response_text: 'done', model_id: model, response_nodes: [{ type: 10, token_usage: usage }] },
  completed: true,
  sequenceId: 1,
  finishedAt: '2026-07-22T10:01:00.000Z',
});

describe('auggie sub-agents and history summaries', () => {
  it('reads the usage of the sub-agents\u2019 turns and of the summarization calls the document keeps after the turns', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's1.json');
      const subAgents = [
        { name: 'explore', model: 'claude-haiku-4-5', finishedAt: '2026-07-22T10:02:00.000Z', chatHistory: [turn('sub-1', { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 500, cache_creation_input_tokens: 0 }, 'claude-haiku-4-5'), { ...turn('sub-2', { input_tokens: 7, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 70 }), exchange: { request_id: 'sub-2', response_text: 'x', response_nodes: [{ type: 10, token_usage: { input_tokens: 7, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 70 } }] } }], tool_call_request_id: 'main-1' },
      ];
      const summarizations = [{ request_id: 'sum-1', model: 'claude-sonnet-4-5', finishedAt: '2026-07-22T10:04:00.000Z', input_tokens: 900, output_tokens: 300, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: '0.01' }];
      await writeFile(file, writerOrder([turn('main-1', { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 })], { subAgentCostUsd: 0.002, summarizations, subAgents }));
      const events = await readEvents(auggie, file);
      const usage = byKind(events).usage as UsageEvent[];
      expect(usage.map((u) => [u.messageId, u.model, u.modelFallback ?? false, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.timestamp])).toEqual([
        ['main-1', 'claude-sonnet-4-5', false, 100, 1000, 200, 10, '2026-07-22T10:01:00.000Z'],
        ['sub-1', 'claude-haiku-4-5', false, 50, 500, 0, 5, '2026-07-22T10:01:00.000Z'],
        ['sub-2', 'claude-haiku-4-5', true, 7, 0, 70, 1, '2026-07-22T10:01:00.000Z'],
        ['sum-1', 'claude-sonnet-4-5', false, 900, 0, 0, 300, '2026-07-22T10:04:00.000Z'],
      ]);
      expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(4);
      expect(new Set(usage.map((u) => u.offset)).size).toBe(4);
      expect(usage.every((u) => u.sessionId === 's1' && u.singleRequest)).toBe(true);
      expect(byKind(events).message).toHaveLength(1);
      expect(await expectChunkInvariant(auggie, file)).toEqual(events);
    });
  });

  it('reads a document in Auggie\u2019s own key order: the sub-agent\u2019s turns and the summary call after the session\u2019s', async () => {
    const usage = byKind(await readEvents(auggie, `${ROOT}${WRITER_ORDER}.json`)).usage as UsageEvent[];
    expect(usage.map((u) => [u.offset, u.model, u.cacheReadTokens])).toEqual([
      [0, 'claude-sonnet-4-5', 0],
      [1, 'claude-sonnet-4-5', 13400],
      [2, 'claude-haiku-4-5', 0],
      [3, 'claude-haiku-4-5', 4200],
      [4, 'claude-sonnet-4-5', 0],
    ]);
    expect(usage.every((u) => u.costUsd === undefined)).toBe(true);
  });

  it('a sub-agent turn that answered without its tokens leaves the session\u2019s usage unknown', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's1.json');
      const bare = { exchange: { request_id: 'sub-9', response_text: 'no tokens here', response_nodes: [] }, completed: true, finishedAt: '2026-07-22T10:02:00.000Z' };
      await writeFile(file, writerOrder([turn('main-1', { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })], { subAgents: [{ name: 'explore', chatHistory: [bare] }] }));
      const sessions = byKind(await readEvents(auggie, file)).session as SessionEvent[];
      expect(sessions.at(-1)).toMatchObject({ usageUnknown: true, model: 'claude-sonnet-4-5' });
    });
  });
});

describe('auggie session fields where Auggie writes them', () => {
  it('a turn without a model takes agentState\u2019s, which Auggie writes after the turns', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's1.json');
      const t = turn('main-1', { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      const { model_id: _, ...bare } = t.exchange;
      await writeFile(file, writerOrder([{ ...t, exchange: bare }, turn('main-2', { input_tokens: 6, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, 'gpt-5-4')], {}));
      const usage = byKind(await readEvents(auggie, file)).usage as UsageEvent[];
      expect(usage.map((u) => [u.messageId, u.model, u.modelFallback ?? false]).sort()).toEqual([
        ['main-1', 'claude-sonnet-4-5', true],
        ['main-2', 'gpt-5-4', false],
      ]);
      expect(await expectChunkInvariant(auggie, file, { kinds: ['usage'] })).toEqual(usage);
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.slice(0, text.indexOf('"agentState"')));
      const info = newReadInfo();
      const cut = byKind(await readEvents(auggie, file, { info })).usage as UsageEvent[];
      expect(info.skippedLines).toBe(1);
      expect(cut.map((u) => [u.messageId, u.model]).sort(), 'a document cut before agentState keeps the usage read').toEqual([
        ['main-1', 'unknown'],
        ['main-2', 'gpt-5-4'],
      ]);
    });
  });

  it('takes the working folder from the IDE state\u2019s workspace folders when no terminal names one, and the title from `title` without a `customTitle`', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 's1.json');
      const t = turn('main-1', { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      const ide = { id: 1, type: 4, ide_state_node: { workspace_folders: [{ repository_root: '/home/dev/api', folder_root: '/home/dev/api/pkg' }], workspace_folders_unchanged: false } };
      await writeFile(file, writerOrder([{ ...t, exchange: { ...t.exchange, request_nodes: [ide] } }], { title: 'Synced title' }));
      expect((byKind(await readEvents(auggie, file)).session as SessionEvent[]).at(-1)).toMatchObject({ cwd: '/home/dev/api', title: 'Synced title' });
      await writeFile(file, writerOrder([t], { title: 'Synced title', customTitle: 'My title' }));
      expect((byKind(await readEvents(auggie, file)).session as SessionEvent[]).at(-1)).toMatchObject({ title: 'My title' });
    });
  });
});

describe('auggie buffers, resume and bad documents', () => {
  it.each(IDS)('%s: same events (all kinds, and usage only) whatever the read buffer', async (id) => {
    const events = await expectChunkInvariant(auggie, `${ROOT}${id}.json`);
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(auggie, `${ROOT}${id}.json`, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(IDS)('%s: resuming as the document is rewritten equals a full read, with fingerprint cursors', async (id) => {
    const content = await readFile(`${ROOT}${id}.json`);
    const run = await resumeAcrossCuts(auggie, content, randomCuts(content.length, 12, 7), {}, `${id}.json`);
    expect(run.kept).toEqual(run.full);
    expect(run.cursors.every((c) => c.format === 'json')).toBe(true);
  });

  it('a turn with an absurd count is a skipped record: its usage refused, not read as 0, the rest read', async () => {
    await inTempDir(async (dir) => {
      const text = await readFile(`${ROOT}${MAIN}.json`, 'utf8');
      const file = join(dir, `${MAIN}.json`);
      await writeFile(file, text.replace('"input_tokens": 300,', '"input_tokens": -300,'));
      const info = newReadInfo();
      const events = await readEvents(auggie, file, { info });
      const full = await readEvents(auggie, `${ROOT}${MAIN}.json`);
      expect(info.skippedLines).toBe(1);
      expect((byKind(events).usage as UsageEvent[]).map((u) => u.offset)).toEqual((byKind(full).usage as UsageEvent[]).map((u) => u.offset).filter((o) => o !== 1));
      expect(byKind(events).message).toEqual(byKind(full).message);
      expect((byKind(events).session as SessionEvent[]).at(-1)).toMatchObject({ usageUnknown: true });
      await expect(readEvents(auggie, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('a document cut short is one skipped record, with the turns read before the cut', async () => {
    await inTempDir(async (dir) => {
      const text = await readFile(`${ROOT}${MAIN}.json`, 'utf8');
      const file = join(dir, `${MAIN}.json`);
      await writeFile(file, text.slice(0, text.indexOf('"sequenceId": 3')));
      const info = newReadInfo();
      const events = await readEvents(auggie, file, { info });
      expect(info.skippedLines).toBe(1);
      expect(byKind(events).usage).toHaveLength(2);
      await expect(readEvents(auggie, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });
});

describe('auggie: a read of sessions and usage', () => {
  it('builds no message or tool event and parses no tool input; its events are the full read\'s of those kinds', async () => {
    const file = `${ROOT}${MAIN}.json`;
    const inputs = new Set<string>();
    for (const turn of JSON.parse(await readFile(file, 'utf8')).chatHistory) for (const n of turn.exchange?.response_nodes ?? []) if (typeof n.tool_use?.input_json === 'string') inputs.add(n.tool_use.input_json);
    expect(inputs.size).toBeGreaterThan(0);
    const parsed: unknown[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parsed.push(text);
      return parse(text, reviver);
    });
    try {
      const full = await readEvents(auggie, file);
      expect(parsed.filter((t) => inputs.has(t as string)), 'a full read parses the tool inputs').toHaveLength(inputs.size);
      parsed.length = 0;
      const cost = await readEvents(auggie, file, { kinds: ['session', 'usage'] });
      expect(parsed.filter((t) => inputs.has(t as string))).toEqual([]);
      expect(cost).toEqual(full.filter((e) => e.type === 'session' || e.type === 'usage'));
    } finally {
      spy.mockRestore();
    }
  });
});

describe('auggie backups', () => {
  it('a `<id>-backup<N>.json` Auggie left beside a session counts the turns it shares once, and lists one session', async () => {
    await inTempDir(async (home) => {
      const dir = join(home, '.augment', 'sessions');
      await mkdir(dir, { recursive: true });
      const text = await readFile(`${ROOT}${MAIN}.json`, 'utf8');
      await writeFile(join(dir, `${MAIN}.json`), text);
      // the local history a conflict with the remote one set aside: the same document, one turn short
      const doc = JSON.parse(text);
      await writeFile(join(dir, `${MAIN}-backup1.json`), JSON.stringify({ ...doc, modified: '2026-07-20T13:31:00.000Z', chatHistory: doc.chatHistory.slice(0, 2) }, null, 2));
      const run = async (args: string[]) => {
        const out = sink();
        const err = sink();
        expect(await runCli(args, { stdout: out, stderr: err, env: { HOME: home } }), err.text()).toBe(0);
        return JSON.parse(out.text());
      };
      const report = await run(['cost', 'report', '--json', '--agent', 'auggie', '--no-cache']);
      const alone = codecUsageTotals(await readEvents(auggie, `${ROOT}${MAIN}.json`));
      expect(report).toMatchObject({ inputTokens: alone.input - alone.cached - 9000 - 450, cacheReadTokens: alone.cached, outputTokens: alone.output, requestCount: alone.responses });
      const rows = (await run(['sessions', 'list', 'auggie', '--json'])) as { sessionId: string }[];
      expect(rows.map((r) => r.sessionId)).toEqual([MAIN]);
      expect([...auggie.discoverSync!([dir])].map((f) => [f.path.slice(dir.length + 1), f.sessionId])).toEqual([
        [`${MAIN}.json`, MAIN],
        [`${MAIN}-backup1.json`, MAIN],
      ]);
      expect((await auggie.locate!([dir], MAIN))?.path).toBe(join(dir, `${MAIN}.json`));
    });
  });
});

describe('auggie forks', () => {
  it('a /fork session holding copies of its origin\u2019s turns counts each request once', async () => {
    await inTempDir(async (home) => {
      const dir = join(home, '.augment', 'sessions');
      await mkdir(dir, { recursive: true });
      const usage = (n: number) => ({ input_tokens: n, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      await writeFile(join(dir, 's1.json'), writerOrder([turn('r1', usage(100)), turn('r2', usage(200))], {}));
      const fork = JSON.parse(writerOrder([turn('r1', usage(100)), turn('r2', usage(200)), turn('r3', usage(400))], { title: 'Map the handlers (fork)' }));
      await writeFile(join(dir, 's2.json'), JSON.stringify({ ...fork, sessionId: 's2' }));
      const out = sink();
      expect(await runCli(['cost', 'report', '--json', '--agent', 'auggie', '--no-cache'], { stdout: out, stderr: sink(), env: { HOME: home } })).toBe(0);
      expect(JSON.parse(out.text())).toMatchObject({ inputTokens: 700, outputTokens: 3, requestCount: 3 });
    });
  });
});

describe('auggie discovery and roots', () => {
  it('$AUGMENT_CACHE_DIR moves the folder; else ~/.augment', () => {
    expect(getAuggieRoots({ HOME: '/h' })).toEqual(['/h/.augment/sessions']);
    expect(getAuggieRoots({ HOME: '/h', AUGMENT_CACHE_DIR: '~/aug' })).toEqual(['/h/aug/sessions']);
  });

  it('finds the *.json directly in a root, by the id its name gives', async () => {
    await inTempDir(async (dir) => {
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'a.json'), '{}');
      await writeFile(join(dir, 'sub', 'b.json'), '{}');
      await writeFile(join(dir, 'notes.txt'), '');
      expect((await discoverAll(auggie, [dir])).map((f) => f.sessionId)).toEqual(['a']);
    });
  });
});
