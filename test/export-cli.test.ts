/**
 * `sessionfold events export` end to end over the fixture history (test/cost-history.ts): NDJSON and CSV,
 * totals that agree with `cost report`, and incremental export with `--after` (nothing twice; after an
 * append only the new events; a resumed copy of old responses in a new file exports only what is new).
 * The last cases spawn the built CLI (`npx tsc -p .` first).
 */
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import type { UsageExportLine } from '../src/cost/export.js';
import type { CostSummary } from '../src/cost/types.js';
import { listCodecs } from '../src/registry.js';
import { exportSessions, extraReply, makeHistory, sink, type History } from './cost-history.js';

let h: History;
beforeEach(() => {
  h = makeHistory();
});

async function cli(args: string[], history: History = h): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: history.env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const JSONL = ['--agent', 'sessionfold-jsonl', '--tz', 'UTC'];
const TIE = ['--cwd', '/work/tie', '--no-cache'];

/** A session in /work/tie holding one copy of response r1, after `pad` user lines. */
const session = (id: string, usage: Record<string, number>, pad: number): string =>
  [
    JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: id, cwd: '/work/tie' }),
    ...Array.from({ length: pad }, (_, i) => JSON.stringify({ type: 'sessionfold.message', index: i, role: 'user', content: 'x'.repeat(200), timestamp: '2026-01-20T09:00:00.000Z' })),
    JSON.stringify({ type: 'sessionfold.message', index: pad, role: 'assistant', content: 'tied', timestamp: '2026-01-20T09:00:10.000Z', id: 'r1', usage: { singleRequest: true, model: 'claude-sonnet-4-20250514', outputTokens: 50, dedupKey: 'tie:r1', ...usage } }),
  ].join('\n') + '\n';
const lines = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as UsageExportLine);

describe('events export', () => {
  it('streams every usage event once as NDJSON, each with its cost', async () => {
    const r = await cli(['events', 'export', ...JSONL]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const ls = lines(r.stdout);
    expect(ls.map((l) => `${l.sessionId}:${l.messageId}`)).toEqual(expect.arrayContaining(['beta:b1', 'beta:b2', 'gamma:g1', 'gamma:g2']));
    expect(ls).toHaveLength(7);
    expect(new Set(ls.map((l) => l.dedupKey)).size).toBe(7);
    expect(ls.find((l) => l.messageId === 'b1')).toMatchObject({ usd: 0.177, costSource: 'calculated', unpriced: false, cwd: '/work/app/sub' });
    expect(ls.find((l) => l.messageId === 'b2')).toMatchObject({ usd: 0.42, costUsd: 0.42, costSource: 'agent' });
    expect(ls.find((l) => l.messageId === 'a3')).toMatchObject({ usd: null, unpriced: true, model: 'mystery-model-x' });
  });

  it('adds up to the cost report of the same selection', async () => {
    for (const extra of [[], ['--since', '2026-01-06'], ['--model', 'claude'], ['--mode', 'calculate']]) {
      const ls = lines((await cli(['events', 'export', ...JSONL, ...extra])).stdout);
      const s = JSON.parse((await cli(['cost', 'report', ...JSONL, ...extra, '--json', '--group-by', 'none'])).stdout) as CostSummary;
      expect(ls.length).toBe(s.requestCount);
      expect(ls.reduce((a, l) => a + (l.usd ?? 0), 0)).toBeCloseTo(s.totalUsd, 8);
      expect(ls.reduce((a, l) => a + l.outputTokens, 0)).toBe(s.outputTokens);
    }
  });

  it('--format csv writes a header and one row per event', async () => {
    const r = await cli(['events', 'export', ...JSONL, '--format', 'csv']);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toBe('agent,sessionId,file,offset,cwd,timestamp,model,provider,inputTokens,outputTokens,reasoningTokens,cacheReadTokens,cacheWriteTokens,cacheWrite1hTokens,singleRequest,dedupKey,messageId,costUsd,speed,webSearchRequests,usd,costSource,unpriced');
    expect(rows).toHaveLength(8);
    expect(rows.find((x) => x.includes(',b1,'))).toMatch(/,claude-sonnet-4-5-20250929,,1000,2000,0,210000,0,0,true,sessionfold-jsonl:beta:b1,b1,,,,0\.177,calculated,false$/);
  });

  it('covers every registered agent with history', async () => {
    const real = makeHistory({ real: true });
    const agents = new Set(lines((await cli(['events', 'export', '--tz', 'UTC'], real)).stdout).map((l) => l.agent));
    const ids = listCodecs().map((c) => c.id);
    expect(agents.has('sessionfold-jsonl')).toBe(true);
    for (const a of agents) expect(ids).toContain(a);
    for (const a of ['claude', 'codex']) if (ids.includes(a)) expect(agents.has(a)).toBe(true);
  });

  it('exports the copy `cost report` counts when two files hold tied copies of a response', async () => {
    // Equal output and equal tokens in all, another input/cache-read split: the fold keeps the smallest
    // (file, offset), a.jsonl. b.jsonl is the larger file, so it is likely read first.
    writeFileSync(join(h.exportsDir, 'proj-a', 'a.jsonl'), session('tie-a', { inputTokens: 1_000, cacheReadTokens: 0 }, 0));
    writeFileSync(join(h.exportsDir, 'proj-a', 'b.jsonl'), session('tie-b', { inputTokens: 0, cacheReadTokens: 1_000 }, 40));
    const s = JSON.parse((await cli(['cost', 'report', ...JSONL, ...TIE, '--json', '--group-by', 'none'])).stdout) as CostSummary;
    expect([s.requestCount, s.inputTokens, s.cacheReadTokens]).toEqual([1, 1_000, 0]);
    for (let run = 0; run < 3; run++) {
      const ls = lines((await cli(['events', 'export', ...JSONL, ...TIE])).stdout);
      const last = ls.filter((l) => l.dedupKey === 'tie:r1').at(-1);
      expect([last?.sessionId, last?.inputTokens, last?.cacheReadTokens]).toEqual(['tie-a', s.inputTokens, s.cacheReadTokens]);
      expect(last?.usd).toBeCloseTo(s.totalUsd, 9);
    }
  });

  it('rejects an unknown format', async () => {
    const r = await cli(['events', 'export', '--format', 'xml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error INVALID_OPTION: Invalid option --format: expected ndjson\|csv, got "xml"/);
  });
});

describe('events export --after (incremental)', () => {
  it('a second run right after exports nothing; after an append, only the new events', async () => {
    const cursor = join(h.home, 'state', 'export-cursor.json');
    const first = await cli(['events', 'export', ...JSONL, '--after', cursor]);
    expect(lines(first.stdout)).toHaveLength(7);
    expect(first.stderr).toBe(`exported 7 new events; cursor ${cursor} (7 in all)\n`);
    expect(existsSync(cursor)).toBe(true);
    expect(existsSync(`${cursor}.tmp`)).toBe(false);

    const second = await cli(['events', 'export', ...JSONL, '--after', cursor]);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(`exported 0 new events; cursor ${cursor} (7 in all)\n`);

    appendFileSync(join(h.exportsDir, 'proj-b', 'gamma.jsonl'), `${extraReply('g3')}\n${extraReply('g4')}\n`);
    const third = lines((await cli(['events', 'export', ...JSONL, '--after', cursor])).stdout);
    expect(third.map((l) => l.messageId)).toEqual(['g3', 'g4']);

    const doc = JSON.parse(readFileSync(cursor, 'utf8'));
    expect(doc).toMatchObject({ version: 1, type: 'sessionfold.export-cursor', exported: 9, keys: { hash: 'xxh64', count: 9 } });
    expect(doc.files[join(h.exportsDir, 'proj-b', 'gamma.jsonl')]).toMatchObject({ agent: 'sessionfold-jsonl', events: 4 });
  });

  it('a resumed session that copies old responses into a new file exports only its new ones', async () => {
    const cursor = join(h.home, 'cursor.json');
    await cli(['events', 'export', ...JSONL, '--after', cursor]);
    const alpha = exportSessions()['proj-a/alpha.jsonl'] as string[];
    const resumed = [alpha[0]?.replace('"sessionId":"alpha"', '"sessionId":"alpha2"'), ...alpha.slice(1), extraReply('r1')];
    // The copies keep the original responses' dedup keys; only r1 is new.
    writeFileSync(join(h.exportsDir, 'proj-a', 'alpha2.jsonl'), `${resumed.join('\n')}\n`);
    const next = lines((await cli(['events', 'export', ...JSONL, '--after', cursor])).stdout);
    expect(next.map((l) => [l.sessionId, l.messageId])).toEqual([['alpha2', 'r1']]);
  });

  it('a tied copy in a file that sorts first, written after the export, is exported as the copy `cost report` counts', async () => {
    const cursor = join(h.home, 'cursor.json');
    writeFileSync(join(h.exportsDir, 'proj-a', 'b.jsonl'), session('tie-b', { inputTokens: 0, cacheReadTokens: 1_000 }, 0));
    const first = lines((await cli(['events', 'export', ...JSONL, ...TIE, '--after', cursor])).stdout);
    expect(first.map((l) => l.sessionId)).toEqual(['tie-b']);
    // The same response, copied into a.jsonl (tokens tied, another split): the fold now counts a.jsonl's copy.
    writeFileSync(join(h.exportsDir, 'proj-a', 'a.jsonl'), session('tie-a', { inputTokens: 1_000, cacheReadTokens: 0 }, 0));
    const s = JSON.parse((await cli(['cost', 'report', ...JSONL, ...TIE, '--json', '--group-by', 'none'])).stdout) as CostSummary;
    expect([s.requestCount, s.inputTokens, s.cacheReadTokens]).toEqual([1, 1_000, 0]);
    const second = await cli(['events', 'export', ...JSONL, ...TIE, '--after', cursor]);
    const last = [...first, ...lines(second.stdout)].filter((l) => l.dedupKey === 'tie:r1').at(-1);
    expect([last?.sessionId, last?.inputTokens, last?.cacheReadTokens]).toEqual(['tie-a', s.inputTokens, s.cacheReadTokens]);
    expect(last?.usd).toBeCloseTo(s.totalUsd, 9);
    expect(second.stderr).toBe(`exported 1 new event; cursor ${cursor} (2 in all)\n`);
    expect(lines((await cli(['events', 'export', ...JSONL, ...TIE, '--after', cursor])).stdout)).toEqual([]);
  });

  it('a whole-file chat rewritten with its messages moved exports only its new response', async () => {
    // Gemini CLI's whole-file chats give each message its index as offset: dropping a message shifts every
    // later one to a smaller offset in the same file, tokens unchanged. Those are the responses exported
    // before, moved, not corrections.
    const chats = join(h.home, '.gemini', 'tmp', 'proj-m', 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, 'session-2026-01-16T18-34-3739ef95.json');
    const user = (id: string) => ({ id, timestamp: '2026-01-16T18:34:01.000Z', type: 'user', content: 'hi' });
    const reply = (id: string, output: number) => ({ id, timestamp: '2026-01-16T18:34:02.000Z', type: 'gemini', model: 'gemini-2.5-flash', content: 'ok', tokens: { input: 100, output, total: 100 + output, thoughts: 0, tool: 0, cached: 0 } });
    const chat = (messages: object[]) => JSON.stringify({ sessionId: 'session-m', projectHash: 'x', startTime: '2026-01-16T18:34:00.000Z', lastUpdated: '2026-01-16T18:35:00.000Z', messages });
    const GEMINI = ['--agent', 'gemini', '--no-cache'];
    const cursor = join(h.home, 'cursor.json');
    writeFileSync(file, chat([user('u1'), reply('g1', 5), user('u2'), reply('g2', 7)]));
    const first = lines((await cli(['events', 'export', ...GEMINI, '--after', cursor])).stdout);
    expect(first.map((l) => [l.offset, l.outputTokens])).toEqual([[1, 5], [3, 7]]);
    writeFileSync(file, chat([reply('g1', 5), user('u2'), reply('g2', 7), user('u3'), reply('g3', 9)]));
    const second = lines((await cli(['events', 'export', ...GEMINI, '--after', cursor])).stdout);
    expect(second.map((l) => [l.offset, l.outputTokens])).toEqual([[4, 9]]);
    // A copy that grew is still a correction, moved or not.
    writeFileSync(file, chat([reply('g1', 6), user('u2'), reply('g2', 7), user('u3'), reply('g3', 9)]));
    expect(lines((await cli(['events', 'export', ...GEMINI, '--after', cursor])).stdout).map((l) => [l.offset, l.outputTokens])).toEqual([[0, 6]]);
  });

  it('the cursor follows the selection: events filtered out before are exported when selected later', async () => {
    const cursor = join(h.home, 'cursor.json');
    expect(lines((await cli(['events', 'export', ...JSONL, '--until', '2026-01-31', '--after', cursor])).stdout)).toHaveLength(4);
    expect(lines((await cli(['events', 'export', ...JSONL, '--after', cursor])).stdout).map((l) => l.messageId)).toEqual(['b2', 'g1', 'g2']);
  });

  it('a corrupt cursor is an error, and the cursor file is left alone', async () => {
    const cursor = join(h.home, 'cursor.json');
    writeFileSync(cursor, 'garbage');
    const r = await cli(['events', 'export', ...JSONL, '--after', cursor]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error CURSOR_INVALID: /);
    expect(readFileSync(cursor, 'utf8')).toBe('garbage');
  });
});

describe('events export as a subprocess (built CLI)', () => {
  const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
  const run = promisify(execFile);

  it('streams NDJSON and resumes with --after', async () => {
    const cursor = join(h.home, 'c.json');
    const a = await run(process.execPath, [CLI, 'events', 'export', ...JSONL, '--after', cursor], { env: h.env });
    expect(lines(a.stdout)).toEqual(lines((await cli(['events', 'export', ...JSONL])).stdout));
    appendFileSync(join(h.exportsDir, 'proj-a', 'beta.jsonl'), `${extraReply('b3')}\n`);
    const b = await run(process.execPath, [CLI, 'events', 'export', ...JSONL, '--after', cursor, '--format', 'csv'], { env: h.env });
    const rows = b.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(',sessionfold-jsonl:beta:b3,b3,');
    expect(b.stderr).toBe(`exported 1 new event; cursor ${cursor} (8 in all)\n`);
  });
});
