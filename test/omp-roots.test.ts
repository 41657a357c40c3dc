/**
 * omp's roots (codecs/omp/paths.ts): the XDG data folder on Linux and macOS, every profile's sessions folder
 * and the legacy agent dir, one root per folder, pi's variables left to pi; which codec owns each file of a
 * HOME holding pi's and omp's; and `sessions list omp` / `cost report --agent omp` through the built CLI.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { omp } from '../codecs/omp/index.js';
import { getOmpRoots } from '../codecs/omp/paths.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { assistant, jsonl, user } from './pi-helpers.js';

describe('omp\'s roots', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sf-omp-roots-'));
    for (const dir of [['.omp', 'profiles', 'work', 'agent', 'sessions'], ['.omp', 'profiles', 'alt'], ['.omp', 'profiles', 'Not A Profile'], ['.local', 'share', 'omp', 'profiles', 'xw'], ['xdg', 'omp']]) await mkdir(join(home, ...dir), { recursive: true });
  });
  afterAll(async () => {
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  const profiles = () => [join(home, '.omp/profiles/alt/agent/sessions'), join(home, '.omp/profiles/work/agent/sessions'), join(home, '.omp/agent/sessions')];

  it('Linux and macOS: the XDG data folder (set, else ~/.local/share) with its profiles, then every profile and the agent dir', () => {
    const unset = [join(home, '.local/share/omp/sessions'), join(home, '.local/share/omp/profiles/xw/sessions'), ...profiles()];
    for (const platform of ['linux', 'darwin'] as const) {
      expect(getOmpRoots({ HOME: home }, platform), platform).toEqual(unset);
      expect(getOmpRoots({ HOME: home, XDG_DATA_HOME: ' ' }, platform), platform).toEqual(unset);
      expect(getOmpRoots({ HOME: home, XDG_DATA_HOME: join(home, 'xdg') }, platform), platform).toEqual([join(home, 'xdg/omp/sessions'), ...profiles()]);
    }
  });

  it('Windows: every profile and the agent dir, no XDG folder', () => {
    expect(getOmpRoots({ HOME: home, XDG_DATA_HOME: join(home, 'xdg') }, 'win32')).toEqual(profiles());
  });

  it('every profile whatever the active one, and never pi\'s variables (pi\'s codec reads their folders)', () => {
    const plain = getOmpRoots({ HOME: home }, 'linux');
    const env = { HOME: home, OMP_PROFILE: 'work', PI_PROFILE: 'alt', PI_CODING_AGENT_DIR: join(home, 'pi-agent'), PI_CONFIG_DIR: '.pi' };
    expect(getOmpRoots(env, 'linux')).toEqual(plain);
    expect(omp.defaultRoots({ HOME: home })).toEqual(getOmpRoots({ HOME: home }));
  });

  it('one root per folder: a data folder linked to the agent dir is read once', async () => {
    const linked = await mkdtemp(join(tmpdir(), 'sf-omp-linked-'));
    try {
      await mkdir(join(linked, '.omp', 'agent', 'sessions'), { recursive: true });
      await mkdir(join(linked, '.local', 'share', 'omp'), { recursive: true });
      await symlink(join(linked, '.omp', 'agent', 'sessions'), join(linked, '.local', 'share', 'omp', 'sessions'));
      expect(getOmpRoots({ HOME: linked }, 'linux')).toEqual([join(linked, '.local/share/omp/sessions')]);
    } finally {
      await rm(linked, { recursive: true, force: true });
    }
  });
});

/** A session of one prompt and `n` priced responses, named as omp and pi name them. */
function session(id: string, n: number): [string, Buffer] {
  const records: unknown[] = [{ type: 'session', version: 3, id, timestamp: '2026-03-01T10:00:00.000Z', cwd: `/w/${id}` }, user(`${id}0000`, null, `task of ${id}`)];
  for (let k = 1; k <= n; k++) records.push(assistant(`${id}000${k}`, k === 1 ? `${id}0000` : `${id}000${k - 1}`, 'ok', 100, 10, 0.01));
  return [`2026-03-01T10-00-00-000Z_${id}.jsonl`, jsonl(records)];
}

describe('omp sessions in every folder omp writes, beside pi\'s', () => {
  // [folder under HOME, session id, responses]
  const PLACES: [string, string, number][] = [
    [join('.local', 'share', 'omp', 'sessions', '--w-xdgs--'), 'xdgs', 1],
    [join('.omp', 'profiles', 'work', 'agent', 'sessions', '--w-prof--'), 'prof', 2],
    [join('.omp', 'agent', 'sessions', '--w-lgcy--'), 'lgcy', 3],
    [join('.pi', 'agent', 'sessions', '--w-pias--'), 'pias', 4],
    [join('pi-custom', 'sessions', '--w-picu--'), 'picu', 5],
  ];
  const h = isolatedHome('sf-omp-folders-', async (home) => {
    for (const [dir, id, n] of PLACES) {
      const [name, bytes] = session(id, n);
      await mkdir(join(home, dir), { recursive: true });
      await writeFile(join(home, dir, name), bytes);
    }
  });
  const env = () => ({ ...h.env, PI_CODING_AGENT_DIR: join(h.home, 'pi-custom') });

  it('each file has one owner: pi under pi\'s folders and variable, omp under its own', async () => {
    expect(await expectOneOwnerEach({ home: join(h.home, '.pi'), env: h.env }, () => 'pi')).toBe(1);
    for (const dir of ['.omp', '.local']) expect(await expectOneOwnerEach({ home: join(h.home, dir), env: env() }, () => 'omp')).toBeGreaterThan(0);
    expect(await expectOneOwnerEach({ home: join(h.home, 'pi-custom'), env: env() }, () => 'pi')).toBe(1);
  });

  it('sessions list omp and cost report --agent omp find the XDG, profile and legacy sessions', async () => {
    const list = (await cliJson(env(), ['sessions', 'list', 'omp', '--json'])) as { agent: string; sessionId: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(['lgcy', 'prof', 'xdgs']);
    const report = (await cliJson(env(), ['cost', 'report', '--agent', 'omp', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number; totalUsd: number }> };
    expect(Object.keys(report.breakdowns)).toEqual(['omp']);
    expect(report.breakdowns.omp?.requestCount).toBe(6);
    expect(report.breakdowns.omp?.totalUsd).toBeCloseTo(0.06, 9);
  });
});
