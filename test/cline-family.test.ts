/**
 * The Cline family (Cline, Roo Code, Kilo Code) over fixtures/<agent>/tasks/<id>/, shaped as each codec's
 * README cites: golden events, token totals by a deliberately simple second reader, the same events whatever
 * the read buffer, a growing document resumed from its fingerprint cursor equal to a full read, an unchanged
 * task not parsed again, the edge cases (placeholder, malformed and absurd requests, a cancelled request, a
 * task without usage), the tokensIn rule per flavor, and the roots. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/cline-family.test.ts`.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cline, EDITORS, getClineRoots, globalStorageDirs, uncachedInput } from '../codecs/cline/index.js';
import { getKiloRoots, kilo, KILO_INCLUSIVE_SINCE } from '../codecs/kilo/index.js';
import { getRooRoots, roo, ROO_INCLUSIVE_SINCE } from '../codecs/roo/index.js';
import type { Codec, ReadCursor } from '../cursors/protocol/codec.js';
import { detectCodec } from '../src/registry.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, randomCuts, readEvents } from './helpers/codec-harness.js';
import { walkElements } from '../codecs/cline/walk.js';
import { expectGolden } from './helpers/golden.js';
import { foldCost } from '../src/cost/fold.js';
import { NO_OVERRIDES } from '../src/cost/overrides.js';
import { createPricer } from '../src/cost/pricing.js';
import { asRecords } from '../src/scan/types.js';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const CODECS: Record<'cline' | 'roo' | 'kilo', { codec: Codec; since: number | undefined }> = {
  cline: { codec: cline, since: undefined },
  roo: { codec: roo, since: ROO_INCLUSIVE_SINCE },
  kilo: { codec: kilo, since: KILO_INCLUSIVE_SINCE },
};
type Agent = keyof typeof CODECS;
const TASKS: [Agent, string][] = [];
// Task folders only: Roo Code keeps its history index, `_index.json`, beside them.
for (const agent of Object.keys(CODECS) as Agent[]) for (const e of (await readdir(join(FIXTURES, agent, 'tasks'), { withFileTypes: true })).filter((e) => e.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) TASKS.push([agent, e.name]);
const uiOf = (agent: Agent, id: string) => join(FIXTURES, agent, 'tasks', id, 'ui_messages.json');

interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  calls: number;
}

/**
 * The simple second reader: JSON.parse the whole `ui_messages.json`; each `api_req_finished` merged over the
 * `api_req_started` before it (Claude Dev); every `say` `api_req_started`,
 * `deleted_api_reqs`, `api_req_deleted` or `subagent_usage` whose text parses and whose four counts are whole non-negative numbers and not all zero;
 * for Roo Code and Kilo Code, `tokensIn` less the cache when it is at least the cache and the request is an
 * OpenAI-protocol one or dated from the release on; a `condense_context` with a cost above 0 is a call of that
 * cost and no tokens; for Kilo Code, an `ask` `tool` with a `fastApplyResult` is a call of its counts.
 */
function naiveTotals(text: string, since: number | undefined, fastApply: boolean): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, calls: 0 };
  const messages = JSON.parse(text) as any[];
  let started: any;
  for (const m of messages) {
    if (m.type === 'say' && m.say === 'api_req_started') started = m;
    else if (m.type === 'say' && m.say === 'api_req_finished' && started !== undefined) {
      started.text = JSON.stringify({ ...JSON.parse(started.text || '{}'), ...JSON.parse(m.text || '{}') });
      started = undefined;
    }
  }
  for (const m of messages) {
    const fa = fastApply && m.type === 'ask' && m.ask === 'tool' ? JSON.parse(m.text).fastApplyResult : undefined;
    if (fa !== undefined) {
      t.input += fa.tokensIn ?? 0;
      t.output += fa.tokensOut ?? 0;
      t.cost += fa.cost > 0 ? fa.cost : 0;
      t.calls++;
      continue;
    }
    if (m.type === 'say' && m.say === 'condense_context' && m.contextCondense?.cost > 0) {
      t.cost += m.contextCondense.cost;
      t.calls++;
      continue;
    }
    if (m.type !== 'say' || !['api_req_started', 'deleted_api_reqs', 'api_req_deleted', 'subagent_usage'].includes(m.say)) continue;
    let r: any;
    try {
      r = JSON.parse(m.text);
    } catch {
      continue;
    }
    const n = [r.tokensIn, r.tokensOut, r.cacheReads, r.cacheWrites].map((v) => (v === undefined ? 0 : v));
    if (n.some((v) => !Number.isInteger(v) || v < 0) || n.every((v) => v === 0)) continue;
    const [tin, out, read, write] = n as [number, number, number, number];
    const inclusive = since !== undefined && tin >= read + write && (m.ts >= since || r.apiProtocol === 'openai');
    t.input += inclusive ? tin - read - write : tin;
    t.output += out;
    t.cacheRead += read;
    t.cacheWrite += write;
    t.cost += r.cost > 0 ? r.cost : 0;
    t.calls++;
  }
  return t;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, calls: 0 };
  for (const u of events.filter((e): e is UsageEvent => e.type === 'usage')) {
    t.input += u.inputTokens;
    t.output += u.outputTokens;
    t.cacheRead += u.cacheReadTokens;
    t.cacheWrite += u.cacheWriteTokens;
    t.cost += u.costUsd ?? 0;
    t.calls++;
  }
  return t;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-cline-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Cline family golden files', () => {
  it('has fixtures for every agent, with usage and without', () => {
    for (const agent of Object.keys(CODECS)) expect(TASKS.filter(([a]) => a === agent).length, agent).toBeGreaterThanOrEqual(2);
  });

  it.each(TASKS)('%s %s: a fresh read equals the checked-in events', async (agent, id) => {
    const events = await readEvents(CODECS[agent].codec, uiOf(agent, id));
    expect(events[0]).toMatchObject({ type: 'session', agent, sessionId: id, nativeId: id });
    await expectGolden(join(FIXTURES, 'expected', agent), id, events);
  });

  it.each(TASKS)('%s %s: golden token totals agree with a deliberately simple second reader', async (agent, id) => {
    const golden = (await readFile(join(FIXTURES, 'expected', agent, `${id}.events.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const mine = codecTotals(golden);
    const simple = naiveTotals(await readFile(uiOf(agent, id), 'utf8'), CODECS[agent].since, agent === 'kilo');
    expect({ ...mine, cost: mine.cost.toFixed(6) }).toEqual({ ...simple, cost: simple.cost.toFixed(6) });
  });
});

describe('Cline family edge cases', () => {
  it('cline: a cancelled request counts, a placeholder does not, a malformed text is one skipped record', async () => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const k = byKind(await readEvents(cline, uiOf('cline', '1767225600000'), { info }));
    expect(info.skippedLines).toBe(1);
    expect(k.usage.map((u: any) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.model, u.provider])).toEqual([
      [12, 180, 0, 9876, 'claude-sonnet-4-5-20250929', 'anthropic'],
      [25, 240, 9876, 1200, 'claude-sonnet-4-5-20250929', 'anthropic'],
      [8, 40, 11076, 0, 'claude-sonnet-4-5-20250929', 'anthropic'],
      [30, 320, 11076, 800, 'claude-sonnet-4-5-20250929', 'anthropic'],
    ]);
    expect(k.session[0]).toMatchObject({ title: 'Add a --verbose flag to the CLI', cwd: '/home/dev/proj', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(k.message.map((m: any) => [m.role, m.text || m.thinking])).toEqual([
      ['user', 'Add a --verbose flag to the CLI\nIt should print each step.'],
      ['assistant', 'The flag belongs in src/cli.ts; read it first.'],
      ['assistant', 'Let me look at the entry point.'],
      ['user', 'Use the existing logger instead.'],
      ['system', '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
      ['assistant', 'Added --verbose; it logs each step through the existing logger.'],
    ]);
    expect(k.tool_call.map((c: any) => c.name)).toEqual(['readFile', 'execute_command', 'mcp__github__search_issues']);
    expect(k.tool_result.map((r: any) => [r.toolName, r.output])).toEqual([['execute_command', 'PASS src/cli.test.ts\nTests: 4 passed'], ['mcp__github__search_issues', '[]']]);
    await expect(readEvents(cline, uiOf('cline', '1767225600000'), { strict: true })).rejects.toThrow(/api_req_started/);
  });

  it('cline: without modelInfo the model comes from task_metadata model_usage; deleted requests count once', async () => {
    const usage = (byKind(await readEvents(cline, uiOf('cline', '1767312000000'))).usage as UsageEvent[]).filter((u) => !u.dedupKey.endsWith(':subagents'));
    expect(usage.map((u) => [u.model, u.singleRequest, u.inputTokens])).toEqual([
      ['claude-sonnet-4-5-20250929', true, 9],
      ['claude-sonnet-4-5-20250929', false, 40],
      ['claude-haiku-4-5-20251001', true, 11],
    ]);
  });

  it('cline: a subagent_usage counts once, as a span of its subagents\' requests, with no model; a zero or broken one does not', async () => {
    const file = uiOf('cline', '1767312000000');
    const usage = byKind(await readEvents(cline, file)).usage as UsageEvent[];
    expect(usage.filter((u) => u.dedupKey.endsWith(':subagents'))).toEqual([
      expect.objectContaining({ inputTokens: 1800, outputTokens: 620, cacheReadTokens: 20400, cacheWriteTokens: 5200, costUsd: 0.0312, model: 'unknown', modelFallback: true, singleRequest: false, timestamp: '2026-01-02T00:00:05.500Z', dedupKey: 'cline:1767312000000:1767312005500:subagents' }),
    ]);
    // The subagents' batch is neither a request of the parent nor its model's bound: the parent's requests are as before.
    expect(usage.filter((u) => !u.dedupKey.endsWith(':subagents')).map((u) => u.dedupKey)).toEqual(['cline:1767312000000:1767312001000', 'cline:1767312000000:1767312006000', 'cline:1767312000000:1767312007000']);
    const summary = await foldCost(asRecords(usage, file, undefined), { pricer: createPricer({ mode: 'auto', overrides: NO_OVERRIDES }), timeZone: 'UTC' });
    expect(summary.totalUsd).toBeCloseTo(0.0285 + 0.0312 + 0.0231 + 0.0046, 9);
    const task = join(dir, 'subagents', 'tasks', 'zero');
    await mkdir(task, { recursive: true });
    const ui = JSON.parse(await readFile(file, 'utf8')) as any[];
    const at = ui.findIndex((m) => m.say === 'subagent_usage');
    // Subagents that failed before any request sum to zero; a text cut off is one skipped record.
    ui.splice(at, 1, { ...ui[at], text: JSON.stringify({ source: 'subagents', tokensIn: 0, tokensOut: 0, cacheWrites: 0, cacheReads: 0, cost: 0 }) }, { ...ui[at], ts: ui[at].ts + 1, text: '{"source":"subagents","tokensIn":18' });
    await writeFile(join(task, 'ui_messages.json'), JSON.stringify(ui));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const again = byKind(await readEvents(cline, join(task, 'ui_messages.json'), { info })).usage as UsageEvent[];
    expect(again.filter((u) => u.dedupKey.endsWith(':subagents'))).toEqual([]);
    expect(again).toHaveLength(3);
    expect(info.skippedLines).toBe(1);
  });

  it('cline: Claude Dev\'s api_req_finished completes the request before it; a finished without one is dropped', async () => {
    const file = uiOf('cline', '1722000000000');
    const usage = byKind(await readEvents(cline, file)).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.costUsd, u.singleRequest, u.timestamp, u.dedupKey])).toEqual([
      [2310, 412, 0, 0, 0.01311, true, '2024-07-26T13:20:01.000Z', 'cline:1722000000000:1722000001000'],
      [3120, 655, 0, 0, 0.019185, true, '2024-07-26T13:20:09.000Z', 'cline:1722000000000:1722000009000'],
    ]);
    const task = join(dir, 'finished', 'tasks', 'stray');
    await mkdir(task, { recursive: true });
    const ui = JSON.parse(await readFile(file, 'utf8')) as any[];
    // A second finished for one request, and one before any request: Cline's combineApiRequests merges neither.
    ui.splice(3, 0, { ...ui[2], ts: ui[2].ts + 50 });
    ui.splice(1, 0, { ...ui[2], ts: ui[0].ts + 10 });
    await writeFile(join(task, 'ui_messages.json'), JSON.stringify(ui));
    const again = byKind(await readEvents(cline, join(task, 'ui_messages.json'))).usage as UsageEvent[];
    expect(again.map((u) => [u.inputTokens, u.outputTokens])).toEqual([[2310, 412], [3120, 655]]);
  });

  it('a task without usage has a session and messages but no usage', async () => {
    const k = byKind(await readEvents(cline, uiOf('cline', '1767398400000')));
    expect(k.usage).toEqual([]);
    expect(k.message.map((m: any) => m.role)).toEqual(['user', 'system']);
    expect(byKind(await readEvents(kilo, uiOf('kilo', '019af6a7-0000-7000-8000-000000000001'))).usage).toEqual([]);
  });

  it('roo: tokensIn before 3.29.5 is uncached for Anthropic and whole for OpenAI; after it, whole; model from the prompt', async () => {
    const before = byKind(await readEvents(roo, uiOf('roo', '0199f2a0-7c1e-7b2a-9d3e-5a1b2c3d4e5f'))).usage as UsageEvent[];
    expect(before.map((u) => [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.model])).toEqual([
      [20, 0, 12000, 'anthropic/claude-sonnet-4.5'],
      [3000, 12000, 0, 'gpt-5-mini'],
    ]);
    const after = byKind(await readEvents(roo, uiOf('roo', '019ad6e0-1f00-7a00-8b00-0c0d0e0f1011'))).usage as UsageEvent[];
    expect(after.map((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.model])).toEqual([
      [30, 400, 0, 12500, 'claude-sonnet-4-5'],
      [40, 60, 12500, 0, 'claude-sonnet-4-5'],
    ]);
    const s = byKind(await readEvents(roo, uiOf('roo', '0199f2a0-7c1e-7b2a-9d3e-5a1b2c3d4e5f'))).session[0];
    expect(s).toMatchObject({ title: 'Make the header sticky', cwd: '/home/dev/site' });
  });

  it('roo: a checkpoint restore\'s api_req_deleted counts once, as a span of the requests it deleted', async () => {
    const usage = (byKind(await readEvents(roo, uiOf('roo', '019af3c0-0000-7000-8000-0000000000d1'))).usage as UsageEvent[]).filter((u) => !u.dedupKey.endsWith(':condense'));
    expect(usage.map((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.costUsd, u.singleRequest, u.dedupKey])).toEqual([
      [40, 220, 0, 9000, 0.0371, true, 'roo:019af3c0-0000-7000-8000-0000000000d1:1765000001000'],
      [100, 540, 17900, 600, 0.0165, false, 'roo:019af3c0-0000-7000-8000-0000000000d1:1765000009000'],
      [30, 300, 9000, 350, 0.009, true, 'roo:019af3c0-0000-7000-8000-0000000000d1:1765000011000'],
    ]);
  });

  it('roo: a context condensation is a usage of its own with its cost and no tokens, and the cost fold counts it', async () => {
    const file = uiOf('roo', '019af3c0-0000-7000-8000-0000000000d1');
    const usage = byKind(await readEvents(roo, file)).usage as UsageEvent[];
    const condense = usage.filter((u) => u.dedupKey.endsWith(':condense'));
    expect(condense).toEqual([
      expect.objectContaining({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0123, model: 'unknown', modelFallback: true, timestamp: '2025-12-06T05:46:50.500Z', dedupKey: 'roo:019af3c0-0000-7000-8000-0000000000d1:1765000010500:condense' }),
    ]);
    const summary = await foldCost(asRecords(usage, file, undefined), { pricer: createPricer({ mode: 'auto', overrides: NO_OVERRIDES }), timeZone: 'UTC' });
    expect(summary.requestCount).toBe(4);
    expect(summary.totalUsd).toBeCloseTo(0.0371 + 0.0165 + 0.0123 + 0.009, 9);
  });

  it('kilo: a fast apply is a usage of its own, keyed by its message; only Kilo Code reads it', async () => {
    const file = uiOf('kilo', '019af9d0-0000-7000-8000-0000000000fa');
    const usage = byKind(await readEvents(kilo, file)).usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.costUsd, u.model, u.dedupKey])).toEqual([
      [1830, 1650, 0, 0.004782, 'morph/morph-v3-large', 'kilo:019af9d0-0000-7000-8000-0000000000fa:1765100004000:fastApply'],
      [400, 310, 4800, 0.0041, 'anthropic/claude-sonnet-4.5', 'kilo:019af9d0-0000-7000-8000-0000000000fa:1765100001000'],
      [400, 120, 5200, 0.0019, 'anthropic/claude-sonnet-4.5', 'kilo:019af9d0-0000-7000-8000-0000000000fa:1765100006000'],
    ]);
    // Read again (a rewrite of the task), the fast apply keeps its key: the folds count it once.
    expect((byKind(await readEvents(kilo, file)).usage as UsageEvent[]).map((u) => u.dedupKey)).toEqual(usage.map((u) => u.dedupKey));
    expect((byKind(await readEvents(roo, file)).usage as UsageEvent[]).map((u) => u.dedupKey).filter((k) => k.endsWith(':fastApply'))).toEqual([]);
  });

  it('kilo: an absurd count refuses its record; the rule of each flavor', async () => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const usage = byKind(await readEvents(kilo, uiOf('kilo', '019af0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b'), { info })).usage as UsageEvent[];
    expect(info.skippedLines).toBe(1);
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.model])).toEqual([
      [2200, 6000, 'z-ai/glm-4.6'],
      [1100, 8200, 'z-ai/glm-4.6'],
    ]);
    const flavor = (since?: number) => ({ id: 'x', metadataModels: false, ...(since !== undefined && { inclusiveSince: since }) });
    expect(uncachedInput(flavor(), 2e12, 500, 100, 'openai')).toBe(500);
    expect(uncachedInput(flavor(1000), 2000, 50, 100, 'anthropic')).toBe(50);
    expect(uncachedInput(flavor(1000), 500, 500, 100, undefined)).toBe(500);
    expect(uncachedInput(flavor(1000), 500, 500, 100, 'openai')).toBe(400);
    expect(uncachedInput(flavor(1000), 2000, 500, 100, 'anthropic')).toBe(400);
  });
});

describe("Roo Code's history_item.json", () => {
  const ID = '0199f2a0-7c1e-7b2a-9d3e-5a1b2c3d4e5f';
  /** A copy of a Roo Code task whose prompt names /home/dev/site, with `item` as its history_item.json (none: undefined). */
  async function taskWith(name: string, item: string | undefined): Promise<string> {
    const task = join(dir, 'history-item', name, 'tasks', ID);
    await cp(join(FIXTURES, 'roo', 'tasks', ID), task, { recursive: true });
    if (item !== undefined) await writeFile(join(task, 'history_item.json'), item);
    return join(task, 'ui_messages.json');
  }
  // Shaped as Roo Code's taskMetadata() writes a HistoryItem; `title` as packages/types/src/history.ts declares it.
  const item = (extra: object) => JSON.stringify({ id: ID, number: 1, ts: 1760000009000, task: 'Make the header sticky', tokensIn: 15020, tokensOut: 900, cacheWrites: 12000, cacheReads: 12000, totalCost: 0.06, size: 20480, workspace: '/home/dev/elsewhere', mode: 'code', ...extra });

  it('roo: the work dir is its workspace and the title its title, before the prompt\'s; its token totals are not usage', async () => {
    const plain = await readEvents(roo, await taskWith('none', undefined));
    expect(byKind(plain).session[0]).toMatchObject({ cwd: '/home/dev/site', title: 'Make the header sticky' });
    const withItem = await readEvents(roo, await taskWith('item', item({ title: 'Sticky header\nsecond line' })));
    expect(byKind(withItem).session[0]).toMatchObject({ cwd: '/home/dev/elsewhere', title: 'Sticky header' });
    // The item's totals are sums over ui_messages.json: the usage is the same event for event.
    expect(byKind(withItem).usage).toEqual(byKind(plain).usage);
    expect(byKind(await readEvents(roo, await taskWith('untitled', item({}))))).toMatchObject({ session: [{ cwd: '/home/dev/elsewhere', title: 'Make the header sticky' }] });
  });

  it('roo: a blank, broken or other history_item.json leaves the prompt\'s work dir, and is no skipped record', async () => {
    for (const [name, text] of [['blank', item({ workspace: '  ' })], ['cut', item({}).slice(0, 60)], ['array', '[]'], ['empty', '']] as const) {
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const k = byKind(await readEvents(roo, await taskWith(name, text), { info }));
      expect([(k.session[0] as SessionEvent | undefined)?.cwd, info.skippedLines], name).toEqual(['/home/dev/site', 0]);
    }
    // Only the top level names the task: a nested workspace is not it.
    const nested = byKind(await readEvents(roo, await taskWith('nested', JSON.stringify({ id: ID, meta: { workspace: '/nested' }, ts: 1 }))));
    expect((nested.session[0] as SessionEvent | undefined)?.cwd).toBe('/home/dev/site');
  });

  it('roo: a subtask (new_task) is a subagent of the parent its item names, one level down when that is the root', async () => {
    const PARENT = '019c5dc9-4f00-7a41-8b52-6c7d8e9f0a1b';
    const CHILD = '019c5dc9-5ea0-7c63-9d74-0e1f2a3b4c5d';
    const [parent, child] = [byKind(await readEvents(roo, uiOf('roo', PARENT))), byKind(await readEvents(roo, uiOf('roo', CHILD)))];
    expect(child.session[0]).toMatchObject({ forkedFrom: PARENT, subagent: true, spawnDepth: 1 });
    for (const key of ['forkedFrom', 'subagent', 'spawnDepth']) expect(parent.session[0], key).not.toHaveProperty(key);
    // Each task's usage is its own requests: the parent's newTask call and subtask_result carry none of the child's,
    // so each equals the totals Roo Code's taskMetadata() wrote into its own history_item.json.
    for (const [id, k] of [[PARENT, parent], [CHILD, child]] as const) {
      const u = k.usage as UsageEvent[];
      const own = JSON.parse(await readFile(join(FIXTURES, 'roo', 'tasks', id, 'history_item.json'), 'utf8')) as Record<string, number>;
      const sum = (f: (e: UsageEvent) => number) => u.reduce((a, e) => a + f(e), 0);
      expect(u.every((e) => e.dedupKey.startsWith(`roo:${id}:`)), id).toBe(true);
      expect([sum((e) => e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens), sum((e) => e.outputTokens), sum((e) => e.cacheWriteTokens), sum((e) => e.cacheReadTokens), Math.round(sum((e) => e.costUsd ?? 0) * 1e6) / 1e6], id).toEqual([own.tokensIn, own.tokensOut, own.cacheWrites, own.cacheReads, own.totalCost]);
    }
    // The delegation flow writes the child's tokens and cost into the parent's todo row (system_update_todos,
    // ClineProvider.reopenParentFromDelegation.writeback.spec.ts): a copy for display, never usage.
    const copy = join(dir, 'subtask-writeback', 'tasks', PARENT);
    await cp(join(FIXTURES, 'roo', 'tasks', PARENT), copy, { recursive: true });
    const ui = JSON.parse(await readFile(join(copy, 'ui_messages.json'), 'utf8')) as object[];
    const todos = { tool: 'updateTodoList', todos: [{ id: 't1', content: 'Write the test', status: 'completed', subtaskId: CHILD, tokens: 26200, cost: 0.0573, added: 12, removed: 0 }] };
    ui.splice(4, 0, { ts: 1771100009500, type: 'say', say: 'system_update_todos', text: JSON.stringify(todos) });
    await writeFile(join(copy, 'ui_messages.json'), JSON.stringify(ui));
    const unplaced = (u: readonly SessionfoldEvent[]) => u.map((e) => ({ ...e, offset: 0 })); // one message more moves the offsets
    expect(unplaced(byKind(await readEvents(roo, join(copy, 'ui_messages.json'))).usage)).toEqual(unplaced(parent.usage));
    // A subtask's own flag changes nothing the cost fold counts: the parent's usage read with and without it is the same.
    const alone = await readEvents(roo, await taskWith('subtask-usage', item({ parentTaskId: 'p-1', rootTaskId: 'p-1' })));
    expect(byKind(alone).usage).toEqual(byKind(await readEvents(roo, await taskWith('root-usage', item({})))).usage);
  });

  it('roo: a subtask deeper than one level says no depth; an item naming no parent, or the task itself, is no subtask', async () => {
    const session = async (name: string, extra: object) => byKind(await readEvents(roo, await taskWith(name, item(extra)))).session[0] as SessionEvent;
    expect(await session('grandchild', { rootTaskId: 'root-1', parentTaskId: 'mid-1' })).toMatchObject({ forkedFrom: 'mid-1', subagent: true });
    expect((await session('grandchild-depth', { rootTaskId: 'root-1', parentTaskId: 'mid-1' })).spawnDepth).toBeUndefined();
    // The delegation flow may leave rootTaskId unset: a child still, its depth unknown.
    expect(await session('no-root', { parentTaskId: 'p-1' })).toMatchObject({ forkedFrom: 'p-1', subagent: true });
    expect((await session('no-root-depth', { parentTaskId: 'p-1' })).spawnDepth).toBeUndefined();
    for (const [name, extra] of [['own-id', { parentTaskId: ID, rootTaskId: ID }], ['blank', { parentTaskId: ' ' }], ['number', { parentTaskId: 7 }], ['root-only', { rootTaskId: 'root-1' }]] as const) {
      const s = await session(name, extra);
      expect([s.forkedFrom, s.subagent, s.spawnDepth], name).toEqual([undefined, undefined, undefined]);
    }
  });

  it('only Roo Code reads it: Cline and Kilo Code write no history_item.json', async () => {
    const file = await taskWith('others', item({ title: 'Sticky header', parentTaskId: 'p-1', rootTaskId: 'p-1' }));
    for (const codec of [cline, kilo]) expect(byKind(await readEvents(codec, file)).session[0], codec.id).toMatchObject({ cwd: '/home/dev/site', title: 'Make the header sticky' });
    for (const codec of [cline, kilo]) expect(byKind(await readEvents(codec, file)).session[0], codec.id).not.toHaveProperty('forkedFrom');
    expect(roo.getParseDependencies(file)).toContain(join(dirname(file), 'history_item.json'));
    for (const codec of [cline, kilo]) expect(codec.getParseDependencies(file), codec.id).not.toContain(join(dirname(file), 'history_item.json'));
  });
});

describe("Roo Code's {version: 2, messages} prompt history", () => {
  const ID = '019c5114-2280-7c3a-9e1f-4b6d2a8c0f35';
  const models = (events: readonly SessionfoldEvent[]) => (byKind(events).usage as UsageEvent[]).map((u) => [u.model, u.modelFallback]);

  it('roo: each request\'s model and the work dir come from the envelope\'s user messages, as from a bare array', async () => {
    const envelope = await readEvents(roo, uiOf('roo', ID));
    expect(models(envelope)).toEqual([['claude-sonnet-4-5', undefined], ['claude-sonnet-4-5', undefined], ['claude-haiku-4-5', undefined]]);
    const task = join(dir, 'envelope', 'tasks', ID);
    await cp(join(FIXTURES, 'roo', 'tasks', ID), task, { recursive: true });
    const history = join(task, 'api_conversation_history.json');
    const { version, messages } = JSON.parse(await readFile(history, 'utf8')) as { version: number; messages: unknown[] };
    expect(version).toBe(2);
    // Without the history item, the work dir is the envelope's first prompt's.
    await rm(join(task, 'history_item.json'));
    expect(byKind(await readEvents(roo, join(task, 'ui_messages.json'))).session[0]).toMatchObject({ cwd: '/home/dev/shop' });
    // The same messages as a bare array (how Roo Code wrote them before and after the envelope) read the same.
    await writeFile(history, JSON.stringify(messages));
    expect(byKind(await readEvents(roo, join(task, 'ui_messages.json'))).usage).toEqual(byKind(envelope).usage);
    // messages written after version, beside keys of other shapes, are found the same.
    await writeFile(history, JSON.stringify({ note: { messages: [] }, tags: [['x']], messages, version: 2 }));
    expect(byKind(await readEvents(roo, join(task, 'ui_messages.json'))).usage).toEqual(byKind(envelope).usage);
  });

  it('only Roo Code reads the envelope: Cline and Kilo Code write a bare array', async () => {
    for (const codec of [cline, kilo]) expect(models(await readEvents(codec, uiOf('roo', ID))).map(([m]) => m), codec.id).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('walks an envelope\'s messages, or a bare array, the same whatever the chunk size; anything else gives none', () => {
    const msgs = [{ role: 'user', content: [{ type: 'text', text: 'é\r\n<model>m</model>' }], ts: 1 }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read_file', output: { type: 'text', value: '[1]' } }] }];
    const walk = (text: string, size: number) => {
      const bytes = Buffer.from(text);
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      const out: unknown[] = [];
      const got: unknown[] = [];
      for (const _ of walkElements(chunks, 'messages', out, true)) got.push(...out.splice(0));
      return got;
    };
    for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
      expect(walk(JSON.stringify({ version: 2, messages: msgs }), size), `envelope, ${size}`).toEqual(msgs);
      expect(walk(JSON.stringify(msgs), size), `array, ${size}`).toEqual(msgs);
      expect(walk(JSON.stringify({ version: 2, messages: 'none', other: msgs }), size), `no messages array, ${size}`).toEqual([]);
    }
    expect(() => walk('"text"', 4)).toThrow(/not a JSON object/);
  });
});

describe('Cline family shapes the fixtures do not show', () => {
  it('browser tools and their results, a request without text, an empty task, a broken document', async () => {
    const task = join(dir, 'shapes', 'tasks', 'browser-task');
    await mkdir(task, { recursive: true });
    const file = join(task, 'ui_messages.json');
    const ui = [
      { ts: 1767225600000, type: 'say', say: 'task', text: 'Check the login page' },
      { ts: 1767225601000, type: 'say', say: 'api_req_started' },
      { ts: 1767225602000, type: 'ask', ask: 'browser_action_launch', text: 'http://localhost:3000/login' },
      { ts: 1767225603000, type: 'say', say: 'browser_action_result', text: '{"logs":"","currentUrl":"http://localhost:3000/login"}' },
      { ts: 1767225604000, type: 'say', say: 'browser_action', text: '{"action":"click","coordinate":"450,300"}' },
    ];
    await writeFile(file, JSON.stringify(ui, null, 2));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const k = byKind(await expectChunkInvariant(cline, file, { info }));
    expect(info.skippedLines).toBe(0);
    expect(k.usage).toEqual([]);
    expect(k.tool_call.map((c: any) => [c.name, c.input])).toEqual([
      ['browser_action', { action: 'launch', url: 'http://localhost:3000/login' }],
      ['browser_action', { action: 'click', coordinate: '450,300' }],
    ]);
    expect(k.tool_result.map((r: any) => [r.callId, r.toolName])).toEqual([[(k.tool_call[0] as any).callId, 'browser_action']]);
    await writeFile(file, '[]');
    expect(await readEvents(cline, file)).toEqual([{ type: 'session', agent: 'cline', sessionId: 'browser-task', offset: 0, nativeId: 'browser-task' }]);
    await writeFile(file, '[{"ts":1767225600000,"type":"say","say":"task","text":"cut');
    const broken = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    await readEvents(cline, file, { info: broken });
    expect(broken.skippedLines).toBe(1);
  });
});

describe('Cline family documents cut short', () => {
  it('a ui_messages.json cut mid-write keeps the usage of the requests read before the cut, whatever the buffer', async () => {
    const source = uiOf('roo', '019af3c0-0000-7000-8000-0000000000d1');
    const whole = byKind(await readEvents(roo, source)).usage as UsageEvent[];
    const text = await readFile(source, 'utf8');
    const task = join(dir, 'cut', 'tasks', '019af3c0-0000-7000-8000-0000000000d1');
    await mkdir(task, { recursive: true });
    const file = join(task, 'ui_messages.json');
    await writeFile(file, text.slice(0, text.lastIndexOf('"completion_result"')));
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const usage = byKind(await expectChunkInvariant(roo, file)).usage as UsageEvent[];
    await readEvents(roo, file, { info });
    expect(info.skippedLines).toBe(1);
    expect(usage.map((u) => [u.dedupKey, u.inputTokens, u.outputTokens, u.costUsd])).toEqual(whole.map((u) => [u.dedupKey, u.inputTokens, u.outputTokens, u.costUsd]));
    await expect(readEvents(roo, file, { strict: true })).rejects.toThrow(/Malformed JSON document/);
  });
});

describe('Cline family buffers and resume', () => {
  it.each(TASKS)('%s %s: same events (all kinds, and usage only) whatever the read buffer', async (agent, id) => {
    const events = await expectChunkInvariant(CODECS[agent].codec, uiOf(agent, id));
    expect(events.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(CODECS[agent].codec, uiOf(agent, id), { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(TASKS)('%s %s: a document rewritten as it grows, resumed from its cursor, equals a full read', async (agent, id) => {
    const codec = CODECS[agent].codec;
    const task = join(dir, agent, 'tasks', id);
    await cp(join(FIXTURES, agent, 'tasks', id), task, { recursive: true });
    const file = join(task, 'ui_messages.json');
    const content = await readFile(file);
    let cursor: ReadCursor | undefined;
    let kept: SessionfoldEvent[] = [];
    for (const cut of [...randomCuts(content.length, 8, 3), content.length]) {
      await writeFile(file, content.subarray(0, cut));
      const fresh: SessionfoldEvent[] = [];
      for await (const e of codec.read(file, { resume: { from: cursor, onStart: (s) => s.restarted && (kept = []), onCursor: (u) => (cursor = JSON.parse(JSON.stringify(u.cursor))) } })) fresh.push(e);
      kept.push(...fresh);
    }
    expect(kept).toEqual(await readEvents(codec, file));
    expect(cursor?.format).toBe('json');
    let parsed = 0;
    let restarted: boolean | undefined;
    for await (const _ of codec.read(file, { resume: { from: cursor, onStart: (s) => (restarted = s.restarted) } })) parsed++;
    expect([parsed, restarted], 'an unchanged task is not parsed again').toEqual([0, false]);
  });
});

describe('Cline family roots and discovery', () => {
  it('globalStorageDirs joins as `join` does, for odd homes and folders, with and without a leaf', () => {
    // The folders are joined by hand below a normalized base (fewer characters through Node's normalization
    // at start); this holds them equal to `join` of every part.
    const byJoin = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform, leaf: string[]) => {
      const home = env.HOME || homedir();
      const base = platform === 'darwin' ? join(home, 'Library', 'Application Support') : platform === 'win32' ? env.APPDATA?.trim() || join(env.USERPROFILE || home, 'AppData', 'Roaming') : env.XDG_CONFIG_HOME?.trim() || join(home, '.config');
      const servers = ['.vscode-server', '.vscode-server-insiders', '.cursor-server', '.windsurf-server', '.vscodium-server'];
      return [...EDITORS.map((e) => join(base, e, 'User', 'globalStorage', ...leaf)), ...servers.map((d) => join(home, d, 'data', 'User', 'globalStorage', ...leaf))];
    };
    let cases = 0;
    for (const HOME of ['/h', '/h/', '/', '//h//x/', 'rel/h', '', '/a/./b/../c', '/h/.', '.'])
      for (const dir of [undefined, '/x', '/x/', ' /x/y/../z ', '/', 'rel', '.'])
        for (const platform of ['linux', 'darwin', 'win32'] as const)
          for (const leaf of [[], ['saoudrizwan.claude-dev']]) {
            const env = { HOME, XDG_CONFIG_HOME: dir, APPDATA: dir, USERPROFILE: HOME || undefined };
            expect(globalStorageDirs(env, platform, ...leaf), JSON.stringify({ env, platform, leaf })).toEqual(byJoin(env, platform, leaf));
            cases++;
          }
    expect(cases).toBe(378);
  });

  it('editors per platform, env overrides, and each extension id', async () => {
    const env = { HOME: '/h' };
    expect(globalStorageDirs(env, 'linux')).toContain('/h/.config/Code/User/globalStorage');
    expect(globalStorageDirs({ ...env, XDG_CONFIG_HOME: '/x' }, 'linux')).toContain('/x/VSCodium/User/globalStorage');
    expect(globalStorageDirs(env, 'darwin')).toContain('/h/Library/Application Support/Cursor/User/globalStorage');
    expect(globalStorageDirs({ ...env, APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32')[0]).toBe(join('C:/Users/u/AppData/Roaming', 'Code', 'User', 'globalStorage'));
    expect(globalStorageDirs(env, 'linux')).toContain('/h/.vscode-server/data/User/globalStorage');
    // Every editor's remote server keeps its user data under its own folder in the remote home.
    for (const server of ['.vscode-server-insiders', '.cursor-server', '.windsurf-server', '.vscodium-server']) {
      for (const platform of ['linux', 'darwin', 'win32'] as const) expect(globalStorageDirs(env, platform), `${server} ${platform}`).toContain(join('/h', server, 'data', 'User', 'globalStorage'));
    }
    // No editor holds the extension: VS Code's folder, where it would be.
    expect(getClineRoots(env)).toEqual(['/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev', '/h/.cline/data']);
    expect(getClineRoots({ ...env, CLINE_DIR: '/c' })).toContain('/c/data');
    expect(getClineRoots({ ...env, CLINE_DATA_DIR: '/d' })).toContain('/d');
    expect(getRooRoots(env)).toEqual(['/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline', '/h/.vscode-mock/global-storage']);
    expect(getKiloRoots(env)).toEqual(['/h/.config/Code/User/globalStorage/kilocode.kilo-code']);
    // The editors that hold it, whichever they are.
    const home = join(dir, 'home');
    for (const d of ['.config/Cursor/User/globalStorage/kilocode.kilo-code', '.config/Code - Insiders/User/globalStorage/kilocode.kilo-code', '.vscode-server/data/User/globalStorage/kilocode.kilo-code', '.cursor-server/data/User/globalStorage/kilocode.kilo-code']) await mkdir(join(home, d), { recursive: true });
    expect(getKiloRoots({ HOME: home })).toEqual(['Code - Insiders', 'Cursor'].map((e) => join(home, '.config', e, 'User/globalStorage/kilocode.kilo-code')).concat(['.vscode-server', '.cursor-server'].map((d) => join(home, d, 'data/User/globalStorage/kilocode.kilo-code'))));
    expect(getClineRoots({ ...env, SESSIONFOLD_CLINE_DIR: '/a, /b' })).toEqual(['/a', '/b']);
    expect(getRooRoots({ ...env, SESSIONFOLD_ROO_DIR: '/r' })).toEqual(['/r']);
    expect(getKiloRoots({ ...env, SESSIONFOLD_KILO_DIR: '/k' })).toEqual(['/k']);
  });

  it('detects the agent of a ui_messages.json from its head and its storage folder', async () => {
    const ids: Record<Agent, string> = { cline: 'saoudrizwan.claude-dev', roo: 'rooveterinaryinc.roo-cline', kilo: 'kilocode.kilo-code' };
    for (const [agent, id] of TASKS) {
      const task = join(dir, 'detect', ids[agent], 'tasks', id);
      await cp(join(FIXTURES, agent, 'tasks', id), task, { recursive: true });
      expect((await detectCodec(join(task, 'ui_messages.json'), {})).id, `${agent} ${id}`).toBe(agent);
    }
    expect((await detectCodec(uiOf('kilo', '019af6a7-0000-7000-8000-000000000001'), {})).id, 'outside any storage folder: the first of the family').toBe('cline');
    const other = join(dir, 'detect', 'ui_messages.json');
    await writeFile(other, '{"messages":[]}');
    await expect(detectCodec(other, {})).rejects.toThrow(/Cannot tell/);
  });

  it('discovers every task folder holding ui_messages.json, and locates one by id', async () => {
    // Roo Code's history index sits among the task folders (TaskHistoryStore `_index.json`): a file, no task.
    expect((await readdir(join(FIXTURES, 'roo', 'tasks'))).filter((n) => !TASKS.some(([a, id]) => a === 'roo' && id === n))).toEqual(['_index.json']);
    expect(await roo.locate!([join(FIXTURES, 'roo')], '_index.json')).toBeUndefined();
    await expect(detectCodec(join(FIXTURES, 'roo', 'tasks', '_index.json'), {})).rejects.toThrow(/Cannot tell/);
    for (const [agent, { codec }] of Object.entries(CODECS)) {
      const found = [];
      for await (const f of codec.discover([join(FIXTURES, agent), join(dir, 'missing')])) found.push(f.sessionId);
      expect(found.sort()).toEqual(TASKS.filter(([a]) => a === agent).map(([, id]) => id));
      const [, first] = TASKS.find(([a]) => a === agent)!;
      expect((await codec.locate!([join(FIXTURES, agent)], first))?.path).toBe(uiOf(agent as Agent, first));
      expect(codec.getParseDependencies(uiOf(agent as Agent, first))).toContain(join(FIXTURES, agent, 'tasks', first, 'api_conversation_history.json'));
    }
  });

  it("kilo: a folder of tasks named as a root (a fork's project dialogs folder) is read; a storage folder only through tasks/", async () => {
    const ids = TASKS.filter(([a]) => a === 'kilo').map(([, id]) => id);
    // `<workspace>/<dialog_sessions_path>/<taskId>/`, no tasks/ level (stanta/kilocode-legacy getDialogSessionStoragePaths)
    const dialogs = join(dir, 'project', '.kilo', 'dialogs');
    for (const id of ids) await cp(join(FIXTURES, 'kilo', 'tasks', id), join(dialogs, id), { recursive: true });
    const found = async (codec: Codec, roots: string[]) => {
      const out: [string, string][] = [];
      for await (const f of codec.discover(roots)) if (f.path.endsWith('ui_messages.json')) out.push([f.sessionId ?? '', f.path]);
      return out.sort();
    };
    expect(await found(kilo, [dialogs])).toEqual(ids.map((id) => [id, join(dialogs, id, 'ui_messages.json')]));
    expect((await kilo.locate!([dialogs], ids[0]!))?.path).toBe(join(dialogs, ids[0]!, 'ui_messages.json'));
    expect(getKiloRoots({ HOME: '/h', SESSIONFOLD_KILO_DIR: `/h/.config/Code/User/globalStorage/kilocode.kilo-code,${dialogs}` })).toEqual(['/h/.config/Code/User/globalStorage/kilocode.kilo-code', dialogs]);
    // The same task read from there is the same task: events as from the storage folder's copy.
    expect(await readEvents(kilo, join(dialogs, ids[0]!, 'ui_messages.json'))).toEqual(await readEvents(kilo, uiOf('kilo', ids[0]!)));
    // Only Kilo Code takes a root as a folder of tasks.
    expect(await found(cline, [dialogs])).toEqual([]);
    expect(await found(roo, [dialogs])).toEqual([]);
    // A storage folder (one with tasks/, even an empty one) is read through tasks/ alone: a task folder beside it is not a task.
    const storage = join(dir, 'kilo-storage');
    await mkdir(join(storage, 'tasks'), { recursive: true });
    await cp(join(FIXTURES, 'kilo', 'tasks', ids[0]!), join(storage, ids[0]!), { recursive: true });
    expect(await found(kilo, [storage])).toEqual([]);
    await cp(join(FIXTURES, 'kilo', 'tasks', ids[1]!), join(storage, 'tasks', ids[1]!), { recursive: true });
    expect(await found(kilo, [storage])).toEqual([[ids[1]!, join(storage, 'tasks', ids[1]!, 'ui_messages.json')]]);
    expect(await found(kilo, [join(dir, 'missing')])).toEqual([]);
  });
});
