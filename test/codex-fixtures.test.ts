/**
 * Every codex fixture, real (../shared/fixtures/real/codex) and local (fixtures/codex, real layout):
 * golden events, token totals checked by a deliberately simple second reader, chunk invariance, resume at
 * every line boundary and at random mid-line cuts, the usage-only fast path, and `sessionfold read` as a
 * subprocess. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/codex-fixtures.test.ts`
 * (then check the token totals still agree with the simple reader, which this test does).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import { EVENT_KINDS, type SessionfoldEvent } from '../cursors/protocol/events.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { expectUsageShape } from './helpers/golden.js';
import { EXPECTED_DIR, FILE_A, LOCAL_FIXTURES, REAL_DIR, REAL_FIXTURES, usages } from './codex-helpers.js';

const run = promisify(execFile);
const ALL_FIXTURES = [...REAL_FIXTURES.map((n) => `${REAL_DIR}${n}.jsonl`), ...LOCAL_FIXTURES];

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

/**
 * The deliberately simple second reader: JSON.parse every line; if the file has token_usage_record rows, sum
 * their `usage` once per response_id; otherwise sum max(0, total − previous total) of every token_count
 * field. No replay detection, no pending, no model: it is only right for files without copied history,
 * which is what the real fixtures are (the branch fixture replays its parent, and both readers count it).
 */
function naiveTotals(text: string): Totals {
  const rows = text.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as { type?: string; payload?: Record<string, any> }];
    } catch {
      return [];
    }
  });
  const sum: Totals = { input: 0, cached: 0, output: 0, reasoning: 0 };
  const records = rows.filter((r) => r.type === 'token_usage_record' && r.payload?.usage);
  if (records.length > 0) {
    const seen = new Set<string>();
    for (const r of records) {
      const id = r.payload!.response_id as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const u = r.payload!.usage;
      sum.input += u.input_tokens ?? 0;
      sum.cached += u.cached_input_tokens ?? 0;
      sum.output += u.output_tokens ?? 0;
      sum.reasoning += u.reasoning_output_tokens ?? 0;
    }
    return sum;
  }
  const prev = { input: 0, cached: 0, output: 0, reasoning: 0 };
  for (const r of rows) {
    const t = r.type === 'event_msg' && r.payload?.type === 'token_count' ? r.payload.info?.total_token_usage : undefined;
    if (!t) continue;
    const cur = { input: t.input_tokens ?? 0, cached: t.cached_input_tokens ?? 0, output: t.output_tokens ?? 0, reasoning: t.reasoning_output_tokens ?? 0 };
    for (const k of ['input', 'cached', 'output', 'reasoning'] as const) sum[k] += Math.max(0, cur[k] - prev[k]);
    Object.assign(prev, cur);
  }
  return sum;
}

function codecTotals(events: readonly SessionfoldEvent[]): Totals {
  const sum: Totals = { input: 0, cached: 0, output: 0, reasoning: 0 };
  for (const u of usages(events)) {
    sum.input += u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    sum.cached += u.cacheReadTokens;
    sum.output += u.outputTokens;
    sum.reasoning += u.reasoningTokens;
  }
  return sum;
}

function goldenPath(name: string): string {
  return `${EXPECTED_DIR}${name}.events.jsonl`;
}

describe('codex golden files (real fixtures)', () => {
  it.each(REAL_FIXTURES)('%s: a fresh read equals the checked-in events', async (name) => {
    const events = await readEvents(codex, `${REAL_DIR}${name}.jsonl`);
    const text = events.map((e) => JSON.stringify(e)).join('\n') + (events.length > 0 ? '\n' : '');
    if (process.env.UPDATE_GOLDEN === '1') {
      await mkdir(EXPECTED_DIR, { recursive: true });
      await writeFile(goldenPath(name), text);
    }
    const golden = (await readFile(goldenPath(name), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(golden);
    expectUsageShape(events);
  });

  it.each(REAL_FIXTURES)('%s: golden token totals agree with a deliberately simple second reader', async (name) => {
    const golden = (await readFile(goldenPath(name), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(codecTotals(golden)).toEqual(naiveTotals(await readFile(`${REAL_DIR}${name}.jsonl`, 'utf8')));
  });

  it('the simple reader sees real usage in the fixtures (the comparison is not vacuous)', async () => {
    const t = naiveTotals(await readFile(`${REAL_DIR}agent-sessions-codex_053_rate_limit.jsonl`, 'utf8'));
    expect(t).toEqual({ input: 12091, cached: 10880, output: 182, reasoning: 128 });
    expect(naiveTotals(await readFile(`${REAL_DIR}ccusage-branch-history-branch.jsonl`, 'utf8')).input).toBe(1600);
  });
});

/** Files without session_meta take their session id from the file name, which the harness changes. */
function withoutFileIds(events: readonly SessionfoldEvent[], ids: ReadonlySet<string>): unknown[] {
  return events.map((e) => (ids.has(e.sessionId) ? { ...e, sessionId: '<file>', ...(e.type === 'session' && { nativeId: '<file>' }) } : e));
}

describe('codex chunking and resume over every fixture', () => {
  it.each(ALL_FIXTURES.map((f) => [basename(f), f]))('%s: same events (all kinds, and usage only) in chunks of 1, 2, 3, 7, 64 bytes', async (_n, file) => {
    const events = await expectChunkInvariant(codex, file);
    expect(events.length).toBeGreaterThan(0);
    expect(await expectChunkInvariant(codex, file, { kinds: ['usage'] })).toEqual(byKind(events).usage);
  });

  it.each(ALL_FIXTURES.map((f) => [basename(f), f]))('%s: resuming at every line boundary and random mid-line cuts equals a full read', async (_n, file) => {
    const content = await readFile(file);
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const hasMeta = content.subarray(0, 200).includes('"session_meta"');
    if (hasMeta) {
      // A resumed read's usage events (a pending count restored from the cursor's JSON) keep the one shape; where
      // the simple reader finds tokens in the fixture, the check must see some (it is not vacuous there).
      const t = naiveTotals(content.toString('utf8'));
      const carriesUsage = t.input + t.cached + t.output > 0;
      expectUsageShape((await expectResumeEqualsFull(codex, content, cuts)).kept.usage, carriesUsage);
      await expectResumeEqualsFull(codex, content, cuts, { kinds: ['usage'] });
      return;
    }
    const r = await resumeAcrossCuts(codex, content, cuts);
    const ids = new Set(['whole', 'growing']);
    for (const k of EVENT_KINDS) expect(withoutFileIds(r.kept[k], ids), k).toEqual(withoutFileIds(r.full[k], ids));
    expect(r.full.usage.length).toBeGreaterThan(0);
  });

  it('reports a pending token_count usage as replaceable and replaces it when its record arrives', async () => {
    const content = Buffer.from(
      [
        '{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}}',
        '{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"output_tokens":2},"last_token_usage":{"input_tokens":10,"output_tokens":2}}}}',
        '{"timestamp":"2026-01-01T00:00:01.000Z","type":"token_usage_record","payload":{"response_id":"r1","usage":{"input_tokens":10,"output_tokens":2}}}',
      ].join('\n') + '\n',
    );
    const cuts = lineBoundaries(content);
    const r = await expectResumeEqualsFull(codex, content, cuts);
    expect(r.starts.map((s) => s.replaced.usage ?? 0)).toEqual([0, 0, 0, 1, 0]);
    expect(r.kept.usage.map((e) => (e as { dedupKey: string }).dedupKey)).toEqual(['codex:resp:r1']);
  });
});

describe('codex usage-only fast path', () => {
  it.each(ALL_FIXTURES.map((f) => [basename(f), f]))('%s: kinds [usage] yields the same usage events as a full read', async (_n, file) => {
    const info = newReadInfo();
    const fast = await readEvents(codex, file, { kinds: ['usage'], info });
    expect(fast).toEqual(byKind(await readEvents(codex, file)).usage);
    expect(info.filteredLines + info.skippedLines).toBeLessThanOrEqual(info.lines);
  });

  it('skips lines without usage markers before JSON.parse', async () => {
    const info = newReadInfo();
    await readEvents(codex, FILE_A, { kinds: ['usage'], info });
    expect(info.filteredLines).toBeGreaterThan(10);
    const full = newReadInfo();
    await readEvents(codex, FILE_A, { info: full });
    expect(full.filteredLines).toBe(0);
  });
});

describe('sessionfold read --agent codex (subprocess)', () => {
  // dist/ is built by `npm test` (tsc) before vitest runs, as for the other CLI subprocess tests.
  const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

  it('streams the events of a rollout as NDJSON, and --kinds usage the same usage events', async () => {
    // An empty HOME of the test's own: a made-up path can be created (and the cache written there) as root.
    const home = await mkdtemp(join(tmpdir(), 'sf-codex-home-'));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    const env = { PATH: process.env.PATH, HOME: home, CODEX_HOME: new URL('../fixtures/codex', import.meta.url).pathname, NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' };
    const all = await run(process.execPath, [CLI, 'read', FILE_A, '--agent', 'codex'], { env });
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(lines).toEqual(await readEvents(codex, FILE_A));
    const fast = await run(process.execPath, [CLI, 'read', FILE_A, '--agent', 'codex', '--kinds', 'usage'], { env });
    expect(fast.stdout.trim().split('\n').map((l) => JSON.parse(l) as SessionfoldEvent)).toEqual(byKind(lines).usage);
  });
});
