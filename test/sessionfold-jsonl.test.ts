import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { newReadInfo } from '../cursors/protocol/codec.js';

const SAMPLE = [
  { type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: 'abc', title: 'Fix the 🐛 in ünïcode', createdAt: '2026-01-02T03:04:05.000Z', cwd: '/w' },
  { type: 'sessionfold.message', index: 0, role: 'user', content: 'héllo — 世界', timestamp: '2026-01-02T03:04:05.000Z' },
  {
    type: 'sessionfold.message',
    index: 1,
    role: 'assistant',
    content: 'Running a tool',
    model: 'claude-sonnet-4-5',
    thinking: 'hmm',
    toolCalls: [{ toolCallId: 't1', toolName: 'Bash', input: { command: 'ls' } }],
    usage: { model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 7, cacheWrite1hTokens: 2, singleRequest: true, dedupKey: 'claude:m1:r1' },
  },
  { type: 'sessionfold.message', index: 2, role: 'tool', content: '', toolResult: { toolCallId: 't1', toolName: 'Bash', output: 'a\nb', isError: false } },
];

async function tmpFile(content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-jsonl-'));
  const f = join(dir, 'abc.jsonl');
  await writeFile(f, content);
  return f;
}

describe('sessionfold-jsonl codec', () => {
  const text = SAMPLE.map((r) => JSON.stringify(r)).join('\r\n') + '\n\n{"type":"sessionfold.message", broken\n[1,2]\n';

  it('yields session, message, tool_call, tool_result and usage events', async () => {
    const info = newReadInfo();
    const events = await readEvents(sessionfoldJsonl, await tmpFile(text), { info });
    const k = byKind(events);
    expect(k.session).toHaveLength(1);
    expect(k.message.map((m) => (m as { text: string }).text)).toEqual(['héllo — 世界', 'Running a tool', '']);
    expect(k.tool_call).toMatchObject([{ callId: 't1', name: 'Bash', input: { command: 'ls' } }]);
    expect(k.tool_result).toMatchObject([{ callId: 't1', toolName: 'Bash', output: 'a\nb', isError: false }]);
    expect(k.usage).toMatchObject([{ inputTokens: 10, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 7, cacheWrite1hTokens: 2, dedupKey: 'claude:m1:r1', singleRequest: true }]);
    expect(info.skippedLines).toBe(2);
    expect(info.lines).toBe(7);
  });

  it('gives the same events for every chunk size', async () => {
    await expectChunkInvariant(sessionfoldJsonl, await tmpFile(text));
  });

  it('usage-only reads yield the same usage as a full read', async () => {
    const f = await tmpFile(text);
    const info = newReadInfo();
    const usage = await readEvents(sessionfoldJsonl, f, { kinds: ['usage'], info });
    expect(usage).toEqual(byKind(await readEvents(sessionfoldJsonl, f)).usage);
    expect(info.events).toBe(1);
  });

  it('resumes at every line boundary and random mid-line cuts to the same events as a full read', async () => {
    const buf = Buffer.from(text);
    await expectResumeEqualsFull(sessionfoldJsonl, buf, lineBoundaries(buf));
    await expectResumeEqualsFull(sessionfoldJsonl, buf, randomCuts(buf.length, 25, 7));
  });

  it('throws PARSE_ERROR on a malformed line in strict mode', async () => {
    await expect(readEvents(sessionfoldJsonl, await tmpFile(text), { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('sessionfold-jsonl locate', () => {
  it('never resolves an id that names a path outside the roots', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-loc-'));
    await writeFile(join(dir, 'outside.jsonl'), '{"type":"sessionfold.session","version":1,"agent":"x","sessionId":"outside"}\n');
    const root = join(dir, 'root');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(root);
    await writeFile(join(root, 'inside.jsonl'), '{"type":"sessionfold.session","version":1,"agent":"x","sessionId":"inside"}\n');
    expect(await sessionfoldJsonl.locate?.([root], '../outside')).toBeUndefined();
    expect((await sessionfoldJsonl.locate?.([root], 'inside'))?.path).toBe(join(root, 'inside.jsonl'));
  });

  it('finds an export in a folder below a root, where no file of its name is at the top', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sf-loc-'));
    const { mkdir, rm } = await import('node:fs/promises');
    await mkdir(join(root, 'group', 'deeper'), { recursive: true });
    const nested = join(root, 'group', 'deeper', 'nested.jsonl');
    await writeFile(nested, '{"type":"sessionfold.session","version":1,"agent":"x","sessionId":"nested"}\n');
    expect(await sessionfoldJsonl.locate?.([join(root, 'missing'), root], 'nested')).toEqual({ agent: 'sessionfold-jsonl', path: nested, root, sessionId: 'nested' });
    expect(await sessionfoldJsonl.locate?.([root], 'absent')).toBeUndefined();
    await rm(root, { recursive: true, force: true });
  });
});
