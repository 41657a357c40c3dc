/**
 * The Claude codec's session, message, tool_call and tool_result events, over the constructed fixture tree
 * (fixtures/claude/projects, the real layout) and the real fixtures where they show a rule.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude, claudeCore } from '../codecs/claude/index.js';
import { parseSync } from '../cursors/sync.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { MessageEvent, SessionEvent, ToolCallEvent, ToolResultEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { codecWithSidecar } from './claude-helpers.js';

const PROJECTS = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const P = '11111111-2222-4333-8444-555555555555';
const PARENT = join(PROJECTS, '-Users-dev-app', `${P}.jsonl`);
const SUBAGENT = join(PROJECTS, '-Users-dev-app', P, 'subagents', 'agent-abc123.jsonl');
const FORK = join(PROJECTS, '-Users-dev-app', '22222222-3333-4444-8555-666666666666.jsonl');
const LEGACY_AGENT = join(PROJECTS, '-Users-dev-other', 'agent-deadbeef.jsonl');
const T = '44444444-5555-4666-8777-888888888888';
const TITLED = join(PROJECTS, '-Users-dev-titles', `${T}.jsonl`);
const NESTED_AGENT = join(PROJECTS, '-Users-dev-titles', T, 'subagents', 'agent-b2.jsonl');
const CONSTRUCTED = [PARENT, SUBAGENT, FORK, LEGACY_AGENT, TITLED, NESTED_AGENT];

describe('claude session event', () => {
  it('is emitted once, from the first line that says where the session ran (not from queue or snapshot lines)', async () => {
    const content = await readFile(PARENT);
    const sessions = byKind(await readEvents(claude, PARENT)).session;
    expect(sessions).toEqual([
      {
        type: 'session',
        agent: 'claude',
        sessionId: P,
        offset: lineBoundaries(content)[2],
        nativeId: P,
        cwd: '/Users/dev/app',
        startedAt: '2026-02-01T10:00:00.000Z',
        version: '2.1.5',
        gitBranch: 'main',
      },
    ]);
  });

  it('names the origin of a forked or resumed copy, whose first lines carry the old session id', async () => {
    const [s] = byKind(await readEvents(claude, FORK)).session as SessionEvent[];
    expect(s).toMatchObject({ sessionId: '22222222-3333-4444-8555-666666666666', forkedFrom: P });
    expect(s).not.toHaveProperty('subagent');
  });

  it('names the origin of a /branch copy, whose lines carry its own session id and forkedFrom, in every kind of read', () => {
    const B = 'bbbbbbbb-1111-4222-8333-444444444444';
    const line = (o: object) => JSON.stringify({ sessionId: B, cwd: '/w', version: '2.1.0', timestamp: '2026-05-01T00:00:00.000Z', forkedFrom: { sessionId: P, messageUuid: 'u1' }, ...o });
    const text = [
      line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello' } }),
      line({ type: 'assistant', uuid: 'a1', requestId: 'r1', message: { id: 'msg_b1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 3, output_tokens: 4 } } }),
    ].join('\n') + '\n';
    const file = `/home/u/.claude/projects/-w/${B}.jsonl`;
    for (const kinds of [undefined, ['session', 'usage'] as const, ['session'] as const]) {
      const [s] = parseSync(claudeCore, text, { file, ...(kinds !== undefined && { kinds: [...kinds] }) }).filter((e): e is SessionEvent => e.type === 'session');
      expect(s).toMatchObject({ sessionId: B, forkedFrom: P, cwd: '/w' });
    }
  });

  it('marks a subagent transcript, with its parent session from the folder', async () => {
    const [s] = byKind(await readEvents(claude, SUBAGENT)).session as SessionEvent[];
    expect(s).toMatchObject({ sessionId: 'agent-abc123', nativeId: 'agent-abc123', forkedFrom: P, subagent: true, cwd: '/Users/dev/app' });
    const [legacy] = byKind(await readEvents(claude, LEGACY_AGENT)).session as SessionEvent[];
    expect(legacy).toMatchObject({ sessionId: 'agent-deadbeef', forkedFrom: '33333333-4444-4555-8666-777777777777', subagent: true, version: '1.0.90' });
  });

  it('takes the session id from the lines when the file name is not one, and every event carries it', async () => {
    const file = join(REAL, 'ccusage-project-alpha-usage-cache.jsonl');
    const events = await readEvents(claude, file);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(['session-alpha']));
    expect(byKind(events).session).toMatchObject([{ nativeId: 'session-alpha', version: '1.0.0', startedAt: '2026-01-09T10:00:00.000Z' }]);
  });

  it('reads 1.x `project` as the cwd', async () => {
    const [s] = byKind(await readEvents(claude, join(REAL, 'agent-sessions-schema-drift-legacy.jsonl'))).session;
    expect(s).toMatchObject({ cwd: '/tmp/project', version: '1.9.0', sessionId: 'ses_stage0_drift' });
  });

  it('is the same in a session-only read, which skips every line after it without parsing', async () => {
    const info = newReadInfo();
    const only = await readEvents(claude, PARENT, { kinds: ['session'], info });
    expect(only).toEqual(byKind(await readEvents(claude, PARENT)).session);
    expect(info.filteredLines).toBe(lineBoundaries(await readFile(PARENT)).length - 1 - 3);
  });
});

describe('claude messages', () => {
  it('yields user and assistant text, thinking, and system messages for summaries, compaction and injected lines', async () => {
    const messages = byKind(await readEvents(claude, PARENT)).message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.subtype ?? null, m.text])).toEqual([
      ['user', null, 'Fix the bug in ünïcode ✓ 世界'],
      ['assistant', null, ''],
      ['assistant', null, 'Reading the parser.'],
      ['assistant', null, 'Found it.'],
      ['assistant', 'synthetic', 'No response requested.'],
      ['system', 'summary', 'Fixing the unicode parser bug'],
      ['system', 'compact_boundary', 'Conversation compacted'],
      ['system', 'compact_summary', 'This session is being continued from a previous conversation. Summary: the parser bug.'],
      ['user', 'meta', 'Caveat: The messages below were generated by the user while running local commands.'],
      ['user', 'command', '<command-name>/cost</command-name>\n<command-message>cost</command-message>'],
      ['user', 'command_output', '<local-command-stdout>Total cost: $0.12</local-command-stdout>'],
      ['assistant', null, 'Fixed: the test passes now.'],
    ]);
    expect(messages[1]).toMatchObject({ thinking: 'Look at parser.ts first.', nativeId: 'msg_A', lineId: 'a1', parentId: 'u1', model: 'claude-sonnet-4-5-20250929' });
    expect(messages[2]).toMatchObject({ nativeId: 'msg_A', lineId: 'a2' });
    expect(messages[5]).toMatchObject({ parentId: 'a6' });
    expect(messages[6]).toMatchObject({ parentId: 'a6', nativeId: 's1' });
  });

  it('reads 1.x string content and drops system lines without text', async () => {
    const messages = byKind(await readEvents(claude, join(REAL, 'agent-sessions-schema-drift-legacy.jsonl'))).message as MessageEvent[];
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Open README'],
      ['assistant', 'Read README and extracted the title.'],
      ['user', 'List files'],
    ]);
  });
});

describe('claude tool calls and results', () => {
  it('yields a tool_call per tool_use block and names each result after its call', async () => {
    const k = byKind(await readEvents(claude, PARENT));
    expect((k.tool_call as ToolCallEvent[]).map((c) => [c.callId, c.name, c.messageId])).toEqual([
      ['toolu_1', 'Read', 'msg_A'],
      ['toolu_3', 'Edit', 'msg_B'],
      ['toolu_2', 'Bash', 'msg_C'],
    ]);
    expect(k.tool_call[0]).toMatchObject({ input: { file_path: '/Users/dev/app/parser.ts' }, timestamp: '2026-02-01T10:00:03.000Z' });
    expect((k.tool_result as ToolResultEvent[]).map((r) => [r.callId, r.toolName, r.output, r.isError])).toEqual([
      ['toolu_1', 'Read', 'export function parse() {}', false],
      ['toolu_2', 'Bash', '1 failing', true],
    ]);
  });

  it('matches results that carry no call id: by the issuing line (2.1), else the oldest open call', async () => {
    const v21 = byKind(await readEvents(claude, join(REAL, 'agent-sessions-v2.1-sanitized-hooks-attachments.jsonl'))).tool_result as ToolResultEvent[];
    expect(v21[0]).toMatchObject({ callId: 'a1:2', toolName: 'bash', output: 'ok', isError: false });
    expect(v21[1]).toMatchObject({ isError: true, output: "The user doesn't want to proceed with this tool use." });
    const sub = join(REAL, 'agent-sessions-subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl');
    const k = byKind(await readEvents(claude, sub));
    expect(k.tool_result).toMatchObject([{ callId: (k.tool_call[0] as ToolCallEvent).callId, toolName: 'bash', output: 'a.txt:1: TODO fix' }]);
  });

  it('reads 1.x top-level tool_use and tool_result records', async () => {
    const k = byKind(await readEvents(claude, join(REAL, 'agent-sessions-schema-drift-legacy.jsonl')));
    expect(k.tool_call).toMatchObject([{ callId: 't1', name: 'bash', input: { command: 'cat README.md' } }]);
    expect(k.tool_result).toMatchObject([{ callId: 't1', toolName: 'bash', output: '# Title\n\nBody\n', isError: false }]);
  });

  it('drops a result line a resume wrote again (same call answered twice)', async () => {
    const k = byKind(await readEvents(claude, join(REAL, 'vibecodingtracker-real-session-v1.0.95-zh.jsonl')));
    const results = (k.tool_result as ToolResultEvent[]).filter((r) => r.callId === 'toolu_01Lv3xFNGrJLeUh53hersj2H');
    expect(results).toHaveLength(1);
    expect(results[0]!.toolName).toBe('TodoWrite');
    expect((k.tool_result as ToolResultEvent[]).every((r) => r.toolName !== undefined)).toBe(true);
  });

  it('turns text and image result blocks into text', () => {
    const line = JSON.stringify({
      type: 'user',
      sessionId: 's',
      cwd: '/w',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'shot:' }, { type: 'image', source: { type: 'base64', data: 'AAAA' } }] }] },
    });
    expect(parseSync(claudeCore, line + '\n', { kinds: ['tool_result'] })).toMatchObject([{ callId: 'x', output: 'shot:\n[image]' }]);
  });
});

describe.each(CONSTRUCTED.map((f) => [f.slice(PROJECTS.length)]))('constructed fixture %s', (rel) => {
  const file = join(PROJECTS, rel);
  it('gives the same events for every chunk size', async () => {
    await expectChunkInvariant(await codecWithSidecar(file), file);
  });
  it('resumes at every line boundary and at random mid-line cuts to the same events as a full read', async () => {
    const content = await readFile(file);
    await expectResumeEqualsFull(claude, content, lineBoundaries(content));
    await expectResumeEqualsFull(claude, content, randomCuts(content.length, 25, 3));
    await expectResumeEqualsFull(claude, content, randomCuts(content.length, 10, 4), { kinds: ['session', 'usage'] });
  });
});
