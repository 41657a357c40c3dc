/**
 * Folders on stderr and in JSON (issues 17, 18, 20): `cost report`, `sessions list` and `start` name every
 * agent root read (with its session files), every one that cannot be read and why, an agent's own variable
 * that names a missing folder, and an asked-for agent without history; `cost report --json` carries the same
 * in `sources` and `unreadable`, and prints nothing else on stdout. Permissions bind only a user that is not
 * root, so as root the CLI runs as `nobody` (test/helpers/unprivileged.ts).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { listCodecs } from '../src/registry.js';
import type { SourceReport } from '../src/scan/sources.js';
import { claudeAssistant } from './helpers/claude-lines.js';
import { asUnprivileged } from './helpers/unprivileged.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const homes: Home[] = [];
const locked: string[] = [];
afterAll(async () => {
  for (const dir of locked) chmodSync(dir, 0o755);
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

const SID = '44444444-4444-4444-8444-000000000001';

/**
 * A home with one Claude transcript (a found root), a locked Claude project folder (unreadable under a found
 * root), a locked CODEX_HOME (an unreadable root) and GEMINI_CLI_HOME naming a folder that does not exist.
 */
async function brokenHome(): Promise<Home & { gemini: string }> {
  const home = await makeHome();
  homes.push(home);
  const proj = join(home.claude, 'projects', '-tmp-p');
  mkdirSync(proj, { recursive: true });
  writeFileSync(join(proj, `${SID}.jsonl`), `${claudeAssistant(SID, '/tmp/p', 'r1', 42, '2026-04-01T10:00:00.000Z')}\n`);
  mkdirSync(join(home.claude, 'projects', '-tmp-locked'));
  mkdirSync(join(home.codex, 'sessions'), { recursive: true });
  const gemini = join(home.dir, 'no-gemini-here');
  home.env.GEMINI_CLI_HOME = gemini;
  return { ...home, gemini };
}

function lock(home: Home): void {
  for (const dir of [join(home.claude, 'projects', '-tmp-locked'), home.codex]) {
    chmodSync(dir, 0o000);
    locked.push(dir);
  }
}

describe('sources: roots read, unreadable and missing', () => {
  it('cost report --json: a sources array and the unreadable count; stderr names each problem once', async () => {
    const home = await brokenHome();
    const run = asUnprivileged(home.dir, home.env);
    lock(home);
    for (const extra of [['--no-cache'], [], []]) {
      const r = await run(['cost', 'report', '--json', '--group-by', 'agent', '--agent', 'claude,codex,gemini', ...extra]);
      expect(r.code).toBe(0);
      const s = JSON.parse(r.out) as { outputTokens: number; sources: SourceReport[]; unreadable: number };
      expect(s.outputTokens).toBe(42);
      const claude = s.sources.find((x) => x.root === join(home.claude, 'projects'));
      expect(claude).toEqual({ agent: 'claude', root: join(home.claude, 'projects'), status: 'found', files: 1, unreadable: 1 });
      expect(s.sources.find((x) => x.agent === 'codex')).toEqual({ agent: 'codex', root: home.codex, status: 'unreadable', reason: 'EACCES', files: 0, unreadable: 0 });
      expect(s.sources.filter((x) => x.agent === 'gemini')).toEqual([{ agent: 'gemini', root: join(home.gemini, '.gemini', 'tmp'), status: 'missing', variable: 'GEMINI_CLI_HOME', files: 0, unreadable: 0 }]);
      expect(s.sources.map((x) => x.agent)).toEqual(['claude', 'codex', 'gemini']);
      expect(s.unreadable).toBe(2);
      expect(r.err).toContain(`warning: codex: cannot read ~/.codex (EACCES): its sessions are left out\n`);
      expect(r.err).toContain(`warning: GEMINI_CLI_HOME is set to ${home.gemini}, which does not exist: no gemini history is read from it\n`);
      expect(r.err).toContain('warning: no codex history could be read (looked in ~/.codex)\n');
      expect(r.err).toContain('warning: no gemini history found (looked in ~/no-gemini-here/.gemini/tmp)\n');
      // the locked project folder: named by the scan, once; the locked root: by the source report, once
      expect(r.err.match(/-tmp-locked/g)).toHaveLength(1);
      expect(r.err.match(/\.codex[^\n]*EACCES/g)).toHaveLength(1);
      expect(r.err).not.toContain('sources:'); // the roots line is for a terminal, and JSON carries it
    }
  });

  it('sessions list and start say the same on stderr; the JSON stays an array of sessions', async () => {
    const home = await brokenHome();
    const run = asUnprivileged(home.dir, home.env);
    lock(home);
    const list = await run(['sessions', 'list', 'codex', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([]);
    expect(list.err).toBe('warning: codex: cannot read ~/.codex (EACCES): its sessions are left out\nwarning: no codex history could be read (looked in ~/.codex)\n');
    const all = await run(['sessions', 'list', '--json']);
    expect((JSON.parse(all.out) as unknown[]).length).toBe(1);
    expect(all.err).toContain('warning: claude: 1 folder or file under ~/.claude/projects could not be read: their sessions are left out\n');
    expect(all.err).toContain(`warning: GEMINI_CLI_HOME is set to ${home.gemini}`);
    expect(all.err).not.toContain('no claude history');
    const start = await run(['start', '--no-cache']);
    expect(start.code).toBe(0);
    expect(start.err).toMatch(/^sessionfold: reading your agent history: claude ~\/\.claude\/projects \(1 file\)\n/);
    expect(start.err).toContain('warning: codex: cannot read ~/.codex (EACCES)');
    expect(start.out).toMatch(/^Recent sessions\n/);
    expect(start.out).not.toContain('demo');
  });

  it('a found root on a terminal: the roots line with its file count; piped, nothing when all is well', async () => {
    const home = await makeHome();
    homes.push(home);
    mkdirSync(join(home.claude, 'projects', '-tmp-locked'), { recursive: true });
    mkdirSync(home.codex);
    const proj = join(home.claude, 'projects', '-tmp-p');
    mkdirSync(proj);
    writeFileSync(join(proj, `${SID}.jsonl`), `${claudeAssistant(SID, '/tmp/p', 'r1', 42, '2026-04-01T10:00:00.000Z')}\n`);
    const run = async (args: string[], tty: boolean) => {
      const out = sink();
      const err = Object.assign(sink(), { isTTY: tty, columns: 100 });
      await runCli(args, { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
      return err.text().replace(/\r[^\n]*?\x1b\[K/g, ''); // the progress bar, drawn and cleared
    };
    expect(await run(['cost', 'report', '--agent', 'claude'], true)).toBe('sources: claude ~/.claude/projects (1 file)\n');
    expect(await run(['sessions', 'list', 'claude'], true)).toBe('sources: claude ~/.claude/projects (1 file)\n');
    expect(await run(['cost', 'report', '--agent', 'claude,codex'], false)).toBe('warning: no codex history found (looked in ~/.codex)\n');
    expect(await run(['cost', 'report', '--agent', 'claude'], false)).toBe('');
    expect(await run(['cost', 'report', '--json', '--agent', 'claude'], true)).toBe('');
  });

  it('every agent: a root that cannot be listed is reported, never a crash', async () => {
    const home = await makeHome();
    homes.push(home);
    const env: NodeJS.ProcessEnv = { HOME: home.dir, PATH: process.env.PATH, XDG_CACHE_HOME: join(home.dir, '.cache'), TZ: 'UTC' };
    const roots = listCodecs().flatMap((c) => c.defaultRoots(env).map((root) => ({ agent: c.id, root })));
    for (const { root } of roots) mkdirSync(root, { recursive: true });
    const run = asUnprivileged(home.dir, env);
    for (const { root } of roots) {
      chmodSync(root, 0o000);
      locked.push(root);
    }
    const report = await run(['cost', 'report', '--json', '--no-cache']);
    expect(report.code, report.err).toBe(0);
    const s = JSON.parse(report.out) as { sources: SourceReport[]; unreadable: number };
    expect(s.sources.map(({ agent, root, status, reason }) => ({ agent, root, status, reason }))).toEqual(roots.map((r) => ({ ...r, status: 'unreadable', reason: 'EACCES' })));
    expect(s.unreadable).toBe(roots.length);
    const list = await run(['sessions', 'list', '--json']);
    expect(list.code, list.err).toBe(0);
    expect(JSON.parse(list.out)).toEqual([]);
    for (const { agent } of roots) expect(list.err).toContain(`warning: ${agent}: cannot read `);
  });
});
