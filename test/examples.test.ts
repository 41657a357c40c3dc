/** Docs that run: every example in examples/ is executed here. */
import { appendFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { followOnce } from '../examples/resume-a-growing-file.js';
import type { SessionfoldEvent, UsageEvent, EventOfKind, Codec } from '../src/index.js';
import { getCodec, getParserVersion } from '../src/index.js';

describe('examples', () => {
  it('resume-a-growing-file counts only new usage on each run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-ex-'));
    const file = join(dir, 's.jsonl');
    const store = join(dir, 'cursors.json');
    const line = (i: number) => JSON.stringify({ type: 'sessionfold.message', index: i, role: 'assistant', content: 'x', usage: { inputTokens: 1, outputTokens: 1 } }) + '\n';
    await writeFile(file, line(0) + line(1));
    expect(await followOnce(file, 'sessionfold-jsonl', store)).toEqual({ newUsage: 2, restarted: true });
    await appendFile(file, line(2));
    expect(await followOnce(file, 'sessionfold-jsonl', store)).toEqual({ newUsage: 1, restarted: false });
    expect(await followOnce(file, 'sessionfold-jsonl', store)).toEqual({ newUsage: 0, restarted: false });
  });
});

describe('public types', () => {
  it('narrows events by kind and exposes the codec contract', () => {
    expectTypeOf<EventOfKind<'usage'>>().toEqualTypeOf<UsageEvent>();
    expectTypeOf<SessionfoldEvent['type']>().toEqualTypeOf<'session' | 'message' | 'usage' | 'tool_call' | 'tool_result'>();
    expectTypeOf(getCodec).returns.toEqualTypeOf<Codec>();
    expect(getParserVersion({ parserVersion: 3 })).toBe('n1.p3');
  });
});
