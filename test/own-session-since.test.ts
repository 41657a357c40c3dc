/**
 * OwnSession under a `since` cutoff, end to end. A Claude parent's file names its own session by its first
 * record; its agent_progress copies of a subagent's responses are that subagent's. The status line scans
 * the files written since the earlier of today's start and its window look-back (widened while the window
 * chain is unsettled), and `sessions list --sort cost --since` hands its cutoff to the usage scan. Were the
 * records before a cutoff dropped before OwnSession saw them, a parent whose own responses are all older than
 * the cutoff would be named by its first newer record, a relayed copy: the copies counted as the parent's
 * and its own later response dropped. The scan's `since` skips whole files by mtime (a Claude event is never
 * later than its file's mtime), so a file that is read is read whole and named by its own first record.
 *
 * The HOME: a parent `P` whose own first response is two days old, with progress copies of its subagent's two
 * responses and then its own second response today, and the subagent's own file; a busy session with a
 * response every 4 hours (the window chain reaches past the first look-back, so the status line widens it);
 * and SCAN_MIN_FILES + 2 large parents of today (so `list --sort cost` goes through the usage scan). Each
 * cost is checked against plain sums of the generated responses and against a run without the cutoff
 * (`sessions show`, `cost report --group-by session`, `list` without `--since`).
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusLine, type StatusLineData } from '../src/cost/statusline.js';
import { usageBlocks } from '../src/cost/total.js';
import type { CostSummary } from '../src/cost/types.js';
import { getCodec } from '../src/registry.js';
import { ManagerContext, normalizeManagerOptions } from '../src/sessions/context.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { SCAN_MIN_FILES, usageByFile } from '../src/sessions/usage-scan.js';
import { claudeLine, reqTokens, sumOf, type Req } from './claude-lines.js';
import { progressLine } from './claude-progress-helpers.js';
import { FAKE_PRICER, HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);

const NOW = Date.parse('2026-03-10T12:00:00Z');
const DAY = Date.parse('2026-03-10T00:00:00Z');
const H = 3_600_000;
const at = (ms: number): string => new Date(ms).toISOString();

interface Pair {
  parent: string;
  agent: string;
  /** The parent's own responses. */
  own: Req[];
  /** The subagent's responses (in its own file, and copied into the parent's). */
  sub: Req[];
  parentFile: string;
  subFile: string;
}

/** A pair as generated, before it is written. */
type Generated = Omit<Pair, 'parentFile' | 'subFile'> & { parentText: string; subText: string };

/** A parent id and its subagent id, numbered. */
function ids(n: number): { parent: string; agent: string } {
  const hex = n.toString(16).padStart(12, '0');
  return { parent: `bbbbbbbb-1111-4222-8333-${hex}`, agent: `agent-a${hex}` };
}

/**
 * A parent and its subagent: the parent's first prompt and own response at `start`, its subagent's two
 * responses copied in at `copies` (and `copies` + 1 min), its own second response at `copies` + 5 min;
 * `filler` user lines after its first response make the file larger than a peek reads whole.
 */
function pair(n: number, start: number, copies: number, filler: number): Generated {
  const { parent, agent } = ids(n);
  const own: Req[] = [
    { id: `own0-${n}`, ms: start + 5_000, inp: 11 + n, out: 101, cr: 1_001, cw: 51, usd: 0.5 + n / 1000, model: 'claude-opus-4-6' },
    { id: `own1-${n}`, ms: copies + 5 * 60_000, inp: 13 + n, out: 103, cr: 3_003, cw: 53, usd: 0.125 + n / 1000, model: 'claude-opus-4-6' },
  ];
  const sub: Req[] = [
    { id: `sub0-${n}`, ms: copies, inp: 20 + n, out: 200, cr: 20_000, cw: 0, usd: 2 + n / 1000, model: 'claude-haiku-4-5' },
    { id: `sub1-${n}`, ms: copies + 60_000, inp: 30 + n, out: 300, cr: 0, cw: 700, usd: 4 + n / 1000, model: 'claude-haiku-4-5' },
  ];
  const user = (i: number, ms: number, text: string): string =>
    JSON.stringify({ type: 'user', sessionId: parent, cwd: '/w', uuid: `u${i}-${n}`, timestamp: at(ms), message: { role: 'user', content: text } });
  const lines = [
    user(0, start, 'Delegate a repo search to a subagent'),
    claudeLine(parent, own[0] as Req),
    ...Array.from({ length: filler }, (_, i) => user(i + 1, start + 10_000, `note ${i} ${'x'.repeat(1200)}`)),
    ...sub.map((r) => progressLine(parent, agent, claudeLine(agent, r), at(r.ms))),
    claudeLine(parent, own[1] as Req),
  ];
  return { parent, agent, own, sub, parentText: lines.join('\n') + '\n', subText: sub.map((r) => claudeLine(agent, r)).join('\n') + '\n' };
}

/** The requests, tokens and USD of responses, as a cost record or a status line's cost reports them. */
const sums = (rs: readonly Req[]) => ({ requests: rs.length, tokens: sumOf(rs, reqTokens), usd: sumOf(rs, (r) => r.usd) });

describe.skipIf(!HAS_CLAUDE)('a parent whose own responses precede the cutoff and whose subagent copies follow it', () => {
  let home: Home;
  /** The parent of the reviewer's case: own first response two days ago, copies and own second response today. */
  let P: Pair;
  /** Today's large parents (created after the cutoff). */
  const fresh: Pair[] = [];
  /** A response every 4 hours from two days ago: the window chain runs back past the first look-back. */
  const busy: Req[] = [];
  const BUSY = 'cccccccc-1111-4222-8333-444444444444';
  const all: Req[] = [];

  async function put(p: Generated, projects: string): Promise<Pair> {
    const parentFile = join(projects, `${p.parent}.jsonl`);
    const dir = join(projects, p.parent, 'subagents');
    await mkdir(dir, { recursive: true });
    const subFile = join(dir, `${p.agent}.jsonl`);
    await writeFile(parentFile, p.parentText);
    await writeFile(subFile, p.subText);
    await writeFile(join(dir, `${p.agent}.meta.json`), JSON.stringify({ agentType: 'general-purpose', spawnDepth: 1 }));
    // As Claude Code leaves them: each file last written at its last line.
    const last = (rs: Req[]) => new Date(Math.max(...rs.map((r) => r.ms)));
    await utimes(parentFile, last(p.own), last(p.own));
    await utimes(subFile, last(p.sub), last(p.sub));
    all.push(...p.own, ...p.sub);
    return { parent: p.parent, agent: p.agent, own: p.own, sub: p.sub, parentFile, subFile };
  }

  beforeAll(async () => {
    home = await makeHome();
    const projects = join(home.claude, 'projects', '-w');
    await mkdir(projects, { recursive: true });
    P = await put(pair(0, NOW - 2 * 24 * H - 3 * H, NOW - H, 120), projects);
    for (let i = 1; i <= SCAN_MIN_FILES + 2; i++) fresh.push(await put(pair(i, DAY + 8 * H, DAY + 9 * H, 120), projects));
    for (let ms = DAY - 2 * 24 * H; ms < NOW - H; ms += 4 * H) busy.push({ id: `busy-${ms}`, ms, inp: 1, out: 2, cr: 3, cw: 4, usd: 0.001 });
    const busyFile = join(projects, `${BUSY}.jsonl`);
    await writeFile(busyFile, busy.map((r) => claudeLine(BUSY, r)).join('\n') + '\n');
    const lastBusy = new Date((busy[busy.length - 1] as Req).ms);
    await utimes(busyFile, lastBusy, lastBusy);
    all.push(...busy);
  });
  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });

  it('is the case it is meant to be', () => {
    const [first, second] = P.own as [Req, Req];
    // Older than today and than the first look-back; the copies and the parent's second response are today.
    expect(first.ms).toBeLessThan(Math.min(DAY, NOW - 24 * H));
    for (const r of [...P.sub, second]) expect(r.ms).toBeGreaterThanOrEqual(DAY);
    expect(Math.max(...P.sub.map((r) => r.ms))).toBeLessThan(second.ms);
    for (const f of fresh) expect(Math.min(...f.own.map((r) => r.ms))).toBeGreaterThanOrEqual(DAY);
  });

  describe('the status line', () => {
    const expectStatus = (s: StatusLineData, label: string) => {
      const last = P.own[1] as Req;
      expect(s.session?.requests, label).toBe(2);
      expect(s.session?.costUsd, label).toBeCloseTo(sums(P.own).usd, 9);
      expect(s.model.id, label).toBe('claude-opus-4-6');
      expect(s.context?.usedTokens, label).toBe(last.inp + last.cr + last.cw);
      const today = all.filter((r) => r.ms >= DAY && r.ms <= NOW);
      expect(s.today.requests, label).toBe(today.length);
      expect(s.today.costUsd, label).toBeCloseTo(sums(today).usd, 9);
    };

    it('counts the parent\'s own responses as its session, over the cutoff and the widened look-back', async () => {
      // The busy chain starts before the first look-back: the window cut from every record is not the one cut
      // from the look-back's, so the status line finds it only by widening (its passes keep one OwnSession).
      const active = (await usageBlocks({ agents: ['claude'], env: home.env, cache: false, now: new Date(NOW) })).blocks.find((b) => b.isActive);
      const bounded = (await usageBlocks({ agents: ['claude'], env: home.env, cache: false, now: new Date(NOW), since: new Date(NOW - 24 * H) })).blocks.find((b) => b.isActive);
      expect(active?.startTime).toBeDefined();
      expect(bounded?.startTime).not.toBe(active?.startTime);
      for (const cache of [false, true, true]) {
        for (const q of [{ file: P.parentFile }, { file: P.parentFile, sessionId: P.parent }]) {
          const s = await statusLine({ agent: 'claude', ...q, env: home.env, cache, now: new Date(NOW), timeZone: 'UTC' });
          expectStatus(s, `cache ${cache} ${JSON.stringify(Object.keys(q))}`);
          expect(s.block?.startTime).toBe(active?.startTime);
        }
      }
    });

    it('gives the subagent its own responses only', async () => {
      const s = await statusLine({ agent: 'claude', file: P.subFile, env: home.env, cache: false, now: new Date(NOW), timeZone: 'UTC' });
      expect(s.session?.requests).toBe(2);
      expect(s.session?.costUsd).toBeCloseTo(sums(P.sub).usd, 9);
    });

    it('says the same through the CLI, and equals the cost of the session without a cutoff', async () => {
      const stdin = JSON.stringify({ hook_event_name: 'Status', session_id: P.parent, transcript_path: P.parentFile, cwd: '/w', model: { id: 'claude-opus-4-6', display_name: 'Opus' } });
      for (const args of [['--no-cache'], []]) {
        const child = run(process.execPath, [CLI, 'statusline', '--json', '--now', at(NOW), '--tz', 'UTC', ...args], { env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
        child.child.stdin?.end(stdin);
        const s = JSON.parse((await child).stdout) as StatusLineData;
        expectStatus(s, `cli ${args.join(' ')}`);
        const byFile = await run(process.execPath, [CLI, 'statusline', '--json', '--now', at(NOW), '--tz', 'UTC', '--file', P.parentFile, ...args], { env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
        expectStatus(JSON.parse(byFile.stdout) as StatusLineData, `cli --file ${args.join(' ')}`);
      }
      // Without a cutoff: the session fold of the whole file, and `cost report` by session over every file.
      const sm = createSessionManager({ env: home.env });
      const shown = (await sm.get('claude', P.parent)).cost;
      const report = JSON.parse((await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--json', '--group-by', 'session', '--no-cache'], { env: home.env })).stdout) as CostSummary;
      const row = report.breakdowns?.[`claude:${P.parent}`];
      const s = await statusLine({ agent: 'claude', file: P.parentFile, env: home.env, cache: false, now: new Date(NOW), timeZone: 'UTC' });
      for (const c of [shown, row]) {
        expect(c?.requestCount).toBe(s.session?.requests);
        expect(c?.totalUsd).toBeCloseTo(s.session?.costUsd as number, 9);
      }
    });
  });

  describe('the usage scan behind list --sort cost', () => {
    it('counts a parent\'s own usage only, with a cutoff after its own first response', async () => {
      const ctx = new ManagerContext(normalizeManagerOptions({ env: home.env, pricer: FAKE_PRICER, cache: false }));
      const price = await ctx.price();
      const paths = new Set([P.parentFile, P.subFile, ...fresh.map((f) => f.parentFile)]);
      const whole = await usageByFile(ctx, getCodec('claude'), paths, price);
      const cut = await usageByFile(ctx, getCodec('claude'), paths, price, new Date(DAY));
      for (const [file, rs] of [[P.parentFile, P.own], [P.subFile, P.sub], ...fresh.map((f) => [f.parentFile, f.own] as const)] as const) {
        for (const u of [whole.get(file), cut.get(file)]) {
          expect(u?.cost.requestCount, file).toBe(rs.length);
          expect(u?.cost.totalUsd, file).toBeCloseTo(sums(rs).usd, 9);
          expect([...(u?.models.keys() ?? [])], file).toEqual([...new Set(rs.map((r) => r.model))]);
        }
      }
    });

    it('lists each session with its own cost, with and without --since, as get() gives it', async () => {
      for (const p of [P, ...fresh]) expect((await stat(p.parentFile)).size).toBeGreaterThan(FULL_PEEK_BYTES);
      type Row = { sessionId: string; exact?: boolean; createdAt: string; cost?: { requestCount: number; totalUsd: number } };
      const list = async (args: string[], cache: string): Promise<Map<string, Row>> => {
        const r = await run(process.execPath, [CLI, 'sessions', 'list', 'claude', '--sort', 'cost', '--format', 'json', '--subagents', '--limit', '1000', '--lazy', ...args], { env: { ...home.env, SESSIONFOLD_CACHE: cache } });
        return new Map((JSON.parse(r.stdout) as Row[]).map((x) => [x.sessionId, x]));
      };
      const expected = new Map<string, Req[]>([[BUSY, busy]]);
      for (const p of [P, ...fresh]) expected.set(p.parent, p.own).set(p.agent, p.sub);
      // Each cache cold then warm, filled first by the run with the cutoff, then by the one without.
      for (const [cache, sinceFirst] of [['a.db', true], ['a.db', true], ['b.db', false], ['b.db', false]] as const) {
        const path = join(home.dir, cache);
        const sinceArgs = ['--since', at(DAY)];
        const since = sinceFirst ? await list(sinceArgs, path) : undefined;
        const unbounded = await list([], path);
        const cut = since ?? (await list(sinceArgs, path));
        expect([...unbounded.keys()].sort()).toEqual([...expected.keys()].sort());
        // `--since` keeps the sessions created since: P and the busy session started two days ago.
        expect([...cut.keys()].sort()).toEqual([...expected.keys()].filter((id) => id !== P.parent && id !== BUSY).sort());
        for (const [id, row] of cut) expect(row.cost, id).toEqual(unbounded.get(id)?.cost);
        for (const [id, row] of unbounded) {
          const rs = expected.get(id) as Req[];
          expect(row.cost?.requestCount, id).toBe(rs.length);
          expect(row.cost?.totalUsd, id).toBeCloseTo(sums(rs).usd, 9);
        }
        // The large parents were costed by the usage scan, not read whole.
        expect(fresh.every((f) => cut.get(f.parent)?.exact === false)).toBe(true);
      }
      const sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
      const rows = await sm.list('claude', { sort: 'cost', since: new Date(DAY), limit: 1000, subagents: true });
      expect(rows.length).toBe(2 * fresh.length + 1);
      for (const r of rows) expect(r.cost, r.sessionId).toEqual((await sm.get('claude', r.sessionId)).cost);
    });
  });
});

/**
 * The lazy list reads a large file's head and a tail window: the records before the window are skipped, as
 * before a cutoff, and a running parent's last lines are its subagents' copies. The tail names no session of
 * its own: it counts for the session the file's head named, so a copy's model and time are the subagent's.
 */
describe.skipIf(!HAS_CLAUDE)('a large parent whose tail window holds only its subagent\'s copies', () => {
  let home: Home;
  let p: Generated;

  beforeAll(async () => {
    home = await makeHome();
    const projects = join(home.claude, 'projects', '-w');
    await mkdir(projects, { recursive: true });
    const g = pair(0, DAY + 8 * H, DAY + 9 * H, 120);
    // While its subagent runs: the parent's second response is not written yet.
    const lines = g.parentText.split('\n').filter((l) => l !== '');
    p = { ...g, own: g.own.slice(0, 1), parentText: lines.slice(0, -1).join('\n') + '\n' };
    await writeFile(join(projects, `${p.parent}.jsonl`), p.parentText);
    await mkdir(join(projects, p.parent, 'subagents'), { recursive: true });
    await writeFile(join(projects, p.parent, 'subagents', `${p.agent}.jsonl`), p.subText);
  });
  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });

  type Row = { sessionId: string; exact: boolean; model?: string; updatedAt: string; cost?: { requestCount: number } };
  const list = async (args: string[]): Promise<Row[]> =>
    JSON.parse((await run(process.execPath, [CLI, 'sessions', 'list', 'claude', '--format', 'json', ...args], { env: home.env })).stdout) as Row[];

  it('gives the parent its own last time, as the whole file does, and never its subagent\'s model', async () => {
    expect(Buffer.byteLength(p.parentText)).toBeGreaterThan(FULL_PEEK_BYTES);
    const [lazy] = await list(['--lazy']);
    const [full] = await list(['--full']);
    expect([lazy?.exact, full?.exact]).toEqual([false, true]);
    expect(full?.model).toBe('claude-opus-4-6');
    // The parent's own lines' last time: its progress lines are its subagent's.
    const own = p.parentText.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; timestamp: string });
    expect(full?.updatedAt).toBe(at(Math.max(...own.filter((r) => r.type !== 'progress').map((r) => Date.parse(r.timestamp)))));
    expect(lazy?.updatedAt).toBe(full?.updatedAt);
    // Its own response is in neither window (the head stops at the first prompt): the lazy row may not know
    // its model, but never takes its subagent's.
    expect([undefined, full?.model]).toContain(lazy?.model);
  });

  it('lists the parent under its own model only, lazily or read whole', async () => {
    for (const mode of ['--lazy', '--full']) {
      const ids = async (model: string) => (await list([mode, '--subagents', '--model', model])).map((r) => r.sessionId).sort();
      expect(await ids('haiku'), mode).toEqual([p.agent]);
      expect(await ids('opus'), mode).toEqual([p.parent]);
    }
  });
});
