/**
 * `gemini --session-file <file>` imports a session as a new one: Gemini CLI writes a new chat under a new
 * session id, starting now, with the source's user and gemini messages copied under their own ids, times and
 * tokens. Those responses were paid for once: a report counts them once, in the session that made them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gemini } from '../codecs/gemini/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { readEvents } from './helpers/codec-harness.js';
import { inTempDir } from './helpers/files.js';

const ORIGIN = '1b2c3d4e-0000-4000-8000-000000000001';
const IMPORTED = '9f8e7d6c-0000-4000-8000-000000000002';
const U1 = '0a0a0a0a-1111-4111-8111-111111111111';
const G1 = '0b0b0b0b-2222-4222-8222-222222222222';
const U2 = '0c0c0c0c-3333-4333-8333-333333333333';
const G2 = '0d0d0d0d-4444-4444-8444-444444444444';
const tokens = (input: number, output: number) => ({ input, output, cached: 0, thoughts: 0, tool: 0, total: input + output });
const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const u1 = { id: U1, timestamp: '2026-06-01T10:00:01.000Z', type: 'user', content: 'hello' };
const g1 = { id: G1, timestamp: '2026-06-01T10:00:02.000Z', type: 'gemini', content: 'hi', model: 'gemini-2.5-pro', tokens: tokens(1000, 100) };
const ORIGIN_CHAT = jsonl([{ sessionId: ORIGIN, projectHash: 'h', startTime: '2026-06-01T10:00:00.000Z', kind: 'main' }, u1, g1]);
/** As Gemini CLI's import writes it (packages/cli/src/gemini.tsx `resolveSessionId`), then resumed and continued. */
const IMPORTED_CHAT = jsonl([
  { sessionId: IMPORTED, projectHash: 'h', startTime: '2026-06-02T09:00:00.000Z', lastUpdated: '2026-06-02T09:00:00.000Z', kind: 'main' },
  { id: 'import-1780390800000', type: 'info', content: 'Imported session from /tmp/export.json', timestamp: '2026-06-02T09:00:00.000Z' },
  u1,
  g1,
  { $set: { sessionId: IMPORTED } },
  { id: U2, timestamp: '2026-06-02T09:00:05.000Z', type: 'user', content: 'go on' },
  { id: G2, timestamp: '2026-06-02T09:00:06.000Z', type: 'gemini', content: 'more', model: 'gemini-2.5-pro', tokens: tokens(50, 5) },
]);

/** A home with both chats in one project; `fn` gets the home and the two chat paths. */
const withHome = <T>(fn: (home: string, origin: string, imported: string) => Promise<T>): Promise<T> =>
  inTempDir('sf-gemini-import-', async (home) => {
    const chats = join(home, '.gemini', 'tmp', 'project', 'chats');
    await mkdir(chats, { recursive: true });
    const origin = join(chats, 'session-2026-06-01T10-00-1b2c3d4e.jsonl');
    const imported = join(chats, 'session-1780390800000-9f8e7d6c.jsonl');
    await writeFile(origin, ORIGIN_CHAT);
    await writeFile(imported, IMPORTED_CHAT);
    return fn(home, origin, imported);
  });

const usageOf = async (file: string) => (await readEvents(gemini, file, { kinds: ['usage'] })) as UsageEvent[];

async function report(home: string, args: string[] = []): Promise<Record<string, unknown>> {
  const out = sink();
  const code = await runCli(['cost', 'report', '--json', '--agent', 'gemini', '--no-cache', ...args], { stdout: out, stderr: sink(), env: { HOME: home, GEMINI_CLI_HOME: home } });
  expect(code).toBe(0);
  return JSON.parse(out.text()) as Record<string, unknown>;
}

describe('gemini imported sessions', () => {
  it('key a response by its message id, so the copy is the same response, and mark what came before the session began as copied', () =>
    withHome(async (_home, origin, imported) => {
      const own = await usageOf(origin);
      const copy = await usageOf(imported);
      expect(own.map((u) => [u.messageId, u.copied === true])).toEqual([[G1, false]]);
      expect(copy.map((u) => [u.messageId, u.copied === true])).toEqual([
        [G1, true],
        [G2, false],
      ]);
      expect(copy[0]?.dedupKey).toBe(own[0]?.dedupKey);
      expect(copy[1]?.dedupKey).not.toBe(own[0]?.dedupKey);
    }));

  it('count the copied response once, in the session that made it', () =>
    withHome(async (home) => {
      expect(await report(home)).toMatchObject({ inputTokens: 1050, outputTokens: 105, requestCount: 2 });
      const rows = (await report(home, ['--group-by', 'session'])).breakdowns as Record<string, { requestCount: number; inputTokens: number }>;
      expect(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, [v.requestCount, v.inputTokens]]))).toEqual({ [`gemini:${ORIGIN}`]: [1, 1000], [`gemini:${IMPORTED}`]: [1, 50] });
    }));

  it('keep ids that are not UUIDs (third-party files reuse `m1`) apart per session', () =>
    inTempDir('sf-gemini-ids-', async (dir) => {
      const chat = (sessionId: string) => jsonl([{ sessionId, projectHash: 'h', startTime: '2026-06-01T10:00:00.000Z' }, { id: 'm1', timestamp: '2026-06-01T10:00:01.000Z', type: 'gemini', content: 'x', model: 'gemini-2.5-pro', tokens: tokens(10, 1) }]);
      await writeFile(join(dir, 'a.jsonl'), chat('s-a'));
      await writeFile(join(dir, 'b.jsonl'), chat('s-b'));
      const keys = [...(await usageOf(join(dir, 'a.jsonl'))), ...(await usageOf(join(dir, 'b.jsonl')))].map((u) => u.dedupKey);
      expect(keys).toEqual(['gemini:s-a:m1', 'gemini:s-b:m1']);
    }));
});
