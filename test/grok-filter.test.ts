/**
 * Grok Build's usage-only reads (the cost scan's: kinds ⊆ {usage, session}) pass over the lines that hold
 * neither a turn's usage nor a model by their bytes (codecs/grok/parse.ts `USAGE_MARKERS`), before any
 * JSON.parse, once the first record is out and the first event id has told a fork's copy. Over every fixture
 * and two generated sessions (a fork whose copied lines come first, and its origin), at read chunks of 1 MiB,
 * 4 KiB and 61 bytes, such a read gives the events of the full parse, and resuming it at line boundaries and
 * random cuts gives the full read's.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverGrokSync, grok } from '../codecs/grok/index.js';
import type { ReadOptions } from '../cursors/protocol/codec.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { parseSync } from '../cursors/sync.js';
import { expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';

const FIXTURES = [...discoverGrokSync([new URL('../fixtures/grok/sessions/', import.meta.url).pathname, new URL('../fixtures/grok/current/sessions/', import.meta.url).pathname])].map((f) => f.path);
const CHUNKS = [1 << 20, 4096, 61] as const;
const ORIGIN = '0b1c2d3e-aaaa-7bbb-8ccc-000000000001';
const FORK = '0b1c2d3e-aaaa-7bbb-8ccc-000000000002';

/** One update line as Grok writes it (README "Record"), its event id `<session>-<n>`. */
function update(session: string, eventOf: string, n: number, method: string, body: Record<string, unknown>, meta: Record<string, unknown> = {}): string {
  const params = { sessionId: session, update: body, _meta: { eventId: `${eventOf}-${n}`, agentTimestampMs: 1_786_000_000_000 + n * 1000, ...meta } };
  return JSON.stringify({ timestamp: 1_786_000_000 + n, method, params });
}

/** Turns of `session` with event ids of `eventOf`: chunks, a large tool result, a model switch, turns with and without their own model. */
function turns(session: string, eventOf: string, from: number, count: number): string[] {
  const out: string[] = [];
  let n = from;
  const add = (method: string, body: Record<string, unknown>, meta?: Record<string, unknown>) => out.push(update(session, eventOf, n++, method, body, meta));
  for (let t = 0; t < count; t++) {
    add('session/update', { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `step ${t}` }, ...(t % 3 === 0 && { _meta: { modelId: `grok-4.${t}` } }) });
    for (let k = 0; k < 4; k++) add('session/update', { sessionUpdate: k % 2 === 0 ? 'agent_thought_chunk' : 'agent_message_chunk', content: { type: 'text', text: 'a "modelId" and turn_completed, in text '.repeat(5) } });
    add('session/update', { sessionUpdate: 'tool_call', toolCallId: `c${n}`, title: 'read', kind: 'read', status: 'pending', rawInput: { path: `src/${t}.ts` } });
    add('session/update', { sessionUpdate: 'tool_call_update', toolCallId: `c${n - 1}`, status: 'completed', rawOutput: { text: 'x'.repeat(20_000) } });
    if (t % 4 === 1) add('_x.ai/session/update', { sessionUpdate: 'model_auto_switched', new_model_id: `grok-auto-${t}` });
    if (t % 5 === 2) add('_x.ai/session/update', { sessionUpdate: 'model_changed', model_id: `grok-pick-${t}` });
    const usage = { inputTokens: 1000 + t, outputTokens: 50 + t, totalTokens: 1050 + 2 * t, cachedReadTokens: 400, reasoningTokens: 5, ...(t % 7 === 3 && { usageIsIncomplete: true }) };
    add('_x.ai/session/update', { sessionUpdate: 'turn_completed', prompt_id: `p-${t}`, stop_reason: 'end_turn', usage });
  }
  return out;
}

let tmp = '';
let generated: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-grok-filter-'));
  const origin = turns(ORIGIN, ORIGIN, 0, 12);
  // a fork: its origin's first turns copied line by line under its own session id, then its own turns
  const fork = [...turns(FORK, ORIGIN, 0, 5), ...turns(FORK, FORK, 100, 12)];
  generated = [];
  for (const [id, lines] of [[ORIGIN, origin], [FORK, fork]] as const) {
    const dir = join(tmp, 'sessions', '%2Fhome%2Fdev%2Fapp', id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'updates.jsonl'), `${lines.join('\n')}\n`);
    generated.push(join(dir, 'updates.jsonl'));
  }
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const only = (events: readonly SessionfoldEvent[], kinds: readonly string[]) => events.filter((e) => kinds.includes(e.type));

const READS: readonly { name: string; options: ReadOptions; kinds: readonly string[] }[] = [
  { name: 'usage', options: { kinds: ['usage'] }, kinds: ['usage'] },
  { name: 'session + usage (the cost scan)', options: { kinds: ['session', 'usage'], titles: false }, kinds: ['session', 'usage'] },
];

describe('grok usage-only reads', () => {
  it('pass over the lines without a usage or model marker, and still see the fork, the models and the incomplete turns', async () => {
    const [origin, fork] = generated as [string, string];
    const info = newReadInfo();
    const events = await readEvents(grok, fork, { kinds: ['session', 'usage'], info });
    expect(info.filteredLines).toBeGreaterThan(50);
    const sessions = events.filter((e): e is SessionEvent => e.type === 'session');
    expect(sessions.some((e) => e.forkedFrom === ORIGIN)).toBe(true);
    expect(sessions.some((e) => e.usageUnknown === true)).toBe(true);
    const usage = events.filter((e): e is UsageEvent => e.type === 'usage');
    expect(usage.filter((u) => u.copied === true)).toHaveLength(5);
    expect(new Set(usage.map((u) => u.model)).size).toBeGreaterThan(3);
    const originInfo = newReadInfo();
    await readEvents(grok, origin, { kinds: ['usage'], info: originInfo });
    expect(originInfo.filteredLines).toBeGreaterThan(50);
  });

  describe.each(READS)('$name', ({ options, kinds }) => {
    it.each(CHUNKS)('equals the full parse over every fixture and the generated sessions, read in chunks of %i bytes', async (chunk) => {
      for (const file of [...FIXTURES, ...generated]) {
        const full = only(await readEvents(grok, file, { titles: options.titles }), kinds);
        expect(await readEvents(grok, file, { ...options, bufferSize: chunk }), `${file} file read`).toEqual(full);
        const content = await readFile(file);
        expect(parseSync(grok.lineCoreFor!(file)!, content, { ...options, chunkSize: chunk, file }), `${file} parseSync`).toEqual(full);
      }
    });

    it('resuming at line boundaries and random cuts equals a full read', async () => {
      for (const file of generated) {
        const content = await readFile(file);
        const bounds = lineBoundaries(content);
        const cuts = [...new Set([...bounds.filter((_, i) => i % 5 === 0), ...randomCuts(content.length, 20, content.length)])].sort((a, b) => a - b);
        const run = await expectResumeEqualsFull(grok, content, cuts, options, join('%2Fhome%2Fdev%2Fapp', file.split('/').at(-2) as string, 'updates.jsonl'));
        expect(run.full.usage.length).toBeGreaterThan(0);
      }
    });
  });
});
