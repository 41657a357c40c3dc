/**
 * A session whose usage is unknown is listed so at any size. A codec that may leave tokens unrecorded
 * (`usageMayBeUnknown`) says so in the session event its whole read ends with, which the peek's head and tail
 * windows of a file larger than FULL_PEEK_BYTES do not reach; such a session is folded whole (src/sessions/
 * list.ts), so `sessions list` and the cost report's note of sessions with unrecorded tokens count it. A Command
 * Code transcript of 300 KB whose middle reply carries no usage block, and one whose every reply does; a
 * Copilot CLI log whose first run called a model and never shut down (a later run's start says it lost its
 * usage, far from both windows); and sessionfold exports whose header, at the head, says so.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionManager } from '../src/sessions/manager.js';
import { costReport } from '../src/cost/report.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { copilotLine, oneRun, usage } from './helpers/copilot-store.js';

let home = '';
const header = (id: string) => JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-03-02T09:15:00.000Z', cwd: '/w' });
const prompt = (k: number) => JSON.stringify({ type: 'message', id: `u${k}`, parentId: null, timestamp: '2026-03-02T09:16:00.000Z', message: { role: 'user', content: [{ type: 'text', text: `step ${k} ${'x'.repeat(2000)}` }], meta: { source: 'user' } } });
const reply = (k: number, usage: boolean) =>
  JSON.stringify({ type: 'message', id: `a${k}`, parentId: null, timestamp: '2026-03-02T09:16:05.000Z', message: { role: 'assistant', content: [{ type: 'text', text: `done ${k}` }], meta: { source: 'model', messageId: `m-${k}` } }, ...(usage && { usage: { inputTokens: 900, outputTokens: 5, cacheReadTokens: 640, cacheWriteTokens: 0 } }), model: 'deepseek/deepseek-v4-flash' });
/** A transcript of `n` exchanges; the reply of exchange `bare` (if any) without its usage block. */
const transcript = (id: string, n: number, bare?: number) => [header(id), ...Array.from({ length: n }, (_, k) => [prompt(k), reply(k, k !== bare)]).flat()].join('\n') + '\n';

const LOST = '55555555-eeee-4eee-8eee-000000000005';
const KEPT = '66666666-ffff-4fff-8fff-000000000006';
/**
 * A Copilot CLI log of two runs and 300 KB: the first calls a model and, when `lost`, never shuts down, so the
 * second run's `session.resume` (after 150 KB of the first run's prompts) marks its usage lost; the second
 * shuts down with its totals, followed by 150 KB of prompts, so neither window sees the first run end.
 */
function copilotLog(id: string, lost: boolean): string {
  let n = 0;
  const ev = (type: string, ts: string, data: Record<string, unknown>) => JSON.stringify(copilotLine(type, ts, data, n++));
  const prompts = (day: string) => Array.from({ length: 75 }, (_, k) => ev('user.message', `${day}T10:${String(k % 60).padStart(2, '0')}:00.000Z`, { content: `note ${k} ${'y'.repeat(2000)}` }));
  const lines = [
    ev('session.start', '2026-03-01T10:00:00.000Z', { sessionId: id, copilotVersion: '1.0.80', startTime: '2026-03-01T10:00:00.000Z', selectedModel: 'gpt-4.1', context: { cwd: '/w' } }),
    ev('user.message', '2026-03-01T10:00:01.000Z', { content: 'first' }),
    ev('assistant.turn_start', '2026-03-01T10:00:02.000Z', { turnId: '0' }),
    ev('assistant.message', '2026-03-01T10:00:05.000Z', { messageId: 'm1', content: 'one', model: 'gpt-4.1' }),
    ...prompts('2026-03-01'),
    ...(lost ? [] : [ev('session.shutdown', '2026-03-01T11:00:00.000Z', { shutdownType: 'routine', modelMetrics: { 'gpt-4.1': usage(500, 40, 100, 0) } })]),
    ev('session.resume', '2026-03-02T09:00:00.000Z', { selectedModel: 'gpt-4.1', context: { cwd: '/w' } }),
    ev('user.message', '2026-03-02T09:00:01.000Z', { content: 'second' }),
    ev('assistant.turn_start', '2026-03-02T09:00:02.000Z', { turnId: '1' }),
    ev('assistant.message', '2026-03-02T09:00:05.000Z', { messageId: 'm2', content: 'two', model: 'gpt-4.1' }),
    ev('session.shutdown', '2026-03-02T09:30:00.000Z', { shutdownType: 'routine', modelMetrics: { 'gpt-4.1': usage(700, 50, 0, 0) } }),
    ...prompts('2026-03-03'),
  ];
  return lines.join('\n') + '\n';
}

/** A sessionfold export of 300 KB: its header (`usageUnknown` when `unknown`) and a message with usage per 2 KB. */
function exportFile(id: string, unknown: boolean): string {
  const head = { type: 'sessionfold.session', version: 1, agent: 'copilot', sessionId: id, createdAt: '2026-03-01T10:00:00.000Z', cwd: '/w', ...(unknown && { usageUnknown: true }) };
  const message = (k: number) => ({ type: 'sessionfold.message', index: k, role: k % 2 === 0 ? 'user' : 'assistant', content: `m ${k} ${'z'.repeat(2000)}`, timestamp: '2026-03-01T10:00:05.000Z', ...(k % 2 === 1 && { model: 'gpt-4.1', usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, dedupKey: `${id}:${k}` } }) });
  return [JSON.stringify(head), ...Array.from({ length: 150 }, (_, k) => JSON.stringify(message(k)))].join('\n') + '\n';
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-list-unknown-'));
  const dir = join(home, '.commandcode', 'projects', '-w');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'big-bare.jsonl'), transcript('big-bare', 150, 70));
  writeFileSync(join(dir, 'big-whole.jsonl'), transcript('big-whole', 150));
  for (const [id, text] of [[LOST, copilotLog(LOST, true)], [KEPT, copilotLog(KEPT, false)], ['small-lost', oneRun('small-lost', false)]] as const) {
    mkdirSync(join(home, '.copilot', 'session-state', id), { recursive: true });
    writeFileSync(join(home, '.copilot', 'session-state', id, 'events.jsonl'), text);
  }
  const exports = join(home, '.local', 'share', 'sessionfold', 'exports');
  mkdirSync(exports, { recursive: true });
  writeFileSync(join(exports, 'export-unknown.jsonl'), exportFile('export-unknown', true));
  writeFileSync(join(exports, 'export-known.jsonl'), exportFile('export-known', false));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a session with unrecorded usage, larger than a peek reads', () => {
  const env = () => ({ HOME: home, XDG_CACHE_HOME: join(home, 'cache'), TZ: 'UTC' });

  it('is listed with usageUnknown; one whose every reply has usage is not', async () => {
    const rows = await createSessionManager({ env: env(), cache: false }).list('commandcode', { exactBytes: 0 });
    expect(rows.every((r) => r.sizeBytes > FULL_PEEK_BYTES)).toBe(true);
    expect(rows.map((r) => [r.sessionId, r.usageUnknown === true]).sort()).toEqual([
      ['big-bare', true],
      ['big-whole', false],
    ]);
  });

  it('is counted by the cost report\u2019s note of sessions with unrecorded tokens', async () => {
    const report = await costReport({ agents: ['commandcode'], env: env(), cache: false });
    expect(report.unknownUsage).toEqual([{ agent: 'commandcode', sessions: 1 }]);
  });

  it('a Copilot CLI run that lost its usage far from both windows is listed so, and counted by the cost report', async () => {
    const rows = await createSessionManager({ env: env(), cache: false }).list('copilot', { exactBytes: 0 });
    expect(rows.filter((r) => r.sessionId !== 'small-lost').every((r) => r.sizeBytes > FULL_PEEK_BYTES)).toBe(true);
    expect(rows.map((r) => [r.sessionId, r.usageUnknown === true]).sort()).toEqual([
      [LOST, true],
      [KEPT, false],
      ['small-lost', true],
    ].sort());
    const report = await costReport({ agents: ['copilot'], env: env(), cache: false });
    expect(report.unknownUsage).toEqual([{ agent: 'copilot', sessions: 2, pending: true }]);
  });

  it('an export whose header says its usage is unknown is listed so at any size', async () => {
    const rows = await createSessionManager({ env: env(), cache: false }).list('sessionfold-jsonl', { exactBytes: 0 });
    expect(rows.every((r) => r.sizeBytes > FULL_PEEK_BYTES && !r.exact)).toBe(true);
    expect(rows.map((r) => [r.sessionId, r.usageUnknown === true]).sort()).toEqual([
      ['export-known', false],
      ['export-unknown', true],
    ]);
  });
});
