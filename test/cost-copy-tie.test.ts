/**
 * Which copy of a response counts when copies tie in tokens: the one its own session made. A Claude Code
 * `--resume` copy (older versions: a new file holding the earlier conversation, its lines keeping the origin's
 * `sessionId`) and a `/branch` copy (lines rewritten to the new session, stamped `forkedFrom`) are named so
 * that they sort before their origin, which the file-path tie-break alone would have credited with the
 * origin's responses. Library and built CLI, with the cache and without, with the native addon and
 * without it (`SESSIONFOLD_NATIVE=0`: the JavaScript and WebAssembly paths).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostSummary } from '../src/cost/types.js';
import { totalCost } from '../src/cost/total.js';
import { createPricer } from '../src/cost/pricing.js';
import { claudeLine, expectReqSums, type Req } from './claude-lines.js';
import { itReportsBySession } from './helpers/copy-tie.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

/** The origin sorts after both of its copies. */
const ORIGIN = 'cccccccc-0000-4000-8000-000000000000';
const RESUMED = 'aaaaaaaa-0000-4000-8000-000000000000';
const BRANCHED = 'bbbbbbbb-0000-4000-8000-000000000000';
const at = (h: number): number => Date.UTC(2026, 1, 3, h);
const OLD: Req[] = [
  { id: 'o1', ms: at(9), inp: 10, out: 100, cr: 1000, cw: 5, usd: 0.5 },
  { id: 'o2', ms: at(10), inp: 20, out: 200, cr: 2000, cw: 7, usd: 0.25 },
];
const RESUMED_OWN: Req[] = [{ id: 'r1', ms: at(11), inp: 1, out: 2, cr: 3, cw: 4, usd: 0.125 }];
const BRANCHED_OWN: Req[] = [{ id: 'b1', ms: at(12), inp: 5, out: 6, cr: 7, cw: 8, usd: 1 }];
/** The subagent's lines carry the parent's sessionId: they are its own, not copies. */
const SUB: Req[] = [{ id: 's1', ms: at(13), inp: 2, out: 3, cr: 4, cw: 5, usd: 2 }];

/** A `/branch` copy's line: the new session's id, the origin in `forkedFrom`. */
function branchedLine(r: Req): string {
  const line = JSON.parse(claudeLine(BRANCHED, r)) as Record<string, unknown>;
  return JSON.stringify({ ...line, forkedFrom: { sessionId: ORIGIN, messageUuid: `u-${r.id}` } });
}

let home: Home;
beforeAll(async () => {
  home = await makeHome();
  const dir = join(home.claude, 'projects', '-w');
  await mkdir(join(dir, ORIGIN, 'subagents'), { recursive: true });
  const write = (name: string, lines: string[]) => writeFile(join(dir, name), lines.join('\n') + '\n');
  await write(`${ORIGIN}.jsonl`, OLD.map((r) => claudeLine(ORIGIN, r)));
  await write(`${RESUMED}.jsonl`, [...OLD.map((r) => claudeLine(ORIGIN, r)), ...RESUMED_OWN.map((r) => claudeLine(RESUMED, r))]);
  await write(`${BRANCHED}.jsonl`, [...OLD.map(branchedLine), ...BRANCHED_OWN.map((r) => claudeLine(BRANCHED, r))]);
  await write(join(ORIGIN, 'subagents', 'agent-a1.jsonl'), SUB.map((r) => claudeLine(ORIGIN, r)));
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

function expectBySession(s: CostSummary): void {
  const rows = s.breakdowns ?? {};
  expect(Object.keys(rows).sort()).toEqual([`claude:${ORIGIN}`, `claude:${RESUMED}`, `claude:${BRANCHED}`, 'claude:agent-a1'].sort());
  expectReqSums(rows[`claude:${ORIGIN}`], OLD);
  expectReqSums(rows[`claude:${RESUMED}`], RESUMED_OWN);
  expectReqSums(rows[`claude:${BRANCHED}`], BRANCHED_OWN);
  expectReqSums(rows['claude:agent-a1'], SUB);
  expectReqSums(s, [...OLD, ...RESUMED_OWN, ...BRANCHED_OWN, ...SUB]);
}

describe.skipIf(!HAS_CLAUDE)('a tie between copies of a response (resumed and branched copies sorting first)', () => {
  it('the library credits the origin', async () => {
    const pricer = createPricer({ env: home.env });
    expectBySession(await totalCost({ agents: ['claude'], env: home.env, pricer, timeZone: 'UTC', groupBy: 'session', cache: false }));
    expectBySession(await totalCost({ agents: ['claude'], env: home.env, pricer, timeZone: 'UTC', groupBy: 'session', cachePath: join(home.dir, 'lib.db') }));
  });

  itReportsBySession('credits the origin', () => home, 'claude', expectBySession);
});
