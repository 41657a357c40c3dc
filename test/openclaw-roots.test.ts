/**
 * OpenClaw's roots under its former names (codecs/openclaw/descriptor.ts): `~/.openclaw`, then the legacy
 * `~/.clawdbot`, `~/.moldbot` and `~/.moltbot`, and the variables OpenClaw reads (`OPENCLAW_STATE_DIR`, then
 * `CLAWDBOT_STATE_DIR`; `OPENCLAW_HOME`); a legacy dir that OpenClaw's migration left as a link is one root,
 * and a session in two roots (a link mirror, a copy) is listed and counted once, through the built CLI too.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverOpenclaw, getOpenclawRoots, openclaw } from '../codecs/openclaw/index.js';
import { cliJson, expectOneOwnerEach, isolatedHome } from './helpers/isolated-home.js';
import { assistant, jsonl, user } from './pi-helpers.js';

describe('OpenClaw\'s roots', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sf-openclaw-roots-'));
  });
  afterAll(async () => {
    if (home !== '') await rm(home, { recursive: true, force: true });
  });
  const every = (h: string) => ['.openclaw', '.clawdbot', '.moldbot', '.moltbot'].map((d) => join(h, d));

  it('every state dir OpenClaw has had, its own first, missing ones kept', () => {
    expect(getOpenclawRoots({ HOME: home })).toEqual(every(home));
    expect(openclaw.defaultRoots({ HOME: home })).toEqual(every(home));
  });

  it('OPENCLAW_STATE_DIR, else CLAWDBOT_STATE_DIR, is the one root; blanks are unset; MOLTBOT_STATE_DIR is no variable of OpenClaw', () => {
    expect(getOpenclawRoots({ HOME: home, OPENCLAW_STATE_DIR: '/s/new', CLAWDBOT_STATE_DIR: '/s/old' })).toEqual(['/s/new']);
    expect(getOpenclawRoots({ HOME: home, OPENCLAW_STATE_DIR: ' ', CLAWDBOT_STATE_DIR: '/s/old' })).toEqual(['/s/old']);
    expect(getOpenclawRoots({ HOME: home, CLAWDBOT_STATE_DIR: '~/state' })).toEqual([join(home, 'state')]);
    expect(getOpenclawRoots({ HOME: home, MOLTBOT_STATE_DIR: '/s/molt' })).toEqual(every(home));
  });

  it('OPENCLAW_HOME moves the state dirs and the `~` of a state dir variable', () => {
    const oh = join(home, 'oc-home');
    expect(getOpenclawRoots({ HOME: home, OPENCLAW_HOME: oh })).toEqual(every(oh));
    expect(getOpenclawRoots({ HOME: home, OPENCLAW_HOME: '~/oc-home' })).toEqual(every(oh));
    expect(getOpenclawRoots({ HOME: home, OPENCLAW_HOME: oh, OPENCLAW_STATE_DIR: '~/s' })).toEqual([join(oh, 's')]);
  });

  it('a legacy dir the migration left as a link to ~/.openclaw is not a root of its own', async () => {
    const linked = await mkdtemp(join(tmpdir(), 'sf-openclaw-linked-'));
    try {
      await mkdir(join(linked, '.openclaw'));
      await symlink(join(linked, '.openclaw'), join(linked, '.clawdbot'));
      await symlink('.openclaw', join(linked, '.moltbot'));
      expect(getOpenclawRoots({ HOME: linked })).toEqual([join(linked, '.openclaw'), join(linked, '.moldbot')]);
    } finally {
      await rm(linked, { recursive: true, force: true });
    }
  });
});

/** A session of one prompt and `n` priced responses, named as OpenClaw names it. */
function session(id: string, n: number): Buffer {
  const records: unknown[] = [{ type: 'session', version: 3, id, timestamp: '2026-03-01T10:00:00.000Z', cwd: `/w/${id}` }, user(`${id}0000`, null, `task of ${id}`)];
  for (let k = 1; k <= n; k++) records.push(assistant(`${id}000${k}`, k === 1 ? `${id}0000` : `${id}000${k - 1}`, 'ok', 100, 10, 0.01));
  return jsonl(records);
}

describe('OpenClaw sessions under every state dir, each once', () => {
  const sessions = (dir: string) => join(dir, 'agents', 'main', 'sessions');
  // ~/.openclaw: live (1 response), both (2); ~/.clawdbot: a copy of both, and old (3) found nowhere else;
  // ~/.moltbot: a mirror of ~/.openclaw, its transcripts links to the live ones; ~/.moldbot: molt (4).
  const h = isolatedHome('sf-openclaw-dirs-', async (home) => {
    const [oc, cb, mb, md] = ['.openclaw', '.clawdbot', '.moltbot', '.moldbot'].map((d) => sessions(join(home, d))) as [string, string, string, string];
    for (const d of [oc, cb, mb, md]) await mkdir(d, { recursive: true });
    await writeFile(join(oc, 'live.jsonl'), session('live', 1));
    await writeFile(join(oc, 'both.jsonl'), session('both', 2));
    await writeFile(join(cb, 'both.jsonl'), session('both', 2));
    await writeFile(join(cb, 'old.jsonl'), session('old', 3));
    for (const name of ['live.jsonl', 'both.jsonl']) await symlink(join(oc, name), join(mb, name));
    await writeFile(join(md, 'molt.jsonl'), session('molt', 4));
  });

  it('discovery gives each transcript once, from the first root that holds it', () => {
    const roots = ['.openclaw', '.clawdbot', '.moldbot', '.moltbot'].map((d) => join(h.home, d));
    expect(getOpenclawRoots(h.env)).toEqual(roots);
    const found = [...discoverOpenclaw(roots)].map((f) => [f.sessionId, f.path.slice(h.home.length + 1)]);
    expect(found.sort()).toEqual([
      ['both', join('.openclaw', 'agents', 'main', 'sessions', 'both.jsonl')],
      ['live', join('.openclaw', 'agents', 'main', 'sessions', 'live.jsonl')],
      ['molt', join('.moldbot', 'agents', 'main', 'sessions', 'molt.jsonl')],
      ['old', join('.clawdbot', 'agents', 'main', 'sessions', 'old.jsonl')],
    ]);
  });

  it('each file has one owner, openclaw, under every state dir', async () => {
    expect(await expectOneOwnerEach(h, () => 'openclaw')).toBe(7);
  });

  it('sessions list openclaw and cost report --agent openclaw count every session once', async () => {
    const list = (await cliJson(h.env, ['sessions', 'list', 'openclaw', '--json'])) as { agent: string; sessionId: string }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(['both', 'live', 'molt', 'old']);
    const report = (await cliJson(h.env, ['cost', 'report', '--agent', 'openclaw', '--json', '--group-by', 'agent', '--no-cache'])) as { breakdowns: Record<string, { requestCount: number; totalUsd: number }> };
    expect(Object.keys(report.breakdowns)).toEqual(['openclaw']);
    expect(report.breakdowns.openclaw?.requestCount).toBe(10);
    expect(report.breakdowns.openclaw?.totalUsd).toBeCloseTo(0.1, 9);
  });
});
