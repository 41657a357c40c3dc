/**
 * A session saved into the store keeps its own usage: the usage log and the transcript's usage lines are the
 * session's events, not the copies of its subagents' responses its file also holds (Claude's agent_progress
 * lines), and the session's file is read once. Over the constructed agent_progress fixtures, checked against
 * the deliberately simple reader of test/claude-progress-helpers.ts.
 */
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getCodec, loadCodec } from '../src/registry.js';
import { importSession } from '../src/store/import.js';
import { SessionStore } from '../src/store/store.js';
import { PARENT_ID, perSession, simpleResponses } from './claude-progress-helpers.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const PROJECTS = fileURLToPath(new URL('../fixtures/claude/progress/projects/', import.meta.url));

let home: Home;
let store: SessionStore;
let file: string;
beforeAll(async () => {
  home = await makeHome();
  await cp(PROJECTS, join(home.claude, 'projects'), { recursive: true });
  file = join(home.claude, 'projects', '-Users-dev-progress', `${PARENT_ID}.jsonl`);
  store = await SessionStore.open(join(home.dir, 'store'));
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe.skipIf(!HAS_CLAUDE)('importSession: the session\'s own usage, from one read', () => {
  it('stores the parent\'s usage alone, reading its file once', async () => {
    const codec = getCodec('claude');
    await loadCodec(codec);
    const read = vi.spyOn(codec, 'read');
    try {
      await importSession(store, 'claude', PARENT_ID, { manager: { env: home.env } });
      expect(read.mock.calls.filter((c) => c[0] === file).length).toBe(1);
    } finally {
      read.mockRestore();
    }
    const own = perSession(simpleResponses([{ text: await readFile(file, 'utf8'), session: PARENT_ID }]).values())[PARENT_ID];
    expect(own?.requests).toBe(2);
    const log = await store.loadUsageLog(PARENT_ID);
    expect(log.map((e) => e.sessionId)).toEqual([PARENT_ID, PARENT_ID]);
    expect(perSession(log.map((e) => ({ out: e.outputTokens, tokens: [e.inputTokens, e.outputTokens, e.cacheReadTokens, e.cacheWriteTokens], session: e.sessionId })))).toEqual({ [PARENT_ID]: own });
    // The transcript's usage lines are those events, each with its own key.
    const lines = (await store.load(PARENT_ID)).trimEnd().split('\n').map((l) => JSON.parse(l) as { usage?: { dedupKey: string } });
    expect(lines.flatMap((l) => (l.usage === undefined ? [] : [l.usage.dedupKey])).sort()).toEqual(log.map((e) => e.dedupKey).sort());
  });
});
