/**
 * The fx codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding fixtures/fx at
 * `~/.fx/sessions/`: `sessions list fx` (with `--subagents`, the child marked), `sessions show` (the
 * conversation, messages and tool calls), `cost report --json --agent fx` (tokens equal to the golden files,
 * fx's own recorded cost) and a checkpoint appended between two reports. The agent's tree is the same after
 * every command.
 */
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeListing } from './helpers/files.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';

const FIXTURES = new URL('../fixtures/fx/sessions/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/fx/', import.meta.url).pathname;
const IDS = ['Cv5_convo0001', 'Cv6_later0001', 'Mx4_mixed001', 'Nw2_later001', 'Pa7_parent01', 'Qz1-R7wVb0Hn', 'Yk3_p2QxLm8a'];
/** The subagent child its parent's registry names (fixtures/fx/README.md). */
const CHILD = 'Ch1-child001';

let home: string;
let before: string[];

beforeAll(async () => {
  await buildIfStale(['fx']);
  home = await mkdtemp(join(tmpdir(), 'sf-fx-cli-'));
  await cp(FIXTURES, join(home, '.fx', 'sessions'), { recursive: true });
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const trees = (): Promise<string[]> => treeListing(join(home, '.fx'));
const cli = agentCli(() => home, trees, () => before);

type Report = AgentRow & { totalUsd: number; unpricedCount: number };

/**
 * What fx recorded in all: each model's `total_cost` in the last snapshot of each golden session, plus each
 * generation's last `usage_recorded` cost.
 */
async function recordedCost(): Promise<number> {
  let sum = 0;
  for (const id of IDS) {
    const records = (await readFile(join(FIXTURES, id, 'events.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const last = records.map((r) => r.payload?.usage).filter(Boolean).at(-1);
    for (const m of last?.models ?? []) sum += m.total_cost;
    const calls = new Map<string, number>();
    for (const r of records) if (r.kind === 'usage_recorded') calls.set(r.payload.generation_id, r.payload.total_cost ?? 0);
    for (const c of calls.values()) sum += c;
  }
  return sum;
}

describe('sessionfold CLI over an fx tree', () => {
  it('sessions list fx lists every session folder with its folder, and not fx\u2019s v2 store or a staging folder', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'fx', '--json'])) as { sessionId: string; agent: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(IDS);
    expect(rows.every((r) => r.agent === 'fx')).toBe(true);
    expect(rows.find((r) => r.sessionId === 'Yk3_p2QxLm8a')!.cwd).toMatch(/^\/home\/dev\/acme/);
    const all = JSON.parse(await cli(['sessions', 'list', 'fx', '--subagents', '--json'])) as { sessionId: string; subagent?: boolean }[];
    expect(all.filter((r) => r.subagent === true).map((r) => r.sessionId)).toEqual([CHILD]);
  });

  it('sessions show fx <id> has the conversation: messages, thinking, tool calls with their results', async () => {
    const s = JSON.parse(await cli(['sessions', 'show', 'fx', 'Cv5_convo0001', '--format', 'json'])) as { title?: string; messages: { role: string; content: string; thinking?: string; toolCalls?: { toolCallId: string; output?: unknown; isError?: boolean }[] }[] };
    expect(s.title).toBe('Why does the build fail?');
    const golden = (await readFile(join(EXPECTED, 'Cv5_convo0001.events.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const texts = golden.filter((e) => e.type === 'message' && e.text !== '').map((e) => e.text);
    for (const t of texts) expect(s.messages.some((m) => m.content === t)).toBe(true);
    const calls = s.messages.flatMap((m) => m.toolCalls ?? []);
    expect(calls.map((c) => c.toolCallId).sort()).toEqual(golden.filter((e) => e.type === 'tool_call').map((e) => e.callId).sort());
    expect(calls.find((c) => c.toolCallId === 'call_b')).toMatchObject({ output: 'error: FileNotFound', isError: true });
    expect(s.messages.some((m) => m.thinking === 'Read the build file first.')).toBe(true);
    const later = await cli(['sessions', 'show', 'fx:Cv6_later0001', '--format', 'markdown', '--no-pager']);
    expect(later).toContain('Rename the flag to --format');
    expect(later).toContain('Renamed --json to --format in args.zig.');
  });

  it('cost report --json --agent fx has the golden tokens and the cost fx recorded', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'fx'])) as Report;
    const usage = await goldenUsage([...IDS, CHILD].map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    expectGoldenRow(report, 'fx', usage);
    // gen_02's first line has no cost yet; its replacing line's cost is the one reported
    expect(report).toMatchObject({ unpricedCount: 0 });
    expect(report.totalUsd).toBeCloseTo(await recordedCost(), 9);
  });

  it('a checkpoint appended to a session log adds its growth to the next report, and the earlier ones once', async () => {
    const first = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'fx'])) as Report;
    const file = join(home, '.fx', 'sessions', 'Qz1-R7wVb0Hn', 'events.jsonl');
    const models = [{ model: 'openai/gpt-5', first_sequence: 1, total_cost: 0.0567, input_tokens: 25500, output_tokens: 3000, cache_read_tokens: 15000, cache_write_tokens: 0, billable_web_search_calls: 0 }];
    const line = { schema_version: 1, log_generation: '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b', seq: 6, event_id: 'b0000000000000000000000000000006', timestamp_ms: 1790100090000, kind: 'usage_checkpointed', payload: { usage: { billing: 'complete', models, pending: [] } } };
    await appendFile(file, JSON.stringify(line) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'fx'])) as Report;
    // the growth over the last checkpoint (23500 in, 14000 of it cached, 2900 out): its uncached input apart
    expect(report).toMatchObject({ inputTokens: first.inputTokens + 1000, cacheReadTokens: first.cacheReadTokens + 1000, outputTokens: first.outputTokens + 100 });
    expect(report.totalUsd).toBeCloseTo((await recordedCost()) + 0.01, 9);
  });

  it('a late-settled line appended for a call already reported replaces its cost, and adds no tokens', async () => {
    const first = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'fx'])) as Report;
    const file = join(home, '.fx', 'sessions', 'Nw2_later001', 'events.jsonl');
    const payload = { generation_id: 'gen_03', model: 'anthropic/claude-sonnet-4.5', input_tokens: 12000, output_tokens: 900, cache_read_tokens: 8000, cache_write_tokens: 2500, reasoning_tokens: null, total_cost: 0.0401, billable_web_search_calls: 0 };
    await appendFile(file, JSON.stringify({ schema_version: 1, kind: 'usage_recorded', session_id: 'Nw2_later001', ts: 1790300040000, seq: 9, payload }) + '\n');
    before = await trees();
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'fx'])) as Report;
    expect(report).toMatchObject({ inputTokens: first.inputTokens, cacheReadTokens: first.cacheReadTokens, outputTokens: first.outputTokens });
    expect(report.totalUsd).toBeCloseTo(first.totalUsd + 0.01, 9);
  });
});
