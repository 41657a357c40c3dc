/**
 * Every real fixture of every agent registered with real fixtures (Claude, Codex, Gemini CLI, OpenCode,
 * Hermes, Cursor) saved into the session store and read back through the `store` agent: the same messages,
 * tool calls and results, and usage (each usage event with its origin's dedup key and tokens), subagents
 * included with their lineage. Then every stored transcript through the store codec: the same events whole
 * and in chunks, and resumed at every line boundary and at random cuts.
 */
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { sessionfoldStore } from '../codecs/sessionfold-jsonl/store.js';
import { findCodec, getCodec } from '../src/registry.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import type { Session, SessionMessage } from '../src/sessions/types.js';
import { importSession } from '../src/store/import.js';
import { SessionStore } from '../src/store/store.js';
import { expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts } from './helpers/codec-harness.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, copyClaudeFixtures, copyCodexFixtures, FAKE_PRICER, type Home, makeHome, REAL, snapshotTree } from './sessions-helpers.js';

let home: Home;
let codexIds: string[];
let sm: SessionManager;
let store: SessionStore;

beforeAll(async () => {
  home = await makeHome();
  await copyClaudeFixtures(home);
  codexIds = await copyCodexFixtures(home);
  const root = join(home.dir, 'store');
  home.env.SESSIONFOLD_STORE_DIR = root;
  store = await SessionStore.open(root);
  sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false });
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** The usage events of a session's file, each dedup key once, as a cost fold counts them. */
async function usageOf(agent: string, file: string): Promise<Omit<UsageEvent, 'agent' | 'sessionId' | 'offset' | 'messageId'>[]> {
  const seen = new Set<string>();
  const out = [];
  for await (const e of getCodec(agent).read(file, { kinds: ['usage'] })) {
    if (e.type !== 'usage' || seen.has(e.dedupKey)) continue;
    seen.add(e.dedupKey);
    const { agent: _a, sessionId: _s, offset: _o, messageId: _m, ...rest } = e;
    out.push(rest);
  }
  return out.sort((a, b) => (a.dedupKey < b.dedupKey ? -1 : a.dedupKey > b.dedupKey ? 1 : 0));
}

/**
 * A message as the store must keep it: the store names id-less messages itself, so their ids are not
 * compared; a tool call id used twice in one session (the sanitized Codex fixture gives every call the same
 * placeholder) cannot tell which result is whose, so those outputs are not compared either.
 */
function comparable(m: SessionMessage, keepId: boolean, duplicated: ReadonlySet<string>): unknown {
  const { id, toolCalls, ...rest } = m;
  return {
    ...rest,
    ...(keepId && { id }),
    ...(toolCalls !== undefined && { toolCalls: toolCalls.map((c) => (duplicated.has(c.toolCallId) ? { ...c, output: undefined } : c)) }),
  };
}

function duplicatedCallIds(s: Session): Set<string> {
  const ids = s.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.toolCallId);
  return new Set(ids.filter((id, i) => ids.indexOf(id) !== i));
}

function expectSame(original: Session, back: Session): void {
  expect(back.messages.length).toBe(original.messages.length);
  const dup = duplicatedCallIds(original);
  back.messages.forEach((m, i) => {
    const o = original.messages[i] as SessionMessage;
    expect(comparable(m, o.id !== undefined, dup), `message ${i}`).toEqual(comparable(o, o.id !== undefined, dup));
  });
  expect([back.title, back.cwd, back.createdAt, back.model]).toEqual([original.title, original.cwd, original.createdAt, original.model]);
  expect(back.cost?.requestCount ?? 0).toBe(original.cost?.requestCount ?? 0);
  expect(back.cost?.totalUsd ?? 0).toBeCloseTo(original.cost?.totalUsd ?? 0, 12);
  expect(back.raw?.orphanUsage).toEqual(original.raw?.orphanUsage);
}

async function roundTrip(agent: string, id: string, roots: Record<string, string[]> = {}): Promise<{ original: Session; back: Session }> {
  const m = Object.keys(roots).length === 0 ? sm : createSessionManager({ env: home.env, roots, pricer: FAKE_PRICER, cache: false });
  const original = await m.get(agent, id);
  const r = await importSession(store, agent, id, { manager: { env: home.env, roots } });
  const back = await m.get('store', r.name);
  expectSame(original, back);
  expect(await usageOf('store', back.raw!.file)).toEqual(await usageOf(agent, original.raw!.file));
  return { original, back };
}

describe('store round trip over every real fixture', () => {
  it('covers every Claude fixture in the shared folder', async () => {
    const names = (await readdir(join(REAL, 'claude'))).sort();
    expect(names).toEqual([...Object.keys(CLAUDE_COPIES), 'agent-sessions-subagent'].sort());
  });

  it('Claude: the same messages, tools and usage', async () => {
    for (const id of Object.values(CLAUDE_COPIES)) await roundTrip('claude', id);
  });

  it('Claude with a subagent: the child is stored with its lineage and read back as store:<parent>/<child>', async () => {
    const { back } = await roundTrip('claude', CLAUDE_SUBAGENT_PARENT);
    const ids = await store.listSubagentIds(back.sessionId);
    expect(ids).toEqual(['agent-a0ad4f44468bdf20d']);
    const lineage = await store.loadSubagentLineage(back.sessionId, ids[0]!);
    expect(lineage).toMatchObject({ parent: CLAUDE_SUBAGENT_PARENT, child: ids[0], origin: { agent: 'claude', sessionId: ids[0] }, spawnedBy: CLAUDE_SUBAGENT_PARENT });
    const original = await sm.get('claude', ids[0]!);
    const child = await sm.get('store', `${back.sessionId}/${ids[0]}`);
    expectSame(original, child);
    expect(child.forkedFrom).toBe(back.sessionId);
    const listed = await sm.list('store', { subagents: true });
    expect(listed.find((s) => s.sessionId === `${back.sessionId}/${ids[0]}`)?.subagent).toBe(true);
  });

  it('covers every Codex fixture in the shared folder', async () => {
    expect(codexIds.length).toBe((await readdir(join(REAL, 'codex'))).length);
  });

  it('Codex: the same messages, tools and usage', async () => {
    for (const id of codexIds) await roundTrip('codex', id);
  });
});

/** The agents registered since (Gemini CLI, OpenCode, Hermes, Cursor): their fixtures read in place, or laid out as the agent lays them out. */
async function laterAgents(): Promise<Record<string, string[]>> {
  const gemini = join(home.dir, '.gemini', 'tmp');
  for (const [i, name] of (await readdir(join(REAL, 'gemini'))).sort().entries()) {
    await mkdir(join(gemini, `p${i}`, 'chats'), { recursive: true });
    await copyFile(join(REAL, 'gemini', name), join(gemini, `p${i}`, 'chats', `session-2026-01-01T00-00-0${i}${name.endsWith('.jsonl') ? '.jsonl' : '.json'}`));
  }
  const opencode = join(REAL, 'opencode', 'agent-sessions-storage');
  // Cursor: each JSONL transcript as a project's agent transcript, the CLI chat store as a chat's store.db
  const cursor = join(home.dir, '.cursor');
  const transcripts = join(cursor, 'projects', 'Users-dev-app', 'agent-transcripts');
  await mkdir(transcripts, { recursive: true });
  await mkdir(join(cursor, 'chats', 'e4e90b7bcae743c9a1a1a045a49e1b1d', 'a1b2c3d4-e5f6-7890-abcd-ef1234567890'), { recursive: true });
  for (const name of await readdir(join(REAL, 'cursor'))) {
    if (name.endsWith('.jsonl')) await copyFile(join(REAL, 'cursor', name), join(transcripts, name));
    else await copyFile(join(REAL, 'cursor', name), join(cursor, 'chats', 'e4e90b7bcae743c9a1a1a045a49e1b1d', 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', 'store.db'));
  }
  return { gemini: [gemini], opencode: [join(opencode, 'storage_v2'), join(opencode, 'storage_legacy')], hermes: [join(REAL, 'hermes')], cursor: [cursor] };
}

describe('store round trip over the agents registered since', () => {
  it('Gemini CLI, OpenCode, Hermes, Cursor: every fixture, the same messages, tools and usage', async () => {
    const roots = await laterAgents();
    const before = await snapshotTree(REAL);
    for (const [agent, dirs] of Object.entries(roots)) {
      if (findCodec(agent) === undefined) continue;
      const files = [];
      for await (const f of getCodec(agent).discover(dirs)) files.push(f);
      expect(files.length, agent).toBe(agent === 'opencode' ? 3 : (await readdir(join(REAL, agent))).length);
      // the ids the agent's sessions go by (a Gemini CLI session's is the one its file records)
      const listed = await createSessionManager({ env: home.env, roots: { [agent]: dirs }, cache: false }).list(agent, { limit: 1000, subagents: true });
      expect(listed.length, agent).toBe(files.length);
      for (const l of listed) await roundTrip(agent, l.sessionId, { [agent]: dirs });
    }
    expect(await snapshotTree(REAL)).toEqual(before);
  });
});

describe('the store codec over the stored fixtures', () => {
  it('chunk invariance, and resume equals a full read at every line boundary and random cuts', async () => {
    const files = [...sessionfoldStore.discoverSync!([store.root])];
    expect(files.length).toBe((await store.list()).length + 1);
    expect(files.filter((f) => f.subagent === true).map((f) => f.sessionId)).toEqual([`${CLAUDE_SUBAGENT_PARENT}/agent-a0ad4f44468bdf20d`]);
    for (const f of files) {
      const events = await expectChunkInvariant(sessionfoldStore, f.path);
      expect(events.every((e) => e.agent === 'store' && e.sessionId === f.sessionId), f.path).toBe(true);
      // a deliberately simple reader: every line's `usage`, summed, is what the codec's usage events add up to
      const lines = (await readFile(f.path, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { usage?: Record<string, number> });
      const sum = (rows: Record<string, unknown>[]) => ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'].map((k) => rows.reduce((a, r) => a + ((r[k] as number) ?? 0), 0));
      const usage = events.filter((e) => e.type === 'usage') as unknown as Record<string, unknown>[];
      expect(sum(usage), f.path).toEqual(sum(lines.flatMap((l) => (l.usage !== undefined ? [l.usage] : []))));
      expect(usage.length).toBe(lines.filter((l) => l.usage !== undefined).length);
      if (f.subagent === true) continue; // the resume harness names its own folders: a subagent's id comes from its folder
      const content = await readFile(f.path);
      await expectResumeEqualsFull(sessionfoldStore, content, [...lineBoundaries(content), ...randomCuts(content.length, 20)].sort((a, b) => a - b), {}, `${f.sessionId}.jsonl`);
    }
  }, 240_000);
});
