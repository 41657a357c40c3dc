/**
 * Grok Build sessions as its current releases write them (fixtures/grok/current, made in the shapes of
 * xai-org/grok-build's `SessionUpdateEnvelope`, `PromptUsage` and fork copy; codecs/grok/README.md cites them):
 * the turn's usage on the `_x.ai/session/update` rail, one usage event per model, cache writes inside the input,
 * the cost in ticks, an incomplete turn, a fork's copied turns, a subagent's own session, and a long working
 * folder whose name is a hash. Golden files: `UPDATE_GOLDEN=1 npx vitest run test/grok-current.test.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverGrokSync, grok } from '../codecs/grok/index.js';
import type { SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { inTempDir } from './helpers/files.js';

const ROOT = new URL('../fixtures/grok/current/sessions/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/grok/', import.meta.url).pathname;
const WS = join(ROOT, '%2Fhome%2Fdev%2Fshop');
const PARENT = '01a2b3c4-1111-7aaa-8bbb-000000000001';
const FORK = '01a2b3c4-2222-7aaa-8bbb-000000000002';
const CHILD = '01a2b3c4-3333-7aaa-8bbb-000000000003';
const LONG = '01a2b3c4-4444-7aaa-8bbb-000000000004';
const file = (id: string) => join(WS, id, 'updates.jsonl');
const FILES = [...discoverGrokSync([ROOT])].sort((a, b) => a.sessionId!.localeCompare(b.sessionId!));

const usageOf = async (path: string) => byKind(await readEvents(grok, path)).usage as UsageEvent[];
const sessionsOf = async (path: string) => byKind(await readEvents(grok, path)).session as SessionEvent[];
const last = <T>(xs: readonly T[]): T => xs[xs.length - 1] as T;

describe('grok: the sessions current Grok Build writes', () => {
  it('finds the four sessions; a parent\'s subagents/ folder holds no session', () => {
    expect(FILES.map((f) => f.sessionId)).toEqual([PARENT, FORK, CHILD, LONG]);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events', async (id, path) => {
    await expectGolden(EXPECTED_DIR, id, await readEvents(grok, path));
  });

  it('reads the turn usage of the _x.ai/session/update rail, one event per model of the turn', async () => {
    const usage = await usageOf(file(PARENT));
    expect(usage.map((u) => [u.model, u.dedupKey, u.timestamp])).toEqual([
      ['grok-4.5-build', `grok:${PARENT}-9:grok-4.5-build`, '2026-08-06T07:06:50.000Z'],
      ['grok-code-fast-2', `grok:${PARENT}-9:grok-code-fast-2`, '2026-08-06T07:06:50.000Z'],
      ['grok-4.5-build', `grok:${PARENT}-12:grok-4.5-build`, '2026-08-06T07:07:42.000Z'],
    ]);
    expect(usage.every((u) => u.singleRequest === false && u.provider === 'xai' && u.copied === undefined)).toBe(true);
  });

  it('takes cache reads and writes out of the input, keeps reasoning in the output, and prices by the ticks', async () => {
    const [build, fast, incomplete] = await usageOf(file(PARENT));
    expect(build).toMatchObject({ inputTokens: 3000, cacheReadTokens: 8000, cacheWriteTokens: 1000, outputTokens: 900, reasoningTokens: 300, costUsd: 0.015 });
    expect(fast).toMatchObject({ inputTokens: 2000, cacheReadTokens: 3000, cacheWriteTokens: 0, outputTokens: 200, reasoningTokens: 50, costUsd: 0.002 });
    // a turn Grok marks incomplete carries no cost (Grok scrubs it): the tokens are priced, a lower bound
    expect(incomplete).toMatchObject({ inputTokens: 1000, cacheReadTokens: 12000, outputTokens: 40 });
    expect(incomplete!.costUsd).toBeUndefined();
  });

  it('a turn marked usageIsIncomplete leaves the session\'s usage a lower bound', async () => {
    expect(last(await sessionsOf(file(PARENT))).usageUnknown).toBe(true);
    expect((await sessionsOf(file(FORK))).some((s) => s.usageUnknown === true)).toBe(false);
  });

  it('a fork\'s copied turns keep their origin\'s keys and are marked copied; its own turns are its own', async () => {
    const parent = await usageOf(file(PARENT));
    const fork = await usageOf(file(FORK));
    expect(fork.slice(0, 2).map((u) => u.dedupKey)).toEqual(parent.slice(0, 2).map((u) => u.dedupKey));
    expect(fork.slice(0, 2).every((u) => u.copied === true)).toBe(true);
    // the copy's envelope timestamp is the time of the copy; the turn's own time is in its _meta
    expect(fork[0]!.timestamp).toBe(parent[0]!.timestamp);
    expect(fork.slice(2).map((u) => [u.dedupKey, u.copied])).toEqual([[`grok:${FORK}-12:grok-4.5-build`, undefined]]);
    expect(last(await sessionsOf(file(FORK))).forkedFrom).toBe(PARENT);
  });

  it('a subagent\'s own session is its parent\'s child, and its spend is not counted again', async () => {
    const sessions = await sessionsOf(file(CHILD));
    expect(last(sessions)).toMatchObject({ sessionId: CHILD, subagent: true, forkedFrom: PARENT });
    expect(sessions.some((s) => s.usageUnknown === true)).toBe(false);
    expect(await usageOf(file(CHILD))).toEqual([]);
    // the parent's turn holds the subagent's model: that is where its tokens are counted
    expect((await usageOf(file(PARENT))).some((u) => u.model === 'grok-code-fast-2')).toBe(true);
  });

  it('a working folder too long for a name takes its cwd from the group\'s .cwd', async () => {
    const path = FILES.find((f) => f.sessionId === LONG)!.path;
    const cwd = (await readFile(join(ROOT, 'checkout-service-5f0c2a9e81d4b7c3', '.cwd'), 'utf8')).trim();
    expect((await sessionsOf(path))[0]!.cwd).toBe(cwd);
  });

  it('a session depends on its summary.json, stamped only by what the read takes from it', async () => {
    await inTempDir('sf-grok-deps-', async (dir) => {
      const summary = join(dir, 'summary.json');
      const updates = join(dir, 'updates.jsonl');
      expect(grok.getParseDependencies(updates)).toEqual([summary]);
      await writeFile(summary, JSON.stringify({ info: { id: 'x' }, updated_at: '2026-08-06T00:00:00Z' }));
      const plain = grok.dependencyStamp!(updates, summary);
      await writeFile(summary, JSON.stringify({ info: { id: 'x' }, updated_at: '2026-08-07T00:00:00Z', num_messages: 9 }));
      expect(grok.dependencyStamp!(updates, summary), 'a rewrite for a new turn').toBe(plain);
      await writeFile(summary, JSON.stringify({ info: { id: 'x' }, session_kind: 'subagent', parent_session_id: 'p' }));
      expect(grok.dependencyStamp!(updates, summary)).not.toBe(plain);
    });
  });
});

describe('grok current sessions: chunking and resume', () => {
  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: same events (all kinds, and usage only) whatever the chunks', async (_id, path) => {
    const events = await expectChunkInvariant(grok, path);
    expect(await expectChunkInvariant(grok, path, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(FILES.map((f) => [f.sessionId!, f.path]))('%s: resuming at every line boundary and random cuts equals a full read', async (_id, path) => {
    const content = await readFile(path);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const summary = await readFile(join(path, '..', 'summary.json'), 'utf8').catch(() => undefined);
    const run = await expectResumeEqualsFull(grok, content, cuts, {}, 'updates.jsonl', summary === undefined ? undefined : { 'summary.json': summary });
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });
});
