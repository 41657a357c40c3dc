/**
 * Cherry Studio's pi runtime (codecs/cherry-studio/pi.ts): the sessions pi writes in Cherry's
 * `<userData>/Data/Agents/.pi/sessions`, listed and read by pi's engine under Cherry's name with pi's dedup
 * keys. The fixture (fixtures/cherry-studio/Data/Agents/.pi/sessions/) follows what Cherry's source writes
 * (no real Cherry session is public): a session pi wrote, and one Cherry imported from a retired runtime with
 * zero usage. Read to golden events, chunked and resumed at every line; in a HOME beside pi's, Claude Code's
 * and Cherry's Claude Code folders, each file has one owner, a copy in pi's own folder counts once, and the
 * built CLI lists and prices them under `cherry-studio`.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/cherry-studio-pi.test.ts`.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cherryStudio } from '../codecs/cherry-studio/index.js';
import { pi } from '../codecs/pi/index.js';
import { detectCodec } from '../src/registry.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { EXPECTED_DIR, PI_V3, usages } from './pi-helpers.js';

const OWN = fileURLToPath(new URL('../fixtures/cherry-studio/', import.meta.url));
const CLAUDE_OWN = fileURLToPath(new URL('../fixtures/claude/', import.meta.url));
const PI_DIR = join('Data', 'Agents', '.pi', 'sessions');
const PI_ROOT = join(OWN, PI_DIR);
const CLAUDE_ROOTS = [join(OWN, 'Data', 'Agents', '.claude', 'projects'), join(OWN, '.claude', 'projects')];
const CLAUDE_SESSIONS = ['7d3f1c2a-8b4e-4f6a-9c0d-1e2f3a4b5c6d', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'];
const LIVE = '019f1c2d-3e4a-7b5c-8d6e-7f8091a2b3c4';
const IMPORTED = '019f0a00-1b2c-7d3e-8f40-5a6b7c8d9e0f';
const NAMES: Record<string, string> = { [LIVE]: `2026-07-14T08-30-00-000Z_${LIVE}.jsonl`, [IMPORTED]: `1970-01-01T00-00-00-000Z_${IMPORTED}.jsonl` };
const piFile = (id: string) => join(PI_ROOT, NAMES[id]!);

describe('cherry-studio pi sessions: discovery and golden events', () => {
  it('lists the pi folder with pi\'s layout beside the Claude Code folders, and locates a session by id', async () => {
    const found = [];
    for await (const f of cherryStudio.discover([...CLAUDE_ROOTS, PI_ROOT])) found.push([f.agent, f.sessionId, f.root]);
    expect(found).toEqual([...CLAUDE_SESSIONS.map((id) => ['cherry-studio', id, CLAUDE_ROOTS[0]]), ...[IMPORTED, LIVE].map((id) => ['cherry-studio', id, PI_ROOT])]);
    const sync = [...cherryStudio.discoverSync!([...CLAUDE_ROOTS, PI_ROOT])].map((f) => f.path);
    expect(sync.slice(-2)).toEqual([piFile(IMPORTED), piFile(LIVE)]);
    expect((await cherryStudio.locate!([...CLAUDE_ROOTS, PI_ROOT], LIVE))?.path).toBe(piFile(LIVE));
    expect(cherryStudio.getParseDependencies(piFile(LIVE))).toEqual([]);
  });

  /** Chunked and resumed at every line (the resumed file in a `.pi/sessions` folder, as the codec tells them). */
  async function expectSteady(id: string) {
    const content = await readFile(piFile(id));
    await expectResumeEqualsFull(cherryStudio, content, lineBoundaries(content), {}, join('.pi', 'sessions', NAMES[id]!));
    return expectChunkInvariant(cherryStudio, piFile(id));
  }

  it('reads a session pi wrote: pi\'s events under Cherry\'s name, with pi\'s dedup keys', async () => {
    const events = await expectSteady(LIVE);
    await expectGolden(join(EXPECTED_DIR, 'cherry-studio'), LIVE, events);
    expect(events.every((e) => e.agent === 'cherry-studio')).toBe(true);
    expect(events).toEqual((await readEvents(pi, piFile(LIVE))).map((e) => ({ ...e, agent: 'cherry-studio' })));
    expect(byKind(events).session[0]).toMatchObject({ nativeId: LIVE, cwd: '/home/dev/notes' });
    expect(usages(events).map((u) => [u.dedupKey, u.model, u.costUsd])).toEqual([
      [`pi:4d5e6f70:1784017809000`, 'claude-sonnet-4-5', 0.026475],
      [`pi:6f708192:1784017821000`, 'claude-sonnet-4-5', 0.00492],
    ]);
  });

  it('reads history Cherry imported from a retired runtime: the conversation, and no usage', async () => {
    const events = await expectSteady(IMPORTED);
    await expectGolden(join(EXPECTED_DIR, 'cherry-studio'), IMPORTED, events);
    expect(byKind(events).message.map((m) => m.type === 'message' && m.role)).toEqual(['user', 'assistant']);
    expect(usages(events)).toEqual([]);
  });
});

/** A HOME with Cherry's userData, Claude Code's own projects and pi's own session (and `more` laid out after). */
function cherryHome(prefix: string, more: (home: string) => Promise<void> = async () => undefined) {
  return isolatedHome(prefix, async (home) => {
    await cp(OWN, join(home, '.config', 'CherryStudio'), { recursive: true });
    await cp(join(CLAUDE_OWN, 'projects'), join(home, '.claude', 'projects'), { recursive: true });
    const own = join(home, '.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--');
    await mkdir(own, { recursive: true });
    await cp(PI_V3, join(own, '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl'));
    await more(home);
  });
}

type Row = { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
type Report = { breakdowns: Record<string, Row> };
const byAgent = ['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'];

describe('cherry-studio pi sessions beside pi and Claude Code in one HOME, through the CLI', () => {
  const h = cherryHome('sf-cherry-pi-');
  const cli = (args: string[]) => cliJson(h.env, args);

  it('each session file is under the default roots of exactly one codec, the one detection picks', async () => {
    const ownerOf = (inHome: string) => (inHome.startsWith('.config') ? 'cherry-studio' : inHome.startsWith('.pi') ? 'pi' : 'claude');
    expect(await expectOneOwnerEach(h, ownerOf)).toBeGreaterThan(5);
    // Cherry's codec is registered before pi's: a pi file outside every root stays pi's
    const dir = await mkdtemp(join(tmpdir(), 'sf-cherry-pi-loose-'));
    try {
      await cp(piFile(LIVE), join(dir, NAMES[LIVE]!));
      expect((await detectCodec(join(dir, NAMES[LIVE]!), h.env)).id).toBe('pi');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sessions list cherry-studio: the pi sessions beside the Claude Code ones, with cwd and title', async () => {
    const list = (await cli(['sessions', 'list', 'cherry-studio', '--json'])) as { agent: string; sessionId: string; title: string; cwd: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual([...CLAUDE_SESSIONS, IMPORTED, LIVE].sort());
    expect(list.every((s) => s.agent === 'cherry-studio' && s.cwd === '/home/dev/notes')).toBe(true);
    expect(list.find((s) => s.sessionId === LIVE)?.title).toBe('Summarise this week\'s meeting notes');
  });

  it('cost report --agent cherry-studio: the pi responses with the Claude Code ones, pi\'s own row unchanged', async () => {
    const piUsages = usages(await readEvents(cherryStudio, piFile(LIVE)));
    const only = (await cli([...byAgent, '--agent', 'cherry-studio'])) as Report;
    expect(Object.keys(only.breakdowns)).toEqual(['cherry-studio']);
    expect(only.breakdowns['cherry-studio']?.requestCount).toBe(3 + piUsages.length);
    const all = (await cli(byAgent)) as Report;
    expect(all.breakdowns['cherry-studio']).toEqual(only.breakdowns['cherry-studio']);
    expect(all.breakdowns.pi).toEqual(((await cli([...byAgent, '--agent', 'pi'])) as Report).breakdowns.pi);
  });
});

describe('a Cherry pi session copied into pi\'s own folder counts once', () => {
  const h = cherryHome('sf-cherry-pi-copy-', async (home) => {
    const copy = join(home, '.pi', 'agent', 'sessions', '--home-dev-notes--');
    await mkdir(copy, { recursive: true });
    await cp(piFile(LIVE), join(copy, NAMES[LIVE]!));
  });

  it('the report over every agent has as many requests and tokens as without the copy', async () => {
    const all = (await cliJson(h.env, byAgent)) as Report;
    const rows = Object.values(all.breakdowns);
    const sum = (k: keyof Row) => rows.reduce((n, r) => n + r[k], 0);
    const claudeOwn = all.breakdowns.claude!;
    const cherry = usages(await readEvents(cherryStudio, piFile(LIVE)));
    const piOwn = usages(await readEvents(pi, PI_V3));
    expect(sum('requestCount')).toBe(claudeOwn.requestCount + 3 + cherry.length + piOwn.length);
    const out = [...cherry, ...piOwn].reduce((n, u) => n + u.outputTokens, 0);
    const cherryClaude = (await Promise.all(CLAUDE_SESSIONS.map(async (id) => usages(await readEvents(cherryStudio, join(CLAUDE_ROOTS[0]!, '-home-dev-notes', `${id}.jsonl`)))))).flat();
    expect(sum('outputTokens')).toBe(claudeOwn.outputTokens + out + cherryClaude.reduce((n, u) => n + u.outputTokens, 0));
  });
});
