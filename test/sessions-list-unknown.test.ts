/**
 * A session whose usage is unknown is listed so at any size. A codec that may leave tokens unrecorded
 * (`usageMayBeUnknown`) says so in the session event its whole read ends with, which the peek's head and tail
 * windows of a file larger than FULL_PEEK_BYTES do not reach; such a session is folded whole (src/sessions/
 * list.ts), so `sessions list` and the cost report's note of sessions with unrecorded tokens count it. A Command
 * Code transcript of 300 KB whose middle reply carries no usage block, and one whose every reply does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionManager } from '../src/sessions/manager.js';
import { costReport } from '../src/cost/report.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';

let home = '';
const header = (id: string) => JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-03-02T09:15:00.000Z', cwd: '/w' });
const prompt = (k: number) => JSON.stringify({ type: 'message', id: `u${k}`, parentId: null, timestamp: '2026-03-02T09:16:00.000Z', message: { role: 'user', content: [{ type: 'text', text: `step ${k} ${'x'.repeat(2000)}` }], meta: { source: 'user' } } });
const reply = (k: number, usage: boolean) =>
  JSON.stringify({ type: 'message', id: `a${k}`, parentId: null, timestamp: '2026-03-02T09:16:05.000Z', message: { role: 'assistant', content: [{ type: 'text', text: `done ${k}` }], meta: { source: 'model', messageId: `m-${k}` } }, ...(usage && { usage: { inputTokens: 900, outputTokens: 5, cacheReadTokens: 640, cacheWriteTokens: 0 } }), model: 'deepseek/deepseek-v4-flash' });
/** A transcript of `n` exchanges; the reply of exchange `bare` (if any) without its usage block. */
const transcript = (id: string, n: number, bare?: number) => [header(id), ...Array.from({ length: n }, (_, k) => [prompt(k), reply(k, k !== bare)]).flat()].join('\n') + '\n';

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-list-unknown-'));
  const dir = join(home, '.commandcode', 'projects', '-w');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'big-bare.jsonl'), transcript('big-bare', 150, 70));
  writeFileSync(join(dir, 'big-whole.jsonl'), transcript('big-whole', 150));
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
});
