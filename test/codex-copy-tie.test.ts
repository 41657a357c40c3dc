/**
 * Which copy of a Codex response counts when copies tie in tokens: the one its own thread made. A Codex fork
 * copies its parent's rollout after its own header (the parent's `session_meta` first) and, in the builds that
 * rewrite every copied line with the time it wrote it and no ordinal, no inherited-history rule catches the
 * copies: they count under the parent's region, with the parent's keys. Archived, the fork's path sorts before
 * its parent's (`archived_sessions/` < `sessions/`), which the file-path tie-break alone credited with the
 * parent's responses. The copied turns keep their `turn_id`s, UUIDv7s minted when the parent ran them, before
 * the fork's id; the fork's own turns, which continue the parent's counter region, are minted after it. Library
 * and built CLI, with the cache and without, with the native addon (whose engine reads the fork without
 * `forked_from_id`) and without it (`SESSIONFOLD_NATIVE=0`: the JavaScript and WebAssembly paths); and the
 * fork's session costs its own spend, as the report's row of it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';
import { nativeKernel } from '../cursors/native.js';
import { totalCost } from '../src/cost/total.js';
import { createPricer } from '../src/cost/pricing.js';
import type { CostRecord, CostSummary } from '../src/cost/types.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { expectResumeEqualsFull, lineBoundaries } from './helpers/codec-harness.js';
import { itReportsBySession } from './helpers/copy-tie.js';
import { HAS_CODEX, makeHome, type Home } from './sessions-helpers.js';

const PARENT = '019c2300-0000-7000-8000-0000000000cc';
/** A fork of a Codex that wrote no `forked_from_id` (the native engine reads it). */
const FORK = '019c2380-0000-7000-8000-0000000000aa';
/** A fork that names its parent, its copies written after its own start (read() reads it). */
const NAMED = '019c23b8-0000-7000-8000-0000000000bb';
/** A turn id minted `ms` after the thread `id` was (UUIDv7: the first 48 bits are the milliseconds). */
const turnAfter = (id: string, ms: number): string => {
  const t = (parseInt(id.slice(0, 8) + id.slice(9, 13), 16) + ms).toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8)}-7000-8000-00000000${ms.toString(16).padStart(4, '0')}`;
};

type Tok = { input_tokens: number; cached_input_tokens: number; output_tokens: number; reasoning_output_tokens: number; total_tokens: number };
const tok = (input: number, cached: number, output: number): Tok => ({ input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output });
const plus = (a: Tok, b: Tok): Tok => tok(a.input_tokens + b.input_tokens, a.cached_input_tokens + b.cached_input_tokens, a.output_tokens + b.output_tokens);

const R1 = tok(1000, 400, 100);
const R2 = tok(2000, 1500, 200);
const FORK_OWN = tok(3000, 2500, 30);
const NAMED_OWN = tok(5000, 4000, 50);

const time = (h: number, m: number, s = 0): string => new Date(Date.UTC(2026, 1, 3, h, m, s)).toISOString();
const meta = (id: string, at: string, extra: Record<string, unknown> = {}) => ({ timestamp: at, type: 'session_meta', payload: { id, timestamp: at, cwd: '/w', cli_version: '0.60.0', source: 'cli', model_provider: 'openai', ...extra } });
const turn = (at: string, turnId: string) => ({ timestamp: at, type: 'turn_context', payload: { turn_id: turnId, cwd: '/w', model: 'gpt-5' } });
const count = (at: string, total: Tok, last: Tok) => ({ timestamp: at, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: total, last_token_usage: last } } });

/** The parent's history: its header, two turns and their responses. */
const parentLines = (at: (k: number) => string) => [meta(PARENT, at(0)), turn(at(1), turnAfter(PARENT, 1000)), count(at(2), R1, R1), turn(at(3), turnAfter(PARENT, 3000)), count(at(4), plus(R1, R2), R2)];

/** A fork's rollout: its header, then the parent's history copied with the write time, then its own turn. */
function forkLines(id: string, h: number, own: Tok, extra: Record<string, unknown> = {}): unknown[] {
  const copyTime = () => time(h, 0, 1);
  return [meta(id, time(h, 0), extra), ...parentLines(copyTime), turn(time(h, 5), turnAfter(id, 300_000)), count(time(h, 6), plus(plus(R1, R2), own), own)];
}

const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

let home: Home;
let forkFile: string;
let namedFile: string;
beforeAll(async () => {
  home = await makeHome();
  const day = join(home.codex, 'sessions', '2026', '02', '03');
  const archived = join(home.codex, 'archived_sessions');
  await mkdir(day, { recursive: true });
  await mkdir(archived, { recursive: true });
  await writeFile(join(day, `rollout-2026-02-03T09-00-00-${PARENT}.jsonl`), jsonl(parentLines((k) => time(9, k))));
  forkFile = join(archived, `rollout-2026-02-03T11-00-00-${FORK}.jsonl`);
  await writeFile(forkFile, jsonl(forkLines(FORK, 11, FORK_OWN)));
  namedFile = join(archived, `rollout-2026-02-03T12-00-00-${NAMED}.jsonl`);
  await writeFile(namedFile, jsonl(forkLines(NAMED, 12, NAMED_OWN, { forked_from_id: PARENT })));
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** A report row's request count and tokens are the sums of `ts` (Codex's input includes its cached tokens). */
function expectTokSums(row: CostRecord | undefined, ts: readonly Tok[]): void {
  const sum = (f: (t: Tok) => number) => ts.reduce((a, t) => a + f(t), 0);
  expect(row).toMatchObject({
    requestCount: ts.length,
    inputTokens: sum((t) => t.input_tokens - t.cached_input_tokens),
    cacheReadTokens: sum((t) => t.cached_input_tokens),
    outputTokens: sum((t) => t.output_tokens),
  });
}

function expectBySession(s: CostSummary): void {
  const rows = s.breakdowns ?? {};
  expect(Object.keys(rows).sort()).toEqual([`codex:${PARENT}`, `codex:${FORK}`, `codex:${NAMED}`].sort());
  expectTokSums(rows[`codex:${PARENT}`], [R1, R2]);
  expectTokSums(rows[`codex:${FORK}`], [FORK_OWN]);
  expectTokSums(rows[`codex:${NAMED}`], [NAMED_OWN]);
  expectTokSums(s, [R1, R2, FORK_OWN, NAMED_OWN]);
}

describe.skipIf(!HAS_CODEX)('a tie between copies of a Codex response (an archived fork sorting first)', () => {
  it('the fork marks its copied turns\' responses copied and its own not, in read() and the native engine', async () => {
    for (const [file, id, own] of [[forkFile, FORK, FORK_OWN], [namedFile, NAMED, NAMED_OWN]] as const) {
      const usage: UsageEvent[] = [];
      for await (const e of codex.read(file, { kinds: ['session', 'usage'] })) if (e.type === 'usage') usage.push(e);
      expect(usage.map((e) => [e.sessionId, e.outputTokens, e.copied])).toEqual([
        [id, R1.output_tokens, true],
        [id, R2.output_tokens, true],
        [id, own.output_tokens, undefined],
      ]);
    }
    if (nativeKernel() === undefined) return;
    // The engine reads the fork that names no parent (the CLI's addon run takes it there), and leaves the other to read().
    const [fork, named] = (await codex.scanUsage?.([forkFile, namedFile])) ?? [];
    expect(fork && fork.events.map((e) => [e.outputTokens, e.copied])).toEqual([
      [R1.output_tokens, true],
      [R2.output_tokens, true],
      [FORK_OWN.output_tokens, undefined],
    ]);
    expect(named).toBe(false);
  });

  it('a read resumed at every line marks the copies as one full read does (the mark is in the cursor state)', async () => {
    for (const file of [forkFile, namedFile]) {
      const content = await readFile(file);
      for (const kinds of [undefined, ['session', 'usage'] as const]) {
        const run = await expectResumeEqualsFull(codex, content, lineBoundaries(content), kinds && { kinds: [...kinds] }, basename(file));
        expect(run.full.usage.map((e) => (e as UsageEvent).copied)).toEqual([true, true, undefined]);
      }
    }
  });

  it('the library credits the parent, and each fork\'s session costs its own spend as the report\'s row of it', async () => {
    const pricer = createPricer({ env: home.env });
    const report = await totalCost({ agents: ['codex'], env: home.env, pricer, timeZone: 'UTC', groupBy: 'session', cache: false });
    expectBySession(report);
    expectBySession(await totalCost({ agents: ['codex'], env: home.env, pricer, timeZone: 'UTC', groupBy: 'session', cachePath: join(home.dir, 'lib.db') }));
    const rows = await createSessionManager({ env: home.env, cache: false }).list('codex', { full: true, subagents: true, limit: 100 });
    for (const [id, copied] of [[PARENT, []], [FORK, [R1, R2]], [NAMED, [R1, R2]]] as const) {
      const r = rows.find((x) => x.sessionId === id);
      const row = report.breakdowns?.[`codex:${id}`];
      expect(r?.cost?.requestCount).toBe(row?.requestCount);
      expect(r?.cost?.totalUsd).toBeCloseTo(row?.totalUsd ?? NaN, 9);
      if (copied.length === 0) expect(r?.copiedCost).toBeUndefined();
      else expectTokSums(r?.copiedCost, copied);
    }
  });

  itReportsBySession('credits the parent', () => home, 'codex', expectBySession);
});
