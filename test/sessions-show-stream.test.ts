/**
 * `SessionManager.stream` and the library's streamed export (`exportPieces`, which `sessions show|export`
 * write): the same messages as `get()`, and the same bytes as the whole session's Markdown, JSONL (with and
 * without its usage events) and JSON, over every real fixture file of every agent (the fold's two passes on
 * the codec's events), over every session the fixture home lists (through the manager), over event orders
 * built to make a message change after later ones (a call naming an earlier message, usage naming an earlier
 * or a later message, a second result for a call), and over seeded random event sequences.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { heapTuneApplies } from '../src/cli/heap.js';
import { findCodec, getCodec, loadCodec } from '../src/registry.js';
import { bindPricer } from '../src/sessions/cost.js';
import { exportPieces, renderExport, renderJsonl, type ExportSource } from '../src/sessions/export.js';
import { SessionFold, type FoldResult } from '../src/sessions/fold.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import { renderMarkdown } from '../src/sessions/markdown.js';
import type { Session, SessionMessage, SessionRaw } from '../src/sessions/types.js';
import { runCli } from '../src/cli/run.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, EXPORT_IDS, FAKE_PRICER, type Home, REAL, sink, writeExportSession } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';
import { unitRng } from './helpers/rng.js';

const PRICE = bindPricer(FAKE_PRICER, 'auto');
const CUTS = [{}, { maxBlockLines: 40 }, { maxBlockLines: 1 }];

/** The two passes `streamSession` makes, over events in memory; `early`: the messages out before the last event. */
function streamed(events: readonly SessionfoldEvent[]): { messages: SessionMessage[]; messageCount: number; early: number; first: FoldResult } {
  const first = new SessionFold({ content: false, price: PRICE, track: true, orphans: true, usageEvents: true });
  for (const e of events) first.push(e);
  const r = first.finish();
  const second = new SessionFold({ content: true, price: PRICE, settle: r.touches ?? [] });
  const messages: SessionMessage[] = [];
  let early = 0;
  events.forEach((e, i) => {
    second.push(e);
    messages.push(...second.takeSettled());
    if (i === events.length - 2) early = messages.length;
  });
  messages.push(...second.takeSettled(true));
  return { messages, messageCount: r.messageCount, early, first: r };
}

function whole(events: readonly SessionfoldEvent[]): FoldResult {
  const fold = new SessionFold({ content: true, price: PRICE, usageEvents: true });
  for (const e of events) fold.push(e);
  return fold.finish();
}

async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const piece of pieces) out += piece;
  return out;
}

/** A stream over messages already in memory, with `session`'s header. */
function streamOf(session: Session, messages: SessionMessage[], callDurations: ReadonlyMap<string, number>, usageEvents: readonly UsageEvent[]): ExportSource {
  return {
    session: { ...session, messages: [] },
    messageCount: messages.length,
    callDurations,
    usageEvents,
    async *messages() {
      yield* messages;
    },
  };
}

/** Every usage event of a file (any session's), each dedup key once, the first: a read apart from the fold's. */
async function usageRead(agent: string, file: string): Promise<UsageEvent[]> {
  const out = new Map<string, UsageEvent>();
  for await (const e of getCodec(agent).read(file, { kinds: ['usage'] })) if (e.type === 'usage' && !out.has(e.dedupKey)) out.set(e.dedupKey, e);
  return [...out.values()];
}

const SESSION: Session = { agent: 'claude', sessionId: 's', unifiedId: 'claude:s', title: 't', createdAt: new Date(0), updatedAt: new Date(0), turnCount: 1, tags: [], messages: [] };

/**
 * Markdown (every cut), JSONL (with the usage events and without) and JSON of the streamed messages equal
 * the whole fold's; the first pass's orphans and usage events too.
 */
async function expectSameExports(events: readonly SessionfoldEvent[]): Promise<{ early: number; total: number }> {
  const w = whole(events);
  const all = w.messages;
  const s = streamed(events);
  expect(s.messages).toEqual(all);
  expect(s.messageCount).toBe(all.length);
  expect(s.first.orphanUsage).toEqual(w.orphanUsage);
  expect(s.first.usageEvents).toEqual(w.usageEvents);
  const session = (raw: SessionRaw): Session => ({ ...SESSION, raw });
  const full: Session = { ...session({ orphanUsage: w.orphanUsage } as SessionRaw), messages: all };
  const stream = (usage: readonly UsageEvent[] = s.first.usageEvents ?? []) => streamOf(session({ orphanUsage: s.first.orphanUsage } as SessionRaw), s.messages, s.first.callDurations ?? new Map(), usage);
  for (const o of CUTS) expect(await joined(exportPieces(stream(), 'markdown', o))).toBe(renderMarkdown({ ...SESSION, messages: all }, o));
  expect(await joined(exportPieces(stream([]), 'jsonl'))).toBe(renderJsonl(full));
  expect(await joined(exportPieces(stream(), 'jsonl'))).toBe(renderJsonl(full, w.usageEvents));
  const json = await joined(exportPieces(stream(), 'json'));
  expect(json).toBe(`${JSON.stringify(full, null, 2)}\n`);
  expect(json).toBe(renderExport(full, 'json'));
  return { early: s.early, total: all.length };
}

/** A fixture file a codec is expected to refuse: not a session of its own (a part of a session kept elsewhere). */
interface NotASession {
  agent: string;
  /** The files' folder under the agent's fixtures. */
  under: string;
  code: string;
  message: RegExp;
}

/** The failures reading the fixtures one by one may meet; any other fails the test. */
const NOT_SESSIONS: readonly NotASession[] = [
  // OpenCode's storage tree: each message and part is its own file, read through its session's (codecs/opencode)
  { agent: 'opencode', under: 'agent-sessions-storage/', code: 'PARSE_ERROR', message: /^Not an OpenCode export \(no "info"\)/ },
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('the fold over every real fixture file', () => {
  const agents = readdirSync(REAL).filter((a) => findCodec(a) !== undefined);

  it('knows the fixture agents', () => {
    expect(agents.length).toBeGreaterThanOrEqual(10);
  });

  const unexpected: string[] = [];
  const used = new Set<NotASession>();

  for (const agent of agents) {
    it(`${agent}: streamed messages, Markdown, JSONL and JSON equal get()'s`, async () => {
      const codec = findCodec(agent);
      if (codec === undefined) throw new Error(agent);
      await loadCodec(codec);
      let compared = 0;
      for (const file of filesUnder(join(REAL, agent))) {
        const events: SessionfoldEvent[] = [];
        try {
          for await (const e of codec.read(file)) events.push(e);
        } catch (e) {
          const known = NOT_SESSIONS.find((x) => x.agent === agent && relative(join(REAL, agent), file).startsWith(x.under) && (e as { code?: unknown }).code === x.code && x.message.test(String((e as Error).message)));
          if (known === undefined) unexpected.push(`${agent}: ${relative(REAL, file)}: ${String(e)}`);
          else used.add(known);
          continue;
        }
        if (events.length === 0) continue;
        await expectSameExports(events);
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
      expect(unexpected).toEqual([]);
    }, 60_000);
  }

  it('every named failure is met (none is stale)', () => {
    expect([...used]).toEqual(NOT_SESSIONS.filter((x) => agents.includes(x.agent)));
  });
});

describe('event orders that change a message after later ones', () => {
  const at = (i: number) => `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;
  const msg = (i: number, role: 'user' | 'assistant', text: string, nativeId?: string): SessionfoldEvent =>
    ({ type: 'message', agent: 'claude', sessionId: 's', offset: i, timestamp: at(i), role, text, ...(nativeId !== undefined && { nativeId }) }) as SessionfoldEvent;
  const call = (i: number, callId: string, messageId?: string): SessionfoldEvent =>
    ({ type: 'tool_call', agent: 'claude', sessionId: 's', offset: i, timestamp: at(i), callId, name: 'Bash', input: { command: `echo ${i}` }, ...(messageId !== undefined && { messageId }) }) as SessionfoldEvent;
  const result = (i: number, callId: string, extra: Record<string, unknown> = {}): SessionfoldEvent =>
    ({ type: 'tool_result', agent: 'claude', sessionId: 's', offset: i, timestamp: at(i), callId, output: `out ${i}\n`.repeat(3), isError: false, ...extra }) as SessionfoldEvent;
  const usage = (i: number, key: string, messageId?: string): SessionfoldEvent =>
    ({
      type: 'usage',
      agent: 'claude',
      sessionId: 's',
      offset: i,
      timestamp: at(i),
      model: 'claude-sonnet-4-5',
      inputTokens: 10 * i,
      outputTokens: i,
      reasoningTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      singleRequest: true,
      dedupKey: key,
      ...(messageId !== undefined && { messageId }),
    }) as SessionfoldEvent;

  it('a call and usage naming an earlier message, a late duration and error, a second result', async () => {
    const events = [
      msg(0, 'user', 'go'),
      msg(1, 'assistant', 'first', 'm1'),
      call(2, 'c1', 'm1'),
      result(3, 'c1'),
      msg(4, 'assistant', 'second', 'm2'),
      call(5, 'c2', 'm1'), // names m1 again, after m2 and a result
      usage(6, 'u1', 'm1'),
      result(7, 'c2', { durationMs: 1500 }),
      result(8, 'c1', { isError: true, durationMs: 20 }), // sets c1's flags late
      usage(9, 'u2'), // no id: the last assistant message (m2)
      msg(10, 'user', 'next'),
      msg(11, 'assistant', 'third', 'm3'),
      usage(12, 'u3', 'm3'),
      msg(13, 'assistant', 'more of third', 'm3'),
      msg(14, 'user', ''), // dropped: no text
      usage(15, 'u4', 'nope'),
    ];
    const r = await expectSameExports(events);
    // m3 and the messages before it go out before the end: the stream does not hold the session
    expect(r.early).toBeGreaterThan(0);
    expect(r.early).toBeLessThan(r.total);
  });

  it('usage naming a message still to come (Gemini writes a turn out when it closes), or one that never comes', async () => {
    const events = [
      msg(0, 'user', 'go'),
      msg(1, 'assistant', 'first', 'm1'),
      usage(2, 'u2', 'm3'), // m3 comes two lines on
      usage(3, 'u3', 'ghost'), // never comes: m1, the last assistant message when it came
      msg(4, 'user', 'next'),
      msg(5, 'assistant', 'second', 'm3'),
      msg(6, 'user', 'more'),
      msg(7, 'assistant', 'third', 'm4'),
    ];
    await expectSameExports(events);
    expect(whole(events).messages.map((m) => [m.content, m.usage?.dedupKey])).toEqual([
      ['go', undefined],
      ['first', 'u3'],
      ['next', undefined],
      ['second', 'u2'],
      ['more', undefined],
      ['third', undefined],
    ]);
  });

  it('no kept message: usage alone, an empty user line (JSON writes an empty messages array)', async () => {
    const events = [usage(0, 'u1'), msg(1, 'user', ''), usage(2, 'u2', 'nope')];
    expect(await expectSameExports(events)).toEqual({ early: 0, total: 0 });
    const json = await joined(exportPieces(streamOf({ ...SESSION, messages: [] }, [], new Map(), []), 'json'));
    expect(json).toMatch(/\n {2}"messages": \[\]\n\}\n$/);
    expect(JSON.parse(json)).toMatchObject({ messages: [] });
  });

  it('a result that never comes holds nothing, an unmatched result stands alone', async () => {
    const events = [msg(0, 'user', 'go'), msg(1, 'assistant', 'a', 'm1'), call(2, 'c1'), msg(3, 'user', 'again'), result(4, 'zz'), msg(5, 'assistant', 'b', 'm2')];
    const r = await expectSameExports(events);
    expect(r.early).toBe(r.total - 1);
  });
});

describe('seeded random event sequences', () => {
  const rng = unitRng; // the same sequences on every run
  // text a JSON, JSONL or Markdown layout could trip on: newlines, fences, quotes, escapes, non-ASCII, a root key
  const TEXTS = ['', 'plain', 'two\nlines', '```js\ncode\n```', '"messages": []', '\n  "messages": []\n', 'tab\tand \\ backslash', 'é → 日本 🙂', '    indented\n\n\nblank', '\u2028sep\u2029', '}\n]'];
  const INPUTS: unknown[] = [{}, [], { command: 'ls\n-la' }, { nested: { deep: [1, [2, {}], { x: null }] } }, null, 'a string', 42];

  function sequence(seed: number): SessionfoldEvent[] {
    const r = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    const base = (i: number) => ({ agent: 'claude', sessionId: r() < 0.03 ? 'other' : 's', offset: r() < 0.2 ? i - 1 : i, ...(r() < 0.9 && { timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }) });
    const events: SessionfoldEvent[] = [];
    const ids: string[] = [];
    const calls: string[] = [];
    const n = 5 + Math.floor(r() * 40);
    for (let i = 0; i < n; i++) {
      const k = r();
      if (k < 0.04) events.push({ type: 'session', ...base(i), nativeId: 's', ...(r() < 0.5 && { title: pick(TEXTS) }), ...(r() < 0.5 && { cwd: '/w' }) } as SessionfoldEvent);
      else if (k < 0.4) {
        const role = pick(['user', 'assistant', 'assistant', 'system'] as const);
        const nativeId = r() < 0.6 ? (r() < 0.4 && ids.length > 0 ? (ids[ids.length - 1] as string) : `m${i}`) : undefined;
        if (nativeId !== undefined) ids.push(nativeId);
        events.push({ type: 'message', ...base(i), role, text: pick(TEXTS), ...(r() < 0.2 && { thinking: pick(TEXTS) }), ...(nativeId !== undefined && { nativeId }), ...(r() < 0.5 && { model: pick(['m-a', 'm-b']) }), ...(r() < 0.1 && { subtype: 'compact' }) } as SessionfoldEvent);
      } else if (k < 0.6) {
        const callId = r() < 0.1 && calls.length > 0 ? pick(calls) : `c${i}`;
        calls.push(callId);
        events.push({ type: 'tool_call', ...base(i), callId, name: pick(['Bash', 'Read']), input: pick(INPUTS), ...(r() < 0.5 && ids.length > 0 && { messageId: pick(ids) }) } as SessionfoldEvent);
      } else if (k < 0.8) {
        const callId = r() < 0.85 && calls.length > 0 ? pick(calls) : `zz${i}`;
        events.push({ type: 'tool_result', ...base(i), callId, output: r() < 0.7 ? pick(TEXTS) : pick(INPUTS), isError: r() < 0.2, ...(r() < 0.3 && { durationMs: Math.floor(r() * 5000) }) } as SessionfoldEvent);
      } else {
        events.push({
          type: 'usage',
          ...base(i),
          model: pick(['m-a', 'm-b', 'free-x']),
          inputTokens: Math.floor(r() * 1000),
          outputTokens: Math.floor(r() * 100),
          reasoningTokens: 0,
          cacheReadTokens: Math.floor(r() * 50),
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          singleRequest: r() < 0.5,
          dedupKey: r() < 0.15 ? 'k0' : `k${i}`,
          ...(r() < 0.6 && ids.length > 0 && { messageId: r() < 0.1 ? pick(['nope', `m${i + 1 + Math.floor(r() * 6)}`]) : pick(ids) }), // 'nope' never comes, m<i+k> may
        } as SessionfoldEvent);
      }
    }
    return events;
  }

  it('every format of 300 sequences streams to the whole fold\'s bytes', async () => {
    let messages = 0;
    for (let seed = 1; seed <= 300; seed++) {
      try {
        messages += (await expectSameExports(sequence(seed))).total;
      } catch (e) {
        throw new Error(`seed ${seed}: ${(e as Error).message}`);
      }
    }
    expect(messages).toBeGreaterThan(1000);
  }, 60_000);
});

describe('through the manager', () => {
  let home: Home;
  let sm: SessionManager;

  fixtureManager((f) => ({ home, sm } = f));

  for (const agent of ['claude', 'codex', 'sessionfold-jsonl']) {
    it(`${agent}: every session streams to get()'s Markdown, JSONL, header and messages`, async () => {
      const listed = await sm.list(agent, { limit: 10_000 });
      let compared = 0;
      for (const s of listed) {
        let full: Session;
        try {
          full = await sm.get(agent, s.sessionId);
        } catch (e) {
          await expect(sm.stream(agent, s.sessionId)).rejects.toMatchObject({ code: (e as { code: string }).code });
          continue;
        }
        const stream = await sm.stream(agent, s.sessionId);
        expect(stream.messageCount).toBe(full.messages.length);
        const { raw, messages: _m, ...head } = full;
        const { raw: sraw, messages: none, ...shead } = stream.session;
        expect(none).toEqual([]);
        expect(shead).toEqual(head);
        expect({ ...sraw, orphanUsage: [] }).toEqual({ ...raw, orphanUsage: [] });
        const got: SessionMessage[] = [];
        for await (const m of stream.messages()) got.push(m);
        expect(got).toEqual(full.messages);
        for (const o of CUTS) expect(await joined(exportPieces(await sm.stream(agent, s.sessionId), 'markdown', o))).toBe(renderMarkdown(full, o));
        expect(await joined(exportPieces(await sm.stream(agent, s.sessionId), 'markdown'))).toBe(await sm.export(agent, s.sessionId, 'markdown'));
        const withOrphans = () => sm.stream(agent, s.sessionId, { orphanUsage: true });
        expect((await withOrphans()).session).toEqual({ ...full, messages: [] });
        expect(await joined(exportPieces({ ...(await withOrphans()), usageEvents: [] }, 'jsonl'))).toBe(renderExport(full, 'jsonl'));
        // show's stream: get()'s header, no usage events kept
        const lean = await sm.stream(agent, s.sessionId, { orphanUsage: true, usageEvents: false });
        expect(lean.session).toEqual({ ...full, messages: [] });
        expect(lean.usageEvents).toBeUndefined();
        expect((await withOrphans()).usageEvents).toBeDefined();
        // the usage events the first pass keeps are the ones a separate usage read finds
        const events = await usageRead(agent, full.raw?.file as string);
        const jsonl = await sm.export(agent, s.sessionId, 'jsonl');
        expect(jsonl).toBe(renderJsonl(full, events));
        expect(await joined(exportPieces(await withOrphans(), 'jsonl'))).toBe(jsonl);
        const json = await sm.export(agent, s.sessionId, 'json');
        expect(json).toBe(`${JSON.stringify(full, null, 2)}\n`);
        expect(await joined(exportPieces(await withOrphans(), 'json'))).toBe(json);
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
    }, 60_000);
  }

  it('show --format jsonl|json prints what export prints, over every real Claude fixture', async () => {
    const cli = async (args: string[]) => {
      const out = sink();
      expect(await runCli(['sessions', ...args], { stdout: out, stderr: sink(), env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } })).toBe(0);
      return out.text();
    };
    let timed = 0;
    for (const id of [...Object.values(CLAUDE_COPIES), CLAUDE_SUBAGENT_PARENT]) {
      for (const format of ['jsonl', 'json']) {
        const exported = await cli(['export', 'claude', id, '--format', format]);
        expect(await cli(['show', 'claude', id, '--format', format, '--no-pager']), `${id} ${format}`).toBe(exported);
        if (format === 'jsonl') timed += exported.split('\n').filter((l) => l !== '' && (JSON.parse(l) as { usage?: { timestamp?: string } }).usage?.timestamp !== undefined).length;
      }
    }
    // usage written with its own time, which show's JSONL used to drop
    expect(timed).toBeGreaterThan(0);
  });

  it('pages on a terminal: the pager reads the same bytes; --no-pager writes them straight out', async () => {
    const full = await sm.get('claude', CLAUDE_SUBAGENT_PARENT);
    const tty = () => Object.assign(sink(), { isTTY: true });
    const paged = join(home.dir, 'paged.md');
    const out = tty();
    const code = await runCli(['sessions', 'show', 'claude', CLAUDE_SUBAGENT_PARENT], { stdout: out, stderr: sink(), env: { ...home.env, PAGER: `cat > '${paged}'` } });
    expect(code).toBe(0);
    expect(out.text()).toBe('');
    const expected = renderMarkdown(full, { maxBlockLines: 40 });
    expect(readFileSync(paged, 'utf8')).toBe(expected);
    // --no-pager writes straight to the terminal
    const direct = tty();
    expect(await runCli(['sessions', 'show', 'claude', CLAUDE_SUBAGENT_PARENT, '--no-pager'], { stdout: direct, stderr: sink(), env: home.env })).toBe(0);
    expect(direct.text()).toBe(expected);
  });

  it('export reads the file twice in the CLI (the two passes of its stream), once in the library', async () => {
    const codec = getCodec('claude');
    const file = (await sm.get('claude', CLAUDE_SUBAGENT_PARENT)).raw?.file as string;
    const read = vi.spyOn(codec, 'read');
    const reads = () => read.mock.calls.filter((c) => c[0] === file).length;
    try {
      for (const format of ['jsonl', 'json', 'markdown'] as const) {
        read.mockClear();
        const out = sink();
        expect(await runCli(['sessions', 'export', 'claude', CLAUDE_SUBAGENT_PARENT, '--format', format], { stdout: out, stderr: sink(), env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } })).toBe(0);
        expect(reads(), format).toBe(2);
        read.mockClear();
        // a manager with the CLI's defaults (the test pricer is the shared manager's only)
        const whole = await createSessionManager({ env: home.env }).export('claude', CLAUDE_SUBAGENT_PARENT, format);
        expect(reads(), format).toBe(1);
        expect(out.text(), format).toBe(whole);
      }
    } finally {
      read.mockRestore();
    }
  });

  it('a session without a kept message exports and streams as get() has it', async () => {
    const id = 'usage-only-1';
    const usage = { model: 'claude-sonnet-4-5', inputTokens: 40, outputTokens: 4, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: 'k:usage-only' };
    await writeExportSession(home.exports, { agent: 'claude', sessionId: id, createdAt: '2026-01-06T00:00:00.000Z' }, [{ role: 'assistant', content: '', timestamp: '2026-01-06T00:00:01.000Z', usage, orphanUsage: true } as never]);
    const full = await sm.get('sessionfold-jsonl', id);
    expect(full.messages).toEqual([]);
    expect(full.cost?.requestCount).toBe(1);
    const json = await sm.export('sessionfold-jsonl', id, 'json');
    expect(json).toBe(`${JSON.stringify(full, null, 2)}\n`);
    expect(json).toContain('\n  "messages": [],\n');
    expect(await joined(exportPieces(await sm.stream('sessionfold-jsonl', id, { orphanUsage: true }), 'json'))).toBe(json);
    const jsonl = await sm.export('sessionfold-jsonl', id, 'jsonl');
    expect(jsonl.trimEnd().split('\n')).toHaveLength(2); // the header and the usage line
    expect(await joined(exportPieces(await sm.stream('sessionfold-jsonl', id, { orphanUsage: true }), 'jsonl'))).toBe(jsonl);
  });

  it('JSON and JSONL want a stream opened with its orphan usage', async () => {
    const stream = await sm.stream('sessionfold-jsonl', EXPORT_IDS.parent);
    expect(stream.usageEvents).toBeUndefined();
    for (const f of ['json', 'jsonl'] as const) expect(() => exportPieces(stream, f)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
    expect(() => exportPieces(stream, 'xml' as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
  });

  it('errors as get() does', async () => {
    await expect(sm.stream('nope', 'x')).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    await expect(sm.stream('sessionfold-jsonl', 'missing-id')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(sm.stream('sessionfold-jsonl', 'broken-1')).rejects.toMatchObject({ code: 'PARSE_ERROR' });
  });
});

describe('the heap tune for a streamed show', () => {
  it('applies unless the user set the growth or a heap size, or turned it off', () => {
    expect(heapTuneApplies('', {})).toBe(true);
    expect(heapTuneApplies('--max-old-space-size=100', {})).toBe(false);
    expect(heapTuneApplies('--max_old_space_size=100', {})).toBe(false);
    expect(heapTuneApplies(' --heap-growing-percent=50', {})).toBe(false);
    expect(heapTuneApplies('', { SESSIONFOLD_HEAP_TUNE: '0' })).toBe(false);
  });
});
