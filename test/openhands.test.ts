/**
 * The OpenHands CLI (`~/.openhands/conversations/<id>/base_state.json` with `events/`), over the conversations of
 * fixtures/openhands, written from the SDK's types (fixtures/openhands/README.md): golden events, token totals
 * checked by a deliberately simple second reader (every call of every usage id, plus what a sum holds beyond
 * its calls), the same events whatever the read buffer, resume with fingerprint cursors that follow the events
 * folder, torn and absurd records skipped and counted, discovery and roots, and the built CLI over a temporary
 * HOME (the conversations folder byte for byte unchanged). Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/openhands.test.ts`.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOpenHandsRoots, openHands } from '../codecs/openhands/index.js';
import { newReadInfo, type ReadCursor, type ResumeStart } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, SessionfoldEvent, ToolCallEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, expectChunkInvariant, randomCuts, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { inTempDir, treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const ROOT = new URL('../fixtures/openhands/conversations/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/openhands/', import.meta.url).pathname;
const IDS = (await readdir(ROOT)).sort();
const NEW = '3f9a1c2b7d4e4f60a1b2c3d4e5f60718';
const RESUMED = '8b2e4d6f1a3c4e5f9071a2b3c4d5e6f7';
const ACP = 'c41d2e3f4a5b4c6d8e9f0a1b2c3d4e5f';
const FIRST = 'd5e6f7a8b9c04d1e8f2a3b4c5d6e7f80';
const stateOf = (id: string, root = ROOT) => join(root, id, 'base_state.json');

type Json = Record<string, any>;
const TOKEN_KEYS = ['prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'];

/**
 * The simple second reader: every `token_usages` entry of every usage id (a usage id whose metrics repeat an
 * earlier one's exactly is the same object, once), plus the sum beyond them when it is above in every field;
 * a bare snapshot is its sum. Billed input is the prompt, plus whatever cache it cannot hold.
 */
function naiveTotals(text: string): UsageTotals {
  const t = emptyTotals();
  const add = (u: Json, n: number) => {
    const [p, c, r, w, reasoning] = TOKEN_KEYS.map((k) => u[k] ?? 0) as number[];
    t.input += r! + w! <= p! ? p! : r! <= p! ? p! + w! : p! + r! + w!;
    t.cached += r!;
    t.output += c!;
    t.reasoning += Math.min(reasoning!, c!);
    t.responses += n;
  };
  const stats = JSON.parse(text).stats ?? {};
  const seen = new Set<string>();
  for (const m of Object.values((stats.usage_to_metrics ?? stats.service_to_metrics ?? {}) as Record<string, Json>)) {
    if (seen.has(JSON.stringify(m))) continue;
    seen.add(JSON.stringify(m));
    const calls = (m.token_usages ?? []) as Json[];
    for (const u of calls) add(u, 1);
    const rest: Json = Object.fromEntries(TOKEN_KEYS.map((k) => [k, (m.accumulated_token_usage?.[k] ?? 0) - calls.reduce((a, u) => a + (u[k] ?? 0), 0)]));
    if (TOKEN_KEYS.every((k) => rest[k] >= 0) && TOKEN_KEYS.some((k) => rest[k] > 0)) add(rest, 1);
  }
  return t;
}

const usageOf = (events: readonly SessionfoldEvent[]) => byKind(events).usage as UsageEvent[];
const sessionsOf = (events: readonly SessionfoldEvent[]) => byKind(events).session as SessionEvent[];

/** A copy of one fixture conversation under `dir`, its state file's path. */
async function copyOf(dir: string, id: string): Promise<string> {
  await cp(join(ROOT, id), join(dir, id), { recursive: true });
  return stateOf(id, dir);
}

describe('openhands golden files', () => {
  it.each(IDS)('%s: a fresh read equals the checked-in events, with totals of the simple reader', async (id) => {
    const events = await readEvents(openHands, stateOf(id));
    await expectGolden(EXPECTED_DIR, id, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: id, nativeId: id });
    expect(codecUsageTotals(events)).toEqual(naiveTotals(await readFile(stateOf(id), 'utf8')));
  });

  it('the newest SDK: a call per usage event, caches out of the prompt, priced and dated by its cost record, after its first event', async () => {
    const events = await readEvents(openHands, stateOf(NEW));
    expect(usageOf(events).map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.offset, u.timestamp, u.dedupKey])).toEqual([
      ['anthropic/claude-sonnet-4-5-20250929', 1200, 0, 10800, 180, 40, 2, '2026-03-10T12:30:09.310Z', 'openhands:msg_01Aa'],
      ['anthropic/claude-sonnet-4-5-20250929', 450, 10800, 2250, 260, 0, 4, '2026-03-10T12:30:20.520Z', 'openhands:msg_02Bb'],
      ['anthropic/claude-haiku-4-5-20251001', 9000, 0, 0, 600, 0, 8, '2026-03-10T12:31:01.800Z', 'openhands:msg_c1Cc'],
      ['anthropic/claude-sonnet-4-5-20250929', 300, 13050, 850, 95, 12, 9, '2026-03-10T12:31:15.330Z', 'openhands:msg_03Dd'],
    ]);
    expect(usageOf(events).every((u) => u.singleRequest && u.modelFallback === undefined)).toBe(true);
    // the costs line up with the calls: each call carries its own
    expect(usageOf(events).map((u) => u.costUsd)).toEqual([0.0441, 0.0157, 0.012, 0.0093]);
    // the usage of a response follows the first event it made, before the next event
    const at = events.findIndex((e) => e.type === 'usage' && e.dedupKey === 'openhands:msg_02Bb');
    expect([events[at - 1]?.type, (events[at - 1] as ToolCallEvent).callId, (events[at + 1] as ToolCallEvent).callId]).toEqual(['tool_call', 'toolu_02', 'toolu_03']);
    // the events were written at UTC+2: the cost records place them
    expect(sessionsOf(events)[0]).toMatchObject({ cwd: '/home/dev/shop', title: 'Fix the failing cart test', startedAt: '2026-03-10T12:30:00.100Z', model: 'anthropic/claude-sonnet-4-5-20250929' });
    expect(sessionsOf(events)[0]?.usageUnknown).toBeUndefined();
    const messages = byKind(events).message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.subtype ?? null, m.timestamp])).toEqual([
      ['user', null, '2026-03-10T12:30:01.250Z'],
      ['assistant', null, '2026-03-10T12:30:09.480Z'],
      ['assistant', null, '2026-03-10T12:30:20.700Z'],
      ['system', 'compaction', '2026-03-10T12:31:02.000Z'],
      ['assistant', null, '2026-03-10T12:31:15.500Z'],
    ]);
    expect(messages[0]!.text).toBe('Run the tests and fix what fails — naïve totals ✓');
    expect(messages[1]).toMatchObject({ thinking: 'The user wants the failing tests fixed; start by running them.', model: 'anthropic/claude-sonnet-4-5-20250929' });
    expect((byKind(events).tool_call as ToolCallEvent[]).map((c) => [c.callId, c.name, c.input, c.messageId])).toEqual([
      ['toolu_01', 'terminal', { command: 'npm test' }, 'msg_01Aa'],
      ['toolu_02', 'file_editor', { command: 'str_replace', path: 'src/cart.ts', old_str: 'i < n - 1', new_str: 'i < n' }, 'msg_02Bb'],
      ['toolu_03', 'file_editor', { command: 'view', path: 'src/missing.ts' }, 'msg_02Bb'],
    ]);
    expect((byKind(events).tool_result as ToolResultEvent[]).map((r) => [r.callId, r.isError])).toEqual([
      ['toolu_01', false],
      ['toolu_02', false],
      ['toolu_03', true],
    ]);
  });

  it('a resume from a snapshot-era save: the lost calls once, as the sum beyond the calls; a bare snapshot as its sum', async () => {
    const events = await readEvents(openHands, stateOf(RESUMED));
    expect(usageOf(events).map((u) => [u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens, u.singleRequest, u.timestamp])).toEqual([
      [1904, 4096, 400, 128, true, '2026-02-15T10:00:07.250Z'],
      [5000, 3000, 900, 500, false, '2026-02-14T09:00:00.000Z'],
      [5000, 0, 300, 0, false, '2026-02-14T09:00:00.000Z'],
    ]);
    // no cost record prices or dates a call (a total is priced from its tokens): the zone-less times are read as UTC
    expect(usageOf(events).map((u) => u.costUsd)).toEqual([undefined, undefined, undefined]);
    expect(sessionsOf(events)[0]).toMatchObject({ startedAt: '2026-02-14T09:00:00.000Z' });
    expect(sessionsOf(events)[0]?.usageUnknown).toBeUndefined();
  });

  it('an ACP agent: input apart from its caches, turns keyed by the conversation, each tool call and result once', async () => {
    const events = await readEvents(openHands, stateOf(ACP));
    const usage = usageOf(events);
    expect(usage.map((u) => [u.model, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.timestamp])).toEqual([
      ['claude-opus-4-5', 3, 18000, 2200, 420, '2026-04-02T08:00:40.000Z'],
      ['claude-opus-4-5', 5, 20200, 150, 310, '2026-04-02T08:02:10.000Z'],
    ]);
    expect(usage.map((u) => u.dedupKey)).toEqual([`openhands:${ACP}:sess-9f8e7d6c#0`, `openhands:${ACP}:sess-9f8e7d6c#1`]);
    expect(byKind(events).tool_call).toHaveLength(1);
    expect(byKind(events).tool_result).toMatchObject([{ callId: 'toolu_acp_1', output: 'export function createApp() {}', isError: false }]);
  });

  it('the first releases: service_to_metrics, a Metrics saved under two usage ids once, an answer the state lacks: usage unknown', async () => {
    const events = await readEvents(openHands, stateOf(FIRST));
    expect(usageOf(events).map((u) => [u.model, u.inputTokens, u.cacheWriteTokens, u.dedupKey, u.timestamp])).toEqual([
      ['litellm_proxy/claude-sonnet-4-20250514', 200, 5000, 'openhands:chatcmpl-d1', '2025-11-20T13:15:07.500Z'],
    ]);
    expect(sessionsOf(events)[0]).toMatchObject({ usageUnknown: true, startedAt: '2025-11-20T13:15:00.000Z' });
    expect((byKind(events).tool_call as ToolCallEvent[]).map((c) => [c.name, c.input])).toEqual([
      ['execute_bash', { command: 'ls' }],
      ['execute_bash', { command: 'cat README.md' }],
    ]);
    expect(byKind(events).tool_result).toMatchObject([{ callId: 'call_d1', output: 'README.md\nsrc' }]);
  });

  it('a snapshot, or a sum beyond the calls, saved under two usage ids alike counts once', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, RESUMED);
      const state = JSON.parse(await readFile(file, 'utf8'));
      const metrics = state.stats.usage_to_metrics;
      metrics.title = metrics.condenser;
      metrics.critic = metrics.agent;
      await writeFile(file, JSON.stringify(state));
      expect(usageOf(await readEvents(openHands, file))).toEqual(usageOf(await readEvents(openHands, stateOf(RESUMED))));
    });
  });
});

describe('openhands buffers, kinds and resume', () => {
  it.each(IDS)('%s: same events (all kinds, and usage only) whatever the read buffer', async (id) => {
    const events = await expectChunkInvariant(openHands, stateOf(id));
    expect(await expectChunkInvariant(openHands, stateOf(id), { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it('a state written with a byte order mark, or as a JSON value that is no object: read as without it, or skipped and counted', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, NEW);
      const text = await readFile(file, 'utf8');
      await writeFile(file, `\ufeff${text}`);
      expect(await expectChunkInvariant(openHands, file)).toEqual(await readEvents(openHands, stateOf(NEW)));
      await writeFile(file, '[1, 2]');
      const info = newReadInfo();
      const events = await readEvents(openHands, file, { info });
      expect(info.skippedLines).toBe(1);
      expect((events[0] as SessionEvent).usageUnknown).toBe(true);
    });
  });

  it('a read of sessions and usage parses no event file without a response id; its events are the full read\u2019s', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, NEW);
      const full = await readEvents(openHands, file);
      // tear every event file that names no response (but the first, read for its time): only a read that parses them sees it
      const events = join(dir, NEW, 'events');
      let torn = 0;
      for (const n of (await readdir(events)).filter((x) => x.startsWith('event-')).sort().slice(1)) {
        const text = await readFile(join(events, n), 'utf8');
        if (text.includes('"llm_response_id"')) continue;
        await writeFile(join(events, n), text.slice(0, 30));
        torn++;
      }
      expect(torn).toBeGreaterThan(2);
      const info = newReadInfo();
      expect(await readEvents(openHands, file, { kinds: ['session', 'usage'], info })).toEqual(full.filter((e) => e.type === 'session' || e.type === 'usage'));
      expect(info.skippedLines).toBe(0);
      const all = newReadInfo();
      await readEvents(openHands, file, { info: all });
      expect(all.skippedLines).toBe(torn);
    });
  });

  it.each(IDS)('%s: resuming as the state is rewritten equals a full read, with fingerprint cursors', async (id) => {
    const content = await readFile(stateOf(id));
    const beside: Record<string, string> = {};
    for (const n of await readdir(join(ROOT, id, 'events'))) beside[join(id, 'events', n)] = await readFile(join(ROOT, id, 'events', n), 'utf8');
    const run = await resumeAcrossCuts(openHands, content, randomCuts(content.length, 10, 5), {}, join(id, 'base_state.json'), beside);
    expect(run.kept).toEqual(run.full);
    expect(run.cursors.every((c) => c.format === 'json')).toBe(true);
  });

  it('a cursor of an unchanged conversation reads nothing; an event written since (the state unchanged) reads it again', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, FIRST);
      const read = async (from?: ReadCursor) => {
        let cursor: ReadCursor | undefined;
        let start: ResumeStart | undefined;
        const events = await readEvents(openHands, file, { resume: { from, onStart: (s) => (start = s), onCursor: (u) => (cursor = u.cursor) } });
        return { events, cursor: cursor!, start: start! };
      };
      const first = await read();
      expect(first.start).toMatchObject({ restarted: true, reason: 'no-cursor' });
      const again = await read(JSON.parse(JSON.stringify(first.cursor)) as ReadCursor);
      expect([again.start.restarted, again.events]).toEqual([false, []]);
      const event = { id: 'e-5', timestamp: '2025-11-20T08:16:00.000000', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'And src?' }] }, kind: 'MessageEvent' };
      await writeFile(join(dir, FIRST, 'events', 'event-00004-00000000-0000-0000-0000-00000000d004.json'), JSON.stringify(event));
      const after = await read(again.cursor);
      expect(after.start).toMatchObject({ restarted: true, reason: 'prefix-changed' });
      expect((byKind(after.events).message as MessageEvent[]).at(-1)).toMatchObject({ text: 'And src?', offset: 4, timestamp: '2025-11-20T13:16:00.000Z' });
      expect(openHands.getParseDependencies(file)).toEqual([join(dir, FIRST, 'events')]);
    });
  });
});

describe('openhands bad records', () => {
  it('a torn event file is one skipped record; the rest is read', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, NEW);
      const torn = join(dir, NEW, 'events', 'event-00003-00000000-0000-0000-0000-00000000a003.json');
      await writeFile(torn, (await readFile(torn, 'utf8')).slice(0, 40));
      const info = newReadInfo();
      const events = await readEvents(openHands, file, { info });
      const full = await readEvents(openHands, stateOf(NEW));
      expect(info.skippedLines).toBe(1);
      expect(events).toEqual(full.filter((e) => !(e.type === 'tool_result' && e.callId === 'toolu_01')));
      await expect(readEvents(openHands, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('a state cut short is one skipped record: the conversation is read, its usage unknown', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, NEW);
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.slice(0, text.indexOf('"stats"')));
      const info = newReadInfo();
      const events = await readEvents(openHands, file, { info });
      expect(info.skippedLines).toBe(1);
      expect(usageOf(events)).toEqual([]);
      expect(byKind(events).message).toHaveLength(5);
      expect(sessionsOf(events)[0]).toMatchObject({ usageUnknown: true });
      await expect(readEvents(openHands, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    });
  });

  it('a call with an absurd count is refused, not read as 0: skipped and counted, the session a lower bound', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      const file = await copyOf(dir, NEW);
      const state = JSON.parse(await readFile(file, 'utf8'));
      state.stats.usage_to_metrics.agent.token_usages[1].completion_tokens = -260;
      await writeFile(file, JSON.stringify(state));
      const info = newReadInfo();
      const events = await readEvents(openHands, file, { info });
      expect(info.skippedLines).toBe(1);
      expect(usageOf(events).map((u) => u.dedupKey)).toEqual(['openhands:msg_01Aa', 'openhands:msg_c1Cc', 'openhands:msg_03Dd']);
      expect(sessionsOf(events)[0]).toMatchObject({ usageUnknown: true });
    });
  });
});

describe('openhands discovery and roots', () => {
  it('SESSIONFOLD_OPENHANDS_DIR, else $OPENHANDS_CONVERSATIONS_DIR, else $OPENHANDS_PERSISTENCE_DIR/conversations, else ~/.openhands/conversations', () => {
    // the web app's folder is the second root (test/openhands-app.test.ts)
    const app = '/h/.openhands/v1/events';
    expect(getOpenHandsRoots({ HOME: '/h' })).toEqual(['/h/.openhands/conversations', app]);
    expect(getOpenHandsRoots({ HOME: '/h', OPENHANDS_PERSISTENCE_DIR: '~/oh' })).toEqual(['/h/oh/conversations', app]);
    expect(getOpenHandsRoots({ HOME: '/h', OPENHANDS_PERSISTENCE_DIR: '/p', OPENHANDS_CONVERSATIONS_DIR: '~/c' })).toEqual(['/h/c', app]);
    expect(getOpenHandsRoots({ HOME: '/h', OPENHANDS_CONVERSATIONS_DIR: '/c', SESSIONFOLD_OPENHANDS_DIR: '/a,/b' })).toEqual(['/a', '/b']);
  });

  it('finds the conversation folders holding a state, not a sub-agent task\u2019s folder inside one', async () => {
    await inTempDir('sf-openhands-', async (dir) => {
      await copyOf(dir, NEW);
      await cp(join(ROOT, ACP), join(dir, NEW, 'subagents', ACP), { recursive: true });
      await mkdir(join(dir, 'no-state', 'events'), { recursive: true });
      await writeFile(join(dir, 'notes.json'), '{}');
      expect((await discoverAll(openHands, [dir, dir])).map((f) => [f.sessionId, f.path])).toEqual([[NEW, stateOf(NEW, dir)]]);
      expect(await openHands.locate!([dir], NEW)).toMatchObject({ sessionId: NEW });
    });
  });

  it('detects a conversation state by its name and head; resumes with openhands --resume', async () => {
    expect(openHands.detect!(stateOf(NEW), await readFile(stateOf(NEW)))).toBe(2);
    expect(openHands.detect!(stateOf(FIRST), await readFile(stateOf(FIRST)))).toBe(2);
    expect(openHands.detect!(join(ROOT, NEW, 'events', 'x.json'), await readFile(stateOf(NEW)))).toBe(0);
    expect(openHands.resumeCommand!(NEW)).toEqual(['openhands', '--resume', NEW]);
  });
});

describe('sessionfold CLI over an OpenHands tree', () => {
  let home: string;
  let before: string[];
  const conversations = () => join(home, '.openhands', 'conversations');
  const trees = (): Promise<string[]> => treeListing(join(home, '.openhands'));
  const cli = agentCli(() => home, trees, () => before);

  beforeAll(async () => {
    await buildIfStale(['openhands']);
    home = await mkdtemp(join(tmpdir(), 'sf-openhands-cli-'));
    await cp(ROOT, conversations(), { recursive: true });
    before = await trees();
  }, 300_000);

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('cost report --json --agent openhands has the golden tokens, each call once', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'openhands'])) as AgentRow;
    expectGoldenRow(report, 'openhands', await goldenUsage(IDS.map((id) => join(EXPECTED_DIR, `${id}.events.jsonl`))));
    const simple = emptyTotals();
    for (const id of IDS) for (const [k, v] of Object.entries(naiveTotals(await readFile(stateOf(id), 'utf8')))) simple[k as keyof UsageTotals] += v;
    expect(report.inputTokens + report.cacheReadTokens + report.cacheWriteTokens).toBe(simple.input);
    expect([report.cacheReadTokens, report.outputTokens, report.requestCount]).toEqual([simple.cached, simple.output, simple.responses]);
  });

  it('sessions list and show read the conversations; the one whose state lacks an answer is unknown', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'openhands', '--json'])) as { sessionId: string; cwd?: string; usageUnknown?: boolean }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(IDS);
    expect(list.filter((s) => s.usageUnknown === true).map((s) => s.sessionId)).toEqual([FIRST]);
    const got = await cli(['sessions', 'show', 'openhands', NEW]);
    expect(got).toContain('Run the tests and fix what fails');
  });

  it('an event written after the state (the state unchanged) is read on a warm cache', async () => {
    const event = { id: 'e-10', timestamp: '2026-03-10T14:32:00.000000', source: 'agent', thought: [{ type: 'text', text: 'One more check.' }], tool_name: 'terminal', tool_call_id: 'toolu_09', tool_call: { id: 'toolu_09', name: 'terminal', arguments: '{"command": "npm test"}' }, llm_response_id: 'msg_09Zz', kind: 'ActionEvent' };
    const unknown = async () => (JSON.parse(await cli(['sessions', 'list', 'openhands', '--json'])) as { sessionId: string; usageUnknown?: boolean }[]).filter((s) => s.usageUnknown === true).map((s) => s.sessionId).sort();
    expect(await unknown()).toEqual([FIRST]);
    await writeFile(join(conversations(), NEW, 'events', 'event-00010-00000000-0000-0000-0000-00000000a00a.json'), JSON.stringify(event));
    before = await trees();
    // its response is in no list of the saved stats: the conversation's usage is now a lower bound
    expect(await unknown()).toEqual([NEW, FIRST].sort());
  });
});
