/**
 * Every Antigravity CLI step log in ../shared/fixtures/real/antigravity, in its conversation folder: golden
 * events, their counts checked by a deliberately simple second reader (the log has no tokens: no usage, and the
 * session says so), chunk invariance, and resume at every line boundary and random cuts. Regenerate the golden
 * files with `UPDATE_GOLDEN=1 npx vitest run test/antigravity.test.ts`.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antigravity } from '../codecs/antigravity/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { ANTIGRAVITY_LAYOUT, ANTIGRAVITY_REAL, layOutAntigravity, transcriptOf } from './helpers/antigravity-layout.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';

const EXPECTED = new URL('../fixtures/expected/antigravity/', import.meta.url).pathname;
const LOGS = (await readdir(ANTIGRAVITY_REAL)).filter((n) => n.endsWith('.jsonl')).sort();

interface Counts {
  user: number;
  assistant: number;
  system: number;
  toolCalls: number;
  toolResults: number;
  usage: number;
}

/** The simple second reader: JSON.parse each line and count steps by type and source. */
function naiveCounts(text: string): Counts {
  const c: Counts = { user: 0, assistant: 0, system: 0, toolCalls: 0, toolResults: 0, usage: 0 };
  for (const l of text.split('\n').filter(Boolean)) {
    const r = JSON.parse(l);
    if (r.type === 'USER_INPUT') c.user++;
    else if (r.type === 'PLANNER_RESPONSE') {
      c.assistant++;
      c.toolCalls += (r.tool_calls ?? []).length;
    } else if (r.source === 'SYSTEM') c.system++;
    else c.toolResults++;
  }
  return c;
}

function codecCounts(events: readonly SessionfoldEvent[]): Counts {
  const k = byKind(events);
  const role = (r: string) => k.message.filter((m) => m.type === 'message' && m.role === r).length;
  return { user: role('user'), assistant: role('assistant'), system: role('system'), toolCalls: k.tool_call.length, toolResults: k.tool_result.length, usage: k.usage.length };
}

const codecFor = (file: string): Codec => ({ ...antigravity, lineCore: antigravity.lineCoreFor!(file) });

let dir: string;
let brain: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-antigravity-'));
  brain = await layOutAntigravity(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('antigravity golden files (real fixtures in their conversation folders)', () => {
  it('has every fixture of the shared folder', () => {
    expect(LOGS).toEqual(Object.keys(ANTIGRAVITY_LAYOUT).sort());
  });

  it.each(LOGS)('%s: a fresh read equals the checked-in events', async (name) => {
    const events = await readEvents(antigravity, transcriptOf(brain, ANTIGRAVITY_LAYOUT[name]!));
    expect(events[0]).toMatchObject({ type: 'session', sessionId: ANTIGRAVITY_LAYOUT[name], usageUnknown: true });
    expect(events[0], 'the agent records tokens (in the database this layout lacks)').not.toHaveProperty('usageRecorded');
    await expectGolden(EXPECTED, name, events);
  });

  it.each(LOGS)('%s: golden event counts agree with a deliberately simple second reader', async (name) => {
    const golden = (await readFile(join(EXPECTED, `${name}.events.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const counts = naiveCounts(await readFile(join(ANTIGRAVITY_REAL, name), 'utf8'));
    expect(codecCounts(golden)).toEqual(counts);
    expect(counts.user).toBeGreaterThan(0);
  });

  it('pairs a planner tool call with the step that ran it, and unwraps the user request', async () => {
    const k = byKind(await readEvents(antigravity, transcriptOf(brain, ANTIGRAVITY_LAYOUT['agent-sessions-cli-small.jsonl']!)));
    expect(k.message[0]).toMatchObject({ role: 'user' });
    expect((k.message[0] as { text: string }).text.startsWith('List the files.')).toBe(true);
    expect(k.tool_call[0]).toMatchObject({ name: 'list_dir', input: { DirectoryPath: '/tmp/repo', toolSummary: 'Listing contents' } });
    expect(k.tool_result[0]).toMatchObject({ callId: (k.tool_call[0] as { callId: string }).callId, toolName: 'list_dir', isError: false });
  });
});

describe('antigravity chunking and resume over every fixture', () => {
  it.each(LOGS)('%s: same events whatever the chunks', async (name) => {
    const file = transcriptOf(brain, ANTIGRAVITY_LAYOUT[name]!);
    const events = await expectChunkInvariant(codecFor(file), file);
    expect(events.length).toBeGreaterThan(2);
  });

  it.each(LOGS)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
    const content = await readFile(join(ANTIGRAVITY_REAL, name));
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(antigravity, content, cuts, {}, name);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });
});

describe('antigravity discovery, roots and bad input', () => {
  it('discovers each conversation folder with a step log', async () => {
    const found = [];
    for await (const f of antigravity.discover([brain, join(dir, 'missing')])) found.push(f.sessionId);
    expect(found.sort()).toEqual(Object.values(ANTIGRAVITY_LAYOUT).sort());
    // a data folder (the brain folder's parent) finds the same conversations
    const viaData = [];
    for await (const f of antigravity.discover([dir])) viaData.push(f.sessionId);
    expect(viaData.sort()).toEqual(Object.values(ANTIGRAVITY_LAYOUT).sort());
    expect(antigravity.defaultRoots({ HOME: '/h' })[0]).toBe('/h/.gemini/antigravity-cli');
    expect(antigravity.defaultRoots({ HOME: '/h', SESSIONFOLD_ANTIGRAVITY_DIR: '/a' })).toEqual(['/a']);
  });

  it('skips a malformed line, and marks a failed step as an error', async () => {
    const f = join(dir, 'bad.jsonl');
    await writeFile(f, '{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","content":"hi"}\n{oops\n{"step_index":1,"source":"MODEL","type":"RUN_COMMAND","status":"ERROR","content":"exit 1"}\n');
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const k = byKind(await readEvents(antigravity, f, { info }));
    expect(info.skippedLines).toBe(1);
    expect(k.tool_result).toMatchObject([{ toolName: 'run_command', isError: true, output: 'exit 1' }]);
  });
});
