/**
 * `SessionManager.stream` and the streamed Markdown and JSONL of `sessions show|export`: the same messages as
 * `get()`, and the same bytes as `renderMarkdown(get(…))` and `renderJsonl(get(…), events)`, over every real fixture file of every agent (the fold's two passes on the
 * codec's events), over every session the fixture home lists (through the manager), and over event orders
 * built to make a message change after later ones (a call naming an earlier message, usage naming an earlier
 * message, a second result for a call).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { heapTuneApplies } from '../src/cli/heap.js';
import { jsonlPieces, markdownPieces } from '../src/cli/render/session-stream.js';
import { findCodec, loadCodec } from '../src/registry.js';
import { bindPricer } from '../src/sessions/cost.js';
import { renderExport, renderJsonl } from '../src/sessions/export.js';
import { SessionFold, type FoldResult } from '../src/sessions/fold.js';
import { readUsageEvents, type SessionStream } from '../src/sessions/get.js';
import type { SessionManager } from '../src/sessions/manager.js';
import { renderMarkdown } from '../src/sessions/markdown.js';
import type { Session, SessionMessage, SessionRaw } from '../src/sessions/types.js';
import { runCli } from '../src/cli/run.js';
import { CLAUDE_SUBAGENT_PARENT, FAKE_PRICER, type Home, REAL, sink } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';

const PRICE = bindPricer(FAKE_PRICER, 'auto');
const CUTS = [{}, { maxBlockLines: 40 }, { maxBlockLines: 1 }];

/** The two passes `streamSession` makes, over events in memory; `early`: the messages out before the last event. */
function streamed(events: readonly SessionfoldEvent[]): { messages: SessionMessage[]; messageCount: number; early: number; first: FoldResult } {
  const first = new SessionFold({ content: false, price: PRICE, track: true, orphans: true });
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
  const fold = new SessionFold({ content: true, price: PRICE });
  for (const e of events) fold.push(e);
  return fold.finish();
}

async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const piece of pieces) out += piece;
  return out;
}

/** A stream over messages already in memory, with `session`'s header. */
function streamOf(session: Session, messages: SessionMessage[], callDurations: ReadonlyMap<string, number>): SessionStream {
  return {
    session: { ...session, messages: [] },
    messageCount: messages.length,
    callDurations,
    async *messages() {
      yield* messages;
    },
  };
}

const SESSION: Session = { agent: 'claude', sessionId: 's', unifiedId: 'claude:s', title: 't', createdAt: new Date(0), updatedAt: new Date(0), turnCount: 1, tags: [], messages: [] };

/** Markdown (every cut) and JSONL of the streamed messages equal the whole fold's; the first pass's orphans too. */
async function expectSameMarkdown(events: readonly SessionfoldEvent[]): Promise<{ early: number; total: number }> {
  const w = whole(events);
  const all = w.messages;
  const s = streamed(events);
  expect(s.messages).toEqual(all);
  expect(s.messageCount).toBe(all.length);
  expect(s.first.orphanUsage).toEqual(w.orphanUsage);
  const session = (raw: SessionRaw | undefined): Session => ({ ...SESSION, ...(raw !== undefined && { raw }) });
  const raw = { orphanUsage: w.orphanUsage } as SessionRaw;
  const stream = () => streamOf(session({ orphanUsage: s.first.orphanUsage } as SessionRaw), s.messages, s.first.callDurations ?? new Map());
  for (const o of CUTS) expect(await joined(markdownPieces(stream(), o))).toBe(renderMarkdown({ ...SESSION, messages: all }, o));
  expect(await joined(jsonlPieces(stream()))).toBe(renderJsonl({ ...session(raw), messages: all }));
  return { early: s.early, total: all.length };
}

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

  for (const agent of agents) {
    it(`${agent}: streamed messages, Markdown and JSONL equal get()'s`, async () => {
      const codec = findCodec(agent);
      if (codec === undefined) throw new Error(agent);
      await loadCodec(codec);
      let compared = 0;
      for (const file of filesUnder(join(REAL, agent))) {
        const events: SessionfoldEvent[] = [];
        try {
          for await (const e of codec.read(file)) events.push(e);
        } catch {
          continue; // not a session file of this codec (a sidecar, a -wal, PROVENANCE)
        }
        if (events.length === 0) continue;
        await expectSameMarkdown(events);
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
    }, 60_000);
  }
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
    const r = await expectSameMarkdown(events);
    // m3 and the messages before it go out before the end: the stream does not hold the session
    expect(r.early).toBeGreaterThan(0);
    expect(r.early).toBeLessThan(r.total);
  });

  it('a result that never comes holds nothing, an unmatched result stands alone', async () => {
    const events = [msg(0, 'user', 'go'), msg(1, 'assistant', 'a', 'm1'), call(2, 'c1'), msg(3, 'user', 'again'), result(4, 'zz'), msg(5, 'assistant', 'b', 'm2')];
    const r = await expectSameMarkdown(events);
    expect(r.early).toBe(r.total - 1);
  });
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
        for (const o of CUTS) expect(await joined(markdownPieces(await sm.stream(agent, s.sessionId), o))).toBe(renderMarkdown(full, o));
        const withOrphans = () => sm.stream(agent, s.sessionId, { orphanUsage: true });
        expect((await withOrphans()).session).toEqual({ ...full, messages: [] });
        expect(await joined(jsonlPieces(await withOrphans()))).toBe(renderExport(full, 'jsonl'));
        const events = await readUsageEvents(agent, full.raw?.file as string);
        expect(await joined(jsonlPieces(await withOrphans(), events))).toBe(await sm.export(agent, s.sessionId, 'jsonl'));
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
    }, 60_000);
  }

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
