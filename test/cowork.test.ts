/**
 * Claude Desktop's Cowork transcripts (Claude Code's files, one config folder per task, codecs/cowork/): its
 * roots on each platform and under COWORK_CONFIG_DIR, discovery of the task folders, the fixture
 * (fixtures/cowork/, written as Claude Code writes: no real Cowork session is public) read to golden events
 * under Cowork's name, chunked and resumed, which codec claims each file of a HOME holding Claude Code's and
 * Cowork's folders, a transcript also in ~/.claude counted once, and `sessions list` / `cost report --agent`
 * through the built CLI under that HOME.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/cowork.test.ts`.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { cowork, getCoworkProjectDirs, getCoworkRoots } from '../codecs/cowork/index.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { cliJson, expectOneOwnerEach, homeEnv, isolatedHome } from './helpers/isolated-home.js';
import { EXPECTED_DIR, usages } from './pi-helpers.js';

const SESSIONS_DIR = fileURLToPath(new URL('../fixtures/cowork/local-agent-mode-sessions', import.meta.url));
const CLAUDE_OWN = fileURLToPath(new URL('../fixtures/claude/', import.meta.url));
const ACCOUNT = join(SESSIONS_DIR, '3b1f0c6e-2a4d-4e8f-9a1b-5c6d7e8f9a0b', '8e7d6c5b-4a39-4281-b7c6-d5e4f3a2b1c0');
const TASK = join(ACCOUNT, 'local_5f4e3d2c-1b0a-4987-8654-3210fedcba98', '.claude');
const DITTO = join(ACCOUNT, 'agent', 'local_ditto_6a5b4c3d-2e1f-4a09-8b7c-6d5e4f3a2b1c', '.claude');
const BUDGET = 'c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b';
const LANDLORD = 'e1f2a3b4-c5d6-4e7f-9081-a2b3c4d5e6f7';
const FILES: Record<string, string> = {
  [BUDGET]: join(TASK, 'projects', '-sessions-quiet-falcon', `${BUDGET}.jsonl`),
  [LANDLORD]: join(DITTO, 'projects', '-sessions-amber-heron', `${LANDLORD}.jsonl`),
};
const SESSIONS = [BUDGET, LANDLORD];

describe('cowork: roots, discovery, golden events', () => {
  it('looks in Claude Desktop\'s data folders on each platform, the gateway (3P) profile\'s too, or where CLAUDE_USER_DATA_DIR or COWORK_CONFIG_DIR say', () => {
    const at = (base: string, profile = 'Claude') => [join(base, profile, 'local-agent-mode-sessions')];
    expect(getCoworkRoots({ HOME: '/h' }, 'darwin')).toEqual([...at('/h/Library/Application Support'), ...at('/h/Library/Application Support', 'Claude-3p')]);
    // the Microsoft Store (MSIX) build writes its AppData into the package's own folder; the 3P profile lives in LOCALAPPDATA
    const store = (local: string) => at(join(local, 'Packages', 'Claude_pzs8sxrjxfjjc', 'LocalCache', 'Roaming'));
    expect(getCoworkRoots({ HOME: '/h', APPDATA: '/a', LOCALAPPDATA: '/l' }, 'win32')).toEqual([...at('/a'), ...store('/l'), ...at('/l', 'Claude-3p'), ...at('/a', 'Claude-3p')]);
    const roaming = join('/h', 'AppData', 'Roaming');
    const local = join('/h', 'AppData', 'Local');
    expect(getCoworkRoots({ HOME: '/h' }, 'win32')).toEqual([...at(roaming), ...store(local), ...at(local, 'Claude-3p'), ...at(roaming, 'Claude-3p')]);
    expect(getCoworkRoots({ HOME: '/h' }, 'linux')).toEqual([...at('/h/.config'), ...at('/h/.config', 'Claude-3p')]);
    expect(getCoworkRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'linux')).toEqual([...at('/x'), ...at('/x', 'Claude-3p')]);
    expect(getCoworkRoots({ HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }, 'linux'), 'Claude Code\'s variable is not Cowork\'s').toEqual([...at('/h/.config'), ...at('/h/.config', 'Claude-3p')]);
    // the app's own variable: its whole data folder (Electron's userData)
    expect(getCoworkRoots({ HOME: '/h', CLAUDE_USER_DATA_DIR: '~/alt ' }, 'darwin')).toEqual(['/h/alt/local-agent-mode-sessions']);
    expect(getCoworkRoots({ HOME: '/h', COWORK_CONFIG_DIR: '/s/local-agent-mode-sessions, ~/t/.claude/ ,/u/.claude/projects', CLAUDE_USER_DATA_DIR: '/alt' }, 'darwin')).toEqual([
      '/s/local-agent-mode-sessions',
      '/h/t/.claude',
      '/u/.claude/projects',
    ]);
  });

  it('finds each task\'s .claude/projects, in the account tree and its agent/ folder, and nothing else', () => {
    expect(getCoworkProjectDirs(SESSIONS_DIR)).toEqual([join(DITTO, 'projects'), join(TASK, 'projects')]);
    expect(getCoworkProjectDirs(TASK), 'a task\'s .claude folder is a root itself').toEqual([TASK]);
    expect(getCoworkProjectDirs(join(TASK, 'projects'))).toEqual([join(TASK, 'projects')]);
  });

  it('lists each transcript once, under the root it was found from, named cowork', async () => {
    const found = [];
    for await (const f of cowork.discover([SESSIONS_DIR, TASK])) found.push([f.agent, f.sessionId, f.root, f.path]);
    expect(found.sort()).toEqual(SESSIONS.map((id) => ['cowork', id, SESSIONS_DIR, FILES[id]]).sort());
    expect([...cowork.discoverSync!([TASK])].map((f) => [f.sessionId, f.root])).toEqual([[BUDGET, TASK]]);
    expect(await cowork.locate!([SESSIONS_DIR], LANDLORD)).toMatchObject({ agent: 'cowork', path: FILES[LANDLORD], root: SESSIONS_DIR });
  });

  it.each(SESSIONS)('%s: Claude\'s events under Cowork\'s name, with Claude\'s dedup keys, chunked and resumed', async (id) => {
    const file = FILES[id]!;
    const events = await expectChunkInvariant(cowork, file);
    await expectGolden(join(EXPECTED_DIR, 'cowork'), id, events);
    const asClaude = await readEvents(claude, file);
    expect(events).toEqual(asClaude.map((e) => ({ ...e, agent: 'cowork' })));
    expect(byKind(events).session[0]).toMatchObject({ agent: 'cowork', nativeId: id });
    const us = usages(events);
    expect(us.length).toBeGreaterThan(0);
    expect(us.every((u) => u.dedupKey.startsWith('claude:msg_01Cowork'))).toBe(true);
    const content = await readFile(file);
    await expectResumeEqualsFull(cowork, content, lineBoundaries(content), {}, `${id}.jsonl`);
  });
});

describe('cowork under COWORK_CONFIG_DIR through the CLI', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sf-cowork-env-'));
  });
  afterAll(async () => {
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  it('reads the sessions folder the variable names, and only it', async () => {
    const list = (await cliJson({ ...homeEnv(home), COWORK_CONFIG_DIR: SESSIONS_DIR }, ['sessions', 'list', 'cowork', '--json'])) as { sessionId: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual([...SESSIONS].sort());
    const one = (await cliJson({ ...homeEnv(home), COWORK_CONFIG_DIR: DITTO }, ['sessions', 'list', 'cowork', '--json'])) as { sessionId: string }[];
    expect(one.map((s) => s.sessionId)).toEqual([LANDLORD]);
  });
});

type Row = { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
type Report = { breakdowns: Record<string, Row> };

describe('cowork beside Claude Code in one HOME, through the CLI', () => {
  // macOS's layout cannot be reached on Linux (its root follows the platform), so the HOME is Linux's
  const h = isolatedHome('sf-cowork-', async (home) => {
    await cp(SESSIONS_DIR, join(home, '.config', 'Claude', 'local-agent-mode-sessions'), { recursive: true });
    await cp(join(CLAUDE_OWN, 'projects'), join(home, '.claude', 'projects'), { recursive: true });
    // the same task transcript copied into Claude Code's own folder: its responses count once
    await mkdir(join(home, '.claude', 'projects', '-sessions-quiet-falcon'), { recursive: true });
    await cp(FILES[BUDGET]!, join(home, '.claude', 'projects', '-sessions-quiet-falcon', `${BUDGET}.jsonl`));
  });
  const cli = (args: string[]) => cliJson(h.env, args);

  it('each transcript is under the default roots of exactly one codec, the one detection picks', async () => {
    const checked = await expectOneOwnerEach(h, (inHome) => (inHome.startsWith(join('.config', 'Claude')) ? 'cowork' : 'claude'));
    expect(checked).toBeGreaterThan(3);
  });

  it('sessions list cowork: its two sessions with cwd and first prompt', async () => {
    const list = (await cli(['sessions', 'list', 'cowork', '--json'])) as { agent: string; sessionId: string; title: string; cwd: string }[];
    expect(list.map((s) => [s.agent, s.sessionId, s.cwd]).sort()).toEqual([
      ['cowork', BUDGET, '/sessions/quiet-falcon'],
      ['cowork', LANDLORD, '/sessions/amber-heron'],
    ]);
    expect(list.find((s) => s.sessionId === LANDLORD)?.title).toBe('Draft a reply to the landlord');
  });

  it('cost report: each response once, the copy in ~/.claude counted once', async () => {
    const us = (await Promise.all(SESSIONS.map(async (id) => usages(await readEvents(cowork, FILES[id]!))))).flat();
    expect(us).toHaveLength(3);
    const sum = (k: keyof Row & keyof (typeof us)[number]) => us.reduce((n, u) => n + (u[k] as number), 0);
    const only = (await cli(['cost', 'report', '--agent', 'cowork', '--json', '--group-by', 'agent', '--no-cache'])) as Report;
    expect(Object.keys(only.breakdowns)).toEqual(['cowork']);
    expect(only.breakdowns.cowork).toMatchObject({ requestCount: 3, inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens'), cacheReadTokens: sum('cacheReadTokens'), cacheWriteTokens: sum('cacheWriteTokens') });
    const all = (await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'])) as Report;
    const claudeAlone = (await cli(['cost', 'report', '--agent', 'claude', '--json', '--group-by', 'agent', '--no-cache'])) as Report;
    const both = (all.breakdowns.cowork?.requestCount ?? 0) + (all.breakdowns.claude?.requestCount ?? 0);
    // the two copies of the budget task's two responses are one pair of responses across both agents
    expect(both).toBe((claudeAlone.breakdowns.claude?.requestCount ?? 0) + 3 - 2);
  });
});
