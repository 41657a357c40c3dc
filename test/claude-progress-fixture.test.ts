/**
 * The constructed `agent_progress` fixtures (fixtures/claude/progress, README there): a 2.1.x parent whose
 * progress lines copy the lines of two subagents, one with its own transcript beside it and one without.
 * Golden events, chunk invariance, resume equals full read, the usage-only read, and per-session token totals
 * checked against a deliberately simple reader written here; the native engine leaves the parent to read().
 *
 * Regenerate the golden files after an intended change with
 * `UPDATE_GOLDEN=1 npx vitest run test/claude-progress-fixture`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { scanClaudeUsage } from '../codecs/claude/native.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { nativeKernel } from '../cursors/native.js';
import { codecWithSidecar } from './claude-helpers.js';
import { PARENT_ID, perSession, simpleResponses, type Row } from './claude-progress-helpers.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';

const DIR = fileURLToPath(new URL('../fixtures/claude/progress/projects/-Users-dev-progress/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/claude/', import.meta.url));
const PARENT = join(DIR, `${PARENT_ID}.jsonl`);
const SUBAGENT = join(DIR, PARENT_ID, 'subagents', 'agent-a1b2c3d4e5f6a7b8c.jsonl');
const GOLDEN: [string, string][] = [
  [PARENT, 'progress.parent'],
  [SUBAGENT, 'progress.agent-a1b2c3d4e5f6a7b8c'],
];

function rowsOf(events: readonly SessionfoldEvent[]): Row[] {
  return (events.filter((e) => e.type === 'usage') as UsageEvent[]).map((u) => ({ out: u.outputTokens, tokens: [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens], session: u.sessionId }));
}

async function golden(name: string): Promise<SessionfoldEvent[]> {
  const text = await readFile(join(EXPECTED, `${name}.events.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as SessionfoldEvent);
}

describe('the constructed agent_progress fixtures', () => {
  if (process.env.UPDATE_GOLDEN === '1') {
    it('writes the golden files', async () => {
      for (const [file, name] of GOLDEN) {
        const events = await readEvents(claude, file);
        await writeFile(join(EXPECTED, `${name}.events.jsonl`), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
      }
    });
  }

  describe.each(GOLDEN)('%s', (file, name) => {
    it('reads exactly the golden events', async () => {
      expect(await readEvents(claude, file)).toEqual(await golden(name));
    });

    it('has per-session usage equal to the simple reader', async () => {
      const own = name === 'progress.parent' ? PARENT_ID : 'agent-a1b2c3d4e5f6a7b8c';
      const simple = perSession(simpleResponses([{ text: await readFile(file, 'utf8'), session: own }]).values());
      expect(perSession(rowsOf(await golden(name)))).toEqual(simple);
      expect(perSession(rowsOf(await readEvents(claude, file, { kinds: ['usage'] })))).toEqual(simple);
    });

    it('gives the same events for every chunk size', async () => {
      await expectChunkInvariant(await codecWithSidecar(file), file);
    });

    it('gives the same usage events in a usage-only and a cost read as in a full read', async () => {
      const full = byKind(await readEvents(claude, file));
      expect(await readEvents(claude, file, { kinds: ['usage'] })).toEqual(full.usage);
      const cost = byKind(await readEvents(claude, file, { kinds: ['session', 'usage'], titles: false }));
      expect(cost.usage).toEqual(full.usage);
    });

    it('resumes at every line boundary and at random cuts to the same events as a full read', async () => {
      const content = await readFile(file);
      await expectResumeEqualsFull(claude, content, lineBoundaries(content));
      await expectResumeEqualsFull(claude, content, randomCuts(content.length, 20, content.length));
      await expectResumeEqualsFull(claude, content, randomCuts(content.length, 12, 5), { kinds: ['usage'] });
    });
  });

  it('counts the parent\'s copies in the subagents\' sessions, once per response, with the final count', async () => {
    const usage = byKind(await readEvents(claude, PARENT)).usage as UsageEvent[];
    expect(usage.map((u) => [u.sessionId, u.dedupKey, u.outputTokens])).toEqual([
      [PARENT_ID, 'claude:msg_01ParentP1', 210],
      ['agent-a1b2c3d4e5f6a7b8c', 'claude:msg_01SubA1', 120], // streamed as 3 then 120
      ['agent-b9c8d7e6f5a4b3c2d', 'claude:msg_01SubB1', 57],
      ['agent-b9c8d7e6f5a4b3c2d', 'claude:msg_01SubB2', 9], // the <synthetic> copy after it counts nothing
      ['agent-a1b2c3d4e5f6a7b8c', 'claude:msg_01SubA2', 42], // one copy without requestId, one with: one response
      [PARENT_ID, 'claude:msg_01ParentP2', 64],
    ]);
    // A copy's time is the subagent line's own (data.message.timestamp), as in the subagent's transcript.
    const own = byKind(await readEvents(claude, SUBAGENT)).usage as UsageEvent[];
    for (const u of own) expect(usage.find((p) => p.dedupKey === u.dedupKey)).toMatchObject({ timestamp: u.timestamp, sessionId: u.sessionId, outputTokens: u.outputTokens, inputTokens: u.inputTokens });
  });

  it('has no message, tool call or result from a progress line', async () => {
    const parent = await readEvents(claude, PARENT);
    const lines = (await readFile(PARENT, 'utf8')).split('\n');
    const progressOffsets = new Set<number>();
    let at = 0;
    for (const l of lines) {
      if (l.includes('"type":"progress"')) progressOffsets.add(at);
      at += Buffer.byteLength(l) + 1;
    }
    expect(progressOffsets.size).toBe(11);
    expect(parent.filter((e) => e.type !== 'usage' && progressOffsets.has(e.offset))).toEqual([]);
  });

  it('is left to read() by the native engine, which still reads the subagent\'s own file', async () => {
    const results = await scanClaudeUsage([PARENT, SUBAGENT]);
    if (nativeKernel() === undefined) {
      expect(results).toBeUndefined(); // without the addon there is no engine: read() takes both files
      return;
    }
    expect(results).toBeDefined();
    expect(results?.[0]).toBe(false);
    const events = (results?.[1] as { events: UsageEvent[] }).events;
    expect(events.map((e) => [e.dedupKey, e.outputTokens])).toEqual([
      ['claude:msg_01SubA1', 120],
      ['claude:msg_01SubA2', 42],
    ]);
  });
});
