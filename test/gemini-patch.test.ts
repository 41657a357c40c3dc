/**
 * Gemini CLI's `$patch` records: its history sync writes masked message content and tool results as
 * `{"$patch": {updates, removeIds, orderIds}}` (one message's patch may stand at the top level) instead of a
 * whole `$set.messages` checkpoint. They change the open turn's conversation, never the usage.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gemini } from '../codecs/gemini/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, ToolResultEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { inTempDir } from './helpers/files.js';

const T = (s: number) => `2026-06-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const tokens = (input: number, output: number) => ({ input, output, cached: 0, thoughts: 0, tool: 0, total: input + output });
const result = (response: Record<string, unknown>) => [{ functionResponse: { id: 'c2', name: 'run_shell_command', response } }];

const CHAT = [
  { sessionId: 's-patch', projectHash: 'h', startTime: T(0), kind: 'main' },
  { id: 'u1', timestamp: T(1), type: 'user', content: 'first' },
  { id: 'g1', timestamp: T(2), type: 'gemini', content: 'answer one', model: 'gemini-3-flash-preview', tokens: tokens(100, 10) },
  { id: 'u2', timestamp: T(3), type: 'user', content: 'second' },
  { id: 'g2', timestamp: T(4), type: 'gemini', content: '', model: 'gemini-3-flash-preview', tokens: tokens(200, 20), toolCalls: [{ id: 'c2', name: 'run_shell_command', args: { command: 'ls' }, status: 'success', result: result({ output: 'a very long listing' }) }] },
  { id: 'g3', timestamp: T(5), type: 'gemini', content: 'a detour', model: 'gemini-3-flash-preview', tokens: tokens(300, 30) },
  { id: 'g4', timestamp: T(6), type: 'gemini', content: 'done', model: 'gemini-3-flash-preview', tokens: tokens(400, 40) },
  { $set: { lastUpdated: T(6) } },
  {
    $patch: {
      updates: [
        { id: 'g2', toolCalls: [{ id: 'c2', result: result({ output: '[masked]', tokens: 12 }) }] },
        { id: 'g1', content: 'a closed turn keeps what it said' },
      ],
      removeIds: ['g3'],
      orderIds: ['u2', 'g4', 'g2'],
    },
  },
  { $patch: { id: 'g4', content: 'done (masked)' } },
]
  .map((r) => JSON.stringify(r))
  .join('\n') + '\n';

/** `fn` given the chat written to a temporary folder (removed after). */
const withChat = <T>(fn: (file: string) => Promise<T>): Promise<T> =>
  inTempDir('sf-gemini-patch-', async (dir) => {
    const file = join(dir, 'session-2026-06-01T10-00-s-patch.jsonl');
    await writeFile(file, CHAT);
    return fn(file);
  });

describe('gemini $patch records', () => {
  it('apply to the open turn: content and tool results replaced, removed messages dropped, the order taken', () =>
    withChat(async (file) => {
      const events = await readEvents(gemini, file);
      const messages = byKind(events).message as MessageEvent[];
      expect(messages.map((m) => [m.nativeId, m.text])).toEqual([
        ['u1', 'first'],
        ['g1', 'answer one'],
        ['u2', 'second'],
        ['g4', 'done (masked)'],
      ]);
      const results = byKind(events).tool_result as ToolResultEvent[];
      expect(results.map((r) => [r.callId, r.output])).toEqual([['c2', { output: '[masked]', tokens: 12 }]]);
    }));

  it('never change the usage: every response counts once, a removed one too', () =>
    withChat(async (file) => {
      const usage = byKind(await readEvents(gemini, file)).usage as UsageEvent[];
      expect(usage.map((u) => [u.messageId, u.inputTokens, u.outputTokens])).toEqual([
        ['g1', 100, 10],
        ['g2', 200, 20],
        ['g3', 300, 30],
        ['g4', 400, 40],
      ]);
      const info = newReadInfo();
      expect(await readEvents(gemini, file, { kinds: ['usage'], info })).toEqual(usage);
      // the user messages, the $set and both patches: the first patch holds a "tokens" key (in a tool's
      // output) and is skipped by its first bytes, never parsed for usage
      expect(info.filteredLines).toBe(5);
    }));

  it('are chunk invariant and a resumed read equals a full one', () =>
    withChat(async (file) => {
      await expectChunkInvariant(gemini, file);
      const content = await readFile(file);
      await expectResumeEqualsFull(gemini, content, lineBoundaries(content));
    }));
});
