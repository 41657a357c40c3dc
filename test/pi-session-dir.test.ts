/**
 * pi's moved sessions folder: `$PI_CODING_AGENT_SESSION_DIR`, else `sessionDir` in the agent dir's
 * `settings.json` (pi's `main.ts` order), read beside `<agent dir>/sessions`; the same for Senpi and Kimchi
 * under their own names. Roots under each variable, which codec owns the moved files (pi alone), and
 * `sessions list` / `cost report --agent pi` through the built CLI in a temporary HOME.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kimchi } from '../codecs/kimchi/index.js';
import { pi } from '../codecs/pi/index.js';
import { senpi } from '../codecs/senpi/index.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { readEvents } from './helpers/codec-harness.js';
import { assistant, jsonl, usages, user } from './pi-helpers.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

describe('the roots of a moved sessions folder', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sf-pi-session-dir-'));
    const settings: [string, string][] = [[join('.pi', 'agent'), '~/from-settings'], [join('.senpi', 'agent'), '/abs/senpi'], [join('.config', 'kimchi', 'harness'), '~/k'], [join('custom', 'agent'), 'relative/dir']];
    for (const [dir, sessionDir] of settings) {
      await mkdir(join(home, dir), { recursive: true });
      await writeFile(join(home, dir, 'settings.json'), JSON.stringify({ sessionDir }));
    }
  });
  afterAll(async () => {
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  it('pi: the variable, else the settings, beside the agent dir\'s sessions', () => {
    const cases: [NodeJS.ProcessEnv, string[]][] = [
      [{}, [join(home, 'from-settings'), join(home, '.pi/agent/sessions')]],
      [{ PI_CODING_AGENT_SESSION_DIR: '~/env' }, [join(home, 'env'), join(home, '.pi/agent/sessions')]],
      [{ PI_CODING_AGENT_SESSION_DIR: '/x' }, ['/x', join(home, '.pi/agent/sessions')]],
      [{ PI_CODING_AGENT_SESSION_DIR: ' ' }, [join(home, 'from-settings'), join(home, '.pi/agent/sessions')]],
      // the settings file is the agent dir's: one without a settings.json has no moved folder
      [{ PI_CODING_AGENT_DIR: join(home, 'nowhere') }, [join(home, 'nowhere/sessions')]],
      // a relative sessionDir is pi's cwd's, which a reader cannot know
      [{ PI_CODING_AGENT_DIR: join(home, 'custom/agent') }, [join(home, 'custom/agent/sessions')]],
      [{ PI_CODING_AGENT_SESSION_DIR: join(home, '.pi/agent/sessions') }, [join(home, '.pi/agent/sessions')]],
    ];
    for (const [env, roots] of cases) expect(pi.defaultRoots({ HOME: home, ...env }), JSON.stringify(env)).toEqual(roots);
  });

  it('pi, run from inside Kimchi: not Kimchi\'s harness, which Kimchi puts in PI_CODING_AGENT_DIR, but pi\'s own', () => {
    const harness = join(home, '.config/kimchi/harness');
    const inKimchi = { HOME: home, KIMCHI_CODING_AGENT_DIR: harness, PI_CODING_AGENT_DIR: harness };
    expect(pi.defaultRoots(inKimchi)).toEqual([join(home, 'from-settings'), join(home, '.pi/agent/sessions')]);
    expect(pi.defaultRoots({ ...inKimchi, KIMCHI_ORIGINAL_PI_CODING_AGENT_DIR: join(home, 'custom/agent') })).toEqual([join(home, 'custom/agent/sessions')]);
    // the harness named without Kimchi's own variable (a shell Kimchi did not start) is Kimchi's all the same
    expect(pi.defaultRoots({ HOME: home, PI_CODING_AGENT_DIR: `${harness}/` })).toEqual([join(home, 'from-settings'), join(home, '.pi/agent/sessions')]);
    // so no file is both a pi and a Kimchi session
    const kimchiRoots = new Set(kimchi.defaultRoots(inKimchi));
    expect(pi.defaultRoots(inKimchi).filter((r) => kimchiRoots.has(r))).toEqual([]);
  });

  it('Senpi and Kimchi: their own variable and settings, never pi\'s', () => {
    const piVars = { PI_CODING_AGENT_SESSION_DIR: '/p', PI_CODING_AGENT_DIR: '/pa' };
    expect(senpi.defaultRoots({ HOME: home, ...piVars })).toEqual(['/abs/senpi', join(home, '.senpi/agent/sessions')]);
    expect(senpi.defaultRoots({ HOME: home, SENPI_CODING_AGENT_SESSION_DIR: '/s' })).toEqual(['/s', join(home, '.senpi/agent/sessions')]);
    expect(kimchi.defaultRoots({ HOME: home, ...piVars })).toEqual([join(home, 'k'), join(home, '.config/kimchi/harness/sessions')]);
    expect(kimchi.defaultRoots({ HOME: home, KIMCHI_CODING_AGENT_SESSION_DIR: '~/kv' })).toEqual([join(home, 'kv'), join(home, '.config/kimchi/harness/sessions')]);
  });
});

/** A session of one prompt and `n` priced responses, in pi's flat layout of a moved folder. */
function session(id: string, day: string, n: number): Buffer {
  const records: unknown[] = [{ type: 'session', version: 3, id, timestamp: `2026-03-${day}T10:00:00.000Z`, cwd: `/w/${id}` }, user(`${id.slice(0, 4)}0000`, null, `task of ${id}`)];
  for (let k = 1; k <= n; k++) records.push(assistant(`${id.slice(0, 4)}000${k}`, k === 1 ? `${id.slice(0, 4)}0000` : `${id.slice(0, 4)}000${k - 1}`, 'ok', 100, 10, 0.01));
  return jsonl(records);
}

describe('pi sessions in a moved folder, through the CLI', () => {
  const SESSIONS = { env: ['envs', '02', 2], settings: ['sets', '03', 3], plain: ['dflt', '01', 1] } as const;
  const fileOf = (key: keyof typeof SESSIONS) => `2026-03-${SESSIONS[key][1]}T10-00-00-000Z_${SESSIONS[key][0]}.jsonl`;
  const h = isolatedHome('sf-pi-moved-', async (home) => {
    const place = async (dir: string, key: keyof typeof SESSIONS) => {
      await mkdir(join(home, dir), { recursive: true });
      await writeFile(join(home, dir, fileOf(key)), session(SESSIONS[key][0], SESSIONS[key][1], SESSIONS[key][2]));
    };
    await place('pi-env', 'env');
    await place('pi-settings', 'settings');
    await place(join('.pi', 'agent', 'sessions', '--w-dflt--'), 'plain');
    await writeFile(join(home, '.pi', 'agent', 'settings.json'), JSON.stringify({ sessionDir: '~/pi-settings' }));
  });
  const withVar = () => ({ ...h.env, PI_CODING_AGENT_SESSION_DIR: '~/pi-env' });

  it('each moved file has one owner, pi, under the variable and under the setting', async () => {
    expect(await expectOneOwnerEach({ home: join(h.home, 'pi-env'), env: withVar() }, () => 'pi')).toBe(1);
    expect(await expectOneOwnerEach({ home: join(h.home, 'pi-settings'), env: h.env }, () => 'pi')).toBe(1);
  });

  it.each([
    ['the variable', true, ['envs', 'dflt'], 3],
    ['the settings', false, ['sets', 'dflt'], 4],
  ])('under %s: sessions list and cost report --agent pi count the moved folder and the agent dir\'s', async (_name, byVar, ids, requests) => {
    const env = byVar ? withVar() : h.env;
    const list = (await cliJson(env, ['sessions', 'list', 'pi', '--json'])) as { agent: string; sessionId: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual([...ids].sort());
    const report = (await cliJson(env, ['cost', 'report', '--agent', 'pi', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number; totalUsd: number }> };
    expect(Object.keys(report.breakdowns)).toEqual(['pi']);
    expect(report.breakdowns.pi?.requestCount).toBe(requests);
    expect(report.breakdowns.pi?.totalUsd).toBeCloseTo(requests * 0.01, 9);
  });
});

describe('Kimchi subagent sessions (its agents extension, manager/session-file.ts)', () => {
  const CWD = '--home-dev-api--';
  const PARENT = '2026-06-09T14-02-10-000Z_019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43.jsonl';
  const CHILD_ID = '019e4b30-0000-7000-8000-000000000001';
  const h = isolatedHome('sf-kimchi-sub-', async (home) => {
    const dir = join(home, '.config', 'kimchi', 'harness', 'sessions', CWD);
    await mkdir(dir, { recursive: true });
    await cp(join(FIXTURES, 'kimchi', 'harness', 'sessions', CWD, PARENT), join(dir, PARENT));
    // As `prepareAgentSessionFile` writes it: pi's header with the parent's file as `parentSession`, a
    // `kimchi:subagent-session` custom entry, then pi's own entries, in the parent's folder.
    const ts = '2026-06-09T14:05:00.000Z';
    const head = [
      { type: 'session', version: 3, id: CHILD_ID, timestamp: ts, cwd: '/home/dev/api', parentSession: join(dir, PARENT) },
      { type: 'custom', id: '019e4b30-0000-7000-8000-000000000002', parentId: null, timestamp: ts, customType: 'kimchi:subagent-session', data: { type: 'explore' } },
    ];
    const u = { ...user('c0000001', '019e4b30-0000-7000-8000-000000000002', 'find the health check'), timestamp: ts };
    await writeFile(join(dir, `${ts.replace(/[:.]/g, '-')}_${CHILD_ID}.jsonl`), jsonl([...head, u, assistant('c0000002', 'c0000001', 'found', 200, 20, 0.02)]));
  });

  it('are pi sessions in the parent\'s folder: listed as subagents with the parent as forkedFrom, and costed', async () => {
    const list = (await cliJson(h.env, ['sessions', 'list', 'kimchi', '--json'])) as { sessionId: string; forkedFrom?: string; subagent?: true }[];
    expect(list.map((s) => [s.sessionId, s.forkedFrom, s.subagent]).sort()).toEqual([
      ['019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43', undefined, undefined],
      [CHILD_ID, '019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43', true],
    ]);
    const child = join(h.home, '.config', 'kimchi', 'harness', 'sessions', CWD, `2026-06-09T14-05-00-000Z_${CHILD_ID}.jsonl`);
    expect((await readEvents(kimchi, child)).filter((e) => e.type === 'session').at(-1)).toMatchObject({ subagent: true, agentType: 'explore' });
    const parentUsages = usages(await readEvents(kimchi, join(FIXTURES, 'kimchi', 'harness', 'sessions', CWD, PARENT))).length;
    const report = (await cliJson(h.env, ['cost', 'report', '--agent', 'kimchi', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number }> };
    expect(report.breakdowns.kimchi?.requestCount).toBe(parentUsages + 1);
  });
});
