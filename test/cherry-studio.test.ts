/**
 * Cherry Studio's agent transcripts (Claude Code's files under Cherry's userData, codecs/cherry-studio/): its
 * roots on each platform, discovery of the v2 folder before the v1 one (a migrated copy is one session), the
 * fixture (fixtures/cherry-studio/, written as Claude Code writes: no real Cherry transcript is public) read to
 * golden events under Cherry's name, resume, which codec claims each file of a HOME holding Claude Code's and
 * Cherry's folders, and `sessions list` / `cost report --agent` through the built CLI under that HOME.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/cherry-studio.test.ts`.
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cherryStudio, getCherryStudioRoots } from '../codecs/cherry-studio/index.js';
import { claude } from '../codecs/claude/index.js';
import { byKind, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { EXPECTED_DIR, usages } from './pi-helpers.js';

const OWN = fileURLToPath(new URL('../fixtures/cherry-studio/', import.meta.url));
const CLAUDE_OWN = fileURLToPath(new URL('../fixtures/claude/', import.meta.url));
const V2 = join(OWN, 'Data', 'Agents', '.claude', 'projects');
const V1 = join(OWN, '.claude', 'projects');
const MIGRATED = '7d3f1c2a-8b4e-4f6a-9c0d-1e2f3a4b5c6d';
const NEW = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const SESSIONS = [MIGRATED, NEW];
const v2File = (id: string) => join(V2, '-home-dev-notes', `${id}.jsonl`);

describe('cherry-studio: roots, discovery, golden events', () => {
  it('looks in Electron\'s userData for CherryStudio on each platform, the v2 folder first, then pi\'s sessions', () => {
    const agents = (base: string) => join(base, 'CherryStudio', 'Data', 'Agents');
    const all = (base: string) => [join(agents(base), '.claude', 'projects'), join(base, 'CherryStudio', '.claude', 'projects'), join(agents(base), '.pi', 'sessions')];
    expect(getCherryStudioRoots({ HOME: '/h' }, 'linux')).toEqual(all('/h/.config'));
    expect(getCherryStudioRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'linux')).toEqual(all('/x'));
    expect(getCherryStudioRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'darwin')).toEqual(all('/h/Library/Application Support'));
    expect(getCherryStudioRoots({ HOME: '/h', APPDATA: '/a' }, 'win32')).toEqual(all('/a'));
    expect(getCherryStudioRoots({ HOME: '/h' }, 'win32')).toEqual(all(join('/h', 'AppData', 'Roaming')));
    expect(getCherryStudioRoots({ HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }, 'linux')).toEqual(all('/h/.config'));
  });

  it('lists a transcript both folders hold once, from the v2 folder', async () => {
    const found = [];
    for await (const f of cherryStudio.discover([V2, V1])) found.push([f.agent, f.sessionId, f.root]);
    expect(found.sort()).toEqual(SESSIONS.map((id) => ['cherry-studio', id, V2]).sort());
    expect([...cherryStudio.discoverSync!([V2, V1])].map((f) => f.path).sort()).toEqual(SESSIONS.map(v2File).sort());
    const onlyV1 = [];
    for await (const f of cherryStudio.discover([V1])) onlyV1.push(f.sessionId);
    expect(onlyV1, 'a v1 transcript without a v2 copy is read').toEqual([MIGRATED]);
  });

  it.each(SESSIONS)('%s: Claude\'s events under Cherry\'s name, with Claude\'s dedup keys', async (id) => {
    const events = await expectChunkInvariant(cherryStudio, v2File(id));
    await expectGolden(join(EXPECTED_DIR, 'cherry-studio'), id, events);
    expect(events.every((e) => e.agent === 'cherry-studio')).toBe(true);
    const asClaude = await readEvents(claude, v2File(id));
    expect(events).toEqual(asClaude.map((e) => ({ ...e, agent: 'cherry-studio' })));
    expect(byKind(events).session[0]).toMatchObject({ nativeId: id, cwd: '/home/dev/notes' });
    expect(usages(events).every((u) => u.dedupKey.startsWith('claude:msg_01Cherry'))).toBe(true);
    const content = await readFile(v2File(id));
    await expectResumeEqualsFull(cherryStudio, content, lineBoundaries(content), {}, `${id}.jsonl`);
  });
});

describe('cherry-studio beside Claude Code in one HOME, through the CLI', () => {
  // Cherry's Claude Code folders alone: its pi sessions have their own test (test/cherry-studio-pi.test.ts)
  const h = isolatedHome('sf-cherry-', async (home) => {
    for (const dir of [join('Data', 'Agents', '.claude'), '.claude']) await cp(join(OWN, dir), join(home, '.config', 'CherryStudio', dir), { recursive: true });
    await cp(join(CLAUDE_OWN, 'projects'), join(home, '.claude', 'projects'), { recursive: true });
  });
  const cli = (args: string[]) => cliJson(h.env, args);

  it('each transcript is under the default roots of exactly one codec, the one detection picks', async () => {
    const checked = await expectOneOwnerEach(h, (inHome) => (inHome.startsWith('.config') ? 'cherry-studio' : 'claude'));
    expect(checked).toBeGreaterThan(3);
  });

  it('sessions list cherry-studio: its two sessions with cwd and first prompt', async () => {
    const list = (await cli(['sessions', 'list', 'cherry-studio', '--json'])) as { agent: string; sessionId: string; title: string; cwd: string }[];
    expect(list.map((s) => [s.agent, s.sessionId, s.cwd]).sort()).toEqual(SESSIONS.map((id) => ['cherry-studio', id, '/home/dev/notes']).sort());
    expect(list.find((s) => s.sessionId === NEW)?.title).toBe('List the open action items');
  });

  it('cost report: each response once under cherry-studio, Claude Code\'s own row unchanged', async () => {
    const mine = SESSIONS.map(async (id) => usages(await readEvents(cherryStudio, v2File(id))));
    const us = (await Promise.all(mine)).flat();
    expect(us).toHaveLength(3);
    type Row = { requestCount: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
    const only = (await cli(['cost', 'report', '--agent', 'cherry-studio', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, Row> };
    expect(Object.keys(only.breakdowns)).toEqual(['cherry-studio']);
    expect(only.breakdowns['cherry-studio']).toMatchObject({
      requestCount: 3,
      inputTokens: us.reduce((n, u) => n + u.inputTokens, 0),
      outputTokens: us.reduce((n, u) => n + u.outputTokens, 0),
      cacheReadTokens: us.reduce((n, u) => n + u.cacheReadTokens, 0),
      cacheWriteTokens: us.reduce((n, u) => n + u.cacheWriteTokens, 0),
    });
    const all = (await cli(['cost', 'report', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, Row> };
    const claudeOnly = (await cli(['cost', 'report', '--agent', 'claude', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, Row> };
    expect(all.breakdowns.claude).toEqual(claudeOnly.breakdowns.claude);
    expect(all.breakdowns['cherry-studio']?.requestCount).toBe(3);
  });
});
