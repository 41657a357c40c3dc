/**
 * The native line source (native/lines.c, driven by cursors/native-lines.ts) against the JavaScript
 * LineSplitter: a read() through either gives the same events, counts and cursor. Checked on every Claude and
 * Codex fixture and on generated files, for usage, session and full reads, with read buffers from a few bytes
 * (every line spans chunks, the buffer grows, long lines are streamed and read back) to the default, with
 * lines over maxLineBytes, CRLF endings, empty lines, a final line without LF, and markers that straddle the
 * buffer's end. SESSIONFOLD_NATIVE_LINES=0 turns the native source off for the reference.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import { gemini } from '../codecs/gemini/index.js';
import type { Codec, ReadCursor, ReadOptions } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { nativeKernel } from '../cursors/native.js';
import { nativeLineReads } from '../cursors/native-lines.js';
import { CLAUDE_SID, claudeLine } from './helpers/claude-model.js';
import { codexLine } from './helpers/codex-model.js';
import { PLAIN, serialize } from './helpers/json-model.js';
import { LOCAL_FIXTURES, meta, REAL_DIR, REAL_FIXTURES } from './codex-helpers.js';
import { jsonlFiles } from './helpers/files.js';

const REAL_GEMINI = fileURLToPath(new URL('../../shared/fixtures/real/gemini/', import.meta.url));
const REAL_CLAUDE = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const LOCAL_CLAUDE = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
const CODEX_ID = '0199a000-0000-7000-8000-000000000099';
const KINDS: (EventKind[] | undefined)[] = [['usage'], ['session', 'usage'], ['session'], undefined];

interface Read {
  events: SessionfoldEvent[];
  info: ReturnType<typeof newReadInfo>;
  cursor: ReadCursor | undefined;
  partial: boolean | undefined;
  error: string | undefined;
}

async function read(codec: Codec, file: string, native: boolean, options: ReadOptions): Promise<Read> {
  const info = newReadInfo();
  const events: SessionfoldEvent[] = [];
  let cursor: ReadCursor | undefined;
  let partial: boolean | undefined;
  let error: string | undefined;
  const was = process.env.SESSIONFOLD_NATIVE_LINES;
  process.env.SESSIONFOLD_NATIVE_LINES = native ? '1' : '0';
  try {
    // verifyPrefix false: no running sha256, so the native source may take the read (it does not hand bytes over)
    for await (const e of codec.read(file, { ...options, info, resume: { verifyPrefix: false, onCursor: (u) => ((cursor = u.cursor), (partial = u.partialLine)) } })) events.push(e);
  } catch (e) {
    error = (e as Error).message;
  } finally {
    if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_LINES;
    else process.env.SESSIONFOLD_NATIVE_LINES = was;
  }
  return { events, info, cursor, partial, error };
}

async function expectSameReads(codec: Codec, file: string, options: ReadOptions): Promise<number> {
  const want = await read(codec, file, false, options);
  const got = await read(codec, file, true, options);
  expect(got).toEqual(want);
  return want.events.length;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-lines-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});
let serial = 0;
async function put(name: string, content: string | Buffer): Promise<string> {
  const file = join(tmp, `${serial++}`, name);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

const describeNative = nativeKernel() === undefined ? describe.skip : describe;

describeNative('native line source: the same reads as the JavaScript splitter', () => {
  it('every Claude, Codex and Gemini JSONL fixture, every kind of read, buffers of 7 bytes to the default', async () => {
    const files: [Codec, string][] = [
      ...[...(await jsonlFiles(REAL_CLAUDE)), ...(await jsonlFiles(LOCAL_CLAUDE))].map((f): [Codec, string] => [claude, f]),
      ...[...REAL_FIXTURES.map((n) => `${REAL_DIR}${n}.jsonl`), ...LOCAL_FIXTURES].map((f): [Codec, string] => [codex, f]),
      ...(await jsonlFiles(REAL_GEMINI)).map((f): [Codec, string] => [gemini, f]),
    ];
    let events = 0;
    const before = nativeLineReads.count;
    for (const [codec, file] of files) {
      for (const kinds of KINDS) for (const bufferSize of [7, 300, undefined]) events += await expectSameReads(codec, file, { kinds, bufferSize });
    }
    expect(events).toBeGreaterThan(500);
    expect(nativeLineReads.count - before).toBe(files.length * KINDS.length * 3); // every native read did run natively
  });

  it('the same with the plain C loops (every machine without AVX2): the multi-marker search without SIMD', async () => {
    const k = nativeKernel() as NonNullable<ReturnType<typeof nativeKernel>>;
    k.simd(false);
    try {
      const files: [Codec, string][] = [
        ...[...(await jsonlFiles(REAL_CLAUDE)), ...(await jsonlFiles(LOCAL_CLAUDE))].map((f): [Codec, string] => [claude, f]),
        ...[...REAL_FIXTURES.map((n) => `${REAL_DIR}${n}.jsonl`), ...LOCAL_FIXTURES].map((f): [Codec, string] => [codex, f]),
        ...(await jsonlFiles(REAL_GEMINI)).map((f): [Codec, string] => [gemini, f]),
      ];
      let events = 0;
      for (const [codec, file] of files) for (const bufferSize of [7, 300, undefined]) events += await expectSameReads(codec, file, { kinds: ['usage'], bufferSize });
      expect(events).toBeGreaterThan(50);
    } finally {
      k.simd(true);
    }
  });

  it('long lines: grown buffers, streamed lines read back, lines over maxLineBytes skipped and counted', async () => {
    const big = 'x'.repeat(5000);
    const lines = [
      JSON.stringify({ type: 'user', cwd: '/w', sessionId: CLAUDE_SID, message: { role: 'user', content: 'go' } }),
      JSON.stringify({ type: 'user', sessionId: CLAUDE_SID, message: { role: 'user', content: big } }),
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r1', message: { id: 'm1', model: 'claude-opus-4-1-20250805', content: [{ type: 'text', text: big }], usage: { input_tokens: 1, output_tokens: 2 } } }),
      JSON.stringify({ type: 'custom-title', customTitle: big.slice(0, 900), sessionId: CLAUDE_SID }),
      '',
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r2', message: { id: 'm2', model: 'claude-opus-4-1-20250805', usage: { input_tokens: 3, output_tokens: 4 } } }) + '\r',
      JSON.stringify({ type: 'assistant', sessionId: CLAUDE_SID, requestId: 'r3', message: { id: 'm3', model: 'claude-opus-4-1-20250805', content: big, usage: { input_tokens: 5, output_tokens: 6 } } }),
    ];
    const file = await put(`projects/-w/${CLAUDE_SID}.jsonl`, lines.join('\n') + '\n' + lines[5]);
    for (const kinds of KINDS) {
      for (const bufferSize of [16, 64, 1000, 4096, undefined]) {
        for (const maxLineBytes of [undefined, 3000, 6000]) await expectSameReads(claude, file, { kinds, bufferSize, maxLineBytes });
      }
    }
    const rollout = [
      JSON.stringify(meta(CODEX_ID, 0)),
      JSON.stringify({ timestamp: '2025-11-05T12:00:01.000Z', type: 'response_item', payload: { type: 'function_call_output', output: `token_count ${big}` } }),
      `{"timestamp":"2025-11-05T12:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"output_tokens":2}},"pad":"${big}"}}`,
      `{"pad":"${big}","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":20,"output_tokens":3}}}}`,
    ];
    const rf = await put(`sessions/2025/11/05/rollout-2025-11-05T12-00-00-${CODEX_ID}.jsonl`, rollout.join('\n') + '\n');
    for (const kinds of KINDS) for (const bufferSize of [16, 200, 4096, undefined]) for (const maxLineBytes of [undefined, 5100]) await expectSameReads(codex, rf, { kinds, bufferSize, maxLineBytes });
  });

  it('generated Claude transcripts and Codex rollouts, any buffer size (property)', async () => {
    const opening = JSON.stringify({ type: 'user', cwd: '/w', sessionId: CLAUDE_SID, uuid: 'u0', message: { role: 'user', content: 'go' } });
    const header = JSON.stringify(meta(CODEX_ID, 0));
    const ending = fc.constantFrom('\n', '\r\n', '\n\n');
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.tuple(fc.oneof(claudeLine, codexLine), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), ending), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        fc.constantFrom<EventKind[] | undefined>(['usage'], ['session', 'usage'], undefined),
        async (isClaude, ls, bufferSize, lastLf, kinds) => {
          let content = (isClaude ? opening : header) + '\n' + ls.map(([l, seed, end]) => serialize(l, { ...PLAIN, seed }) + end).join('');
          if (!lastLf) content = content.replace(/\r?\n+$/, '');
          const file = isClaude ? await put(`projects/-w/${CLAUDE_SID}.jsonl`, content) : await put(`sessions/2025/11/05/rollout-2025-11-05T12-00-00-${CODEX_ID}.jsonl`, content);
          await expectSameReads(isClaude ? claude : codex, file, { kinds, bufferSize });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a core whose markers change mid-read is refused, not misread', async () => {
    const { scanNativeLines } = await import('../cursors/native-lines.js');
    const { normalizeReadOptions } = await import('../cursors/protocol/codec.js');
    const { openSync, closeSync } = await import('node:fs');
    const file = await put('any.jsonl', 'a\nb\nc\n');
    const fd = openSync(file, 'r');
    try {
      let n = 0;
      const core = {
        init: () => ({}),
        restore: () => ({}),
        snapshot: () => ({}),
        line: () => undefined,
        end: () => ({}),
        markers: () => (n++ === 0 ? [Buffer.from('a')] : [Buffer.from('b')]),
      };
      const it = scanNativeLines(fd, core, {}, 0, 6, normalizeReadOptions({}), file, () => undefined);
      expect(() => {
        for (let r = it.next(); !r.done; r = it.next());
      }).toThrow(/changed its markers/);
    } finally {
      closeSync(fd);
    }
  });
});
