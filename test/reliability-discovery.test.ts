/**
 * Spend that goes missing (issue 17, case 4): symlinked transcripts and project folders are read (each
 * session once, a looping link harmless); a folder discovery cannot list is named in a warning and counted,
 * and a warm run over a cached file in it keeps its usage instead of crashing.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { claudeAssistant } from './helpers/claude-lines.js';
import { tempDirs } from './helpers/child.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';
import { asUnprivileged as runAsUnprivileged } from './helpers/unprivileged.js';

const temps = tempDirs('sf-disc-');
const homes: Home[] = [];
afterAll(async () => {
  temps.remove();
  const { rm } = await import('node:fs/promises');
  for (const h of homes) {
    chmodSync(h.dir, 0o755);
    await rm(h.dir, { recursive: true, force: true });
  }
});

const sid = (n: number) => `33333333-3333-4333-8333-00000000000${n}`;
const transcript = (n: number, out: number) => `${claudeAssistant(sid(n), '/tmp/p', `d${n}`, out, `2026-04-0${n}T10:00:00.000Z`)}\n`;

async function cli(home: Home, args: string[]) {
  const out = sink();
  const err = sink();
  const code = await runCli(args, { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
  return { code, out: out.text(), err: err.text() };
}

describe('symlinks in the Claude projects folder', () => {
  it('reads a linked transcript and a linked project folder once each; a looping or duplicate link adds nothing', async () => {
    const home = await makeHome();
    homes.push(home);
    const projects = join(home.claude, 'projects');
    const real = join(projects, '-tmp-real');
    mkdirSync(real, { recursive: true });
    writeFileSync(join(real, `${sid(1)}.jsonl`), transcript(1, 100));
    const elsewhere = await temps.make();
    // a linked project folder, and a linked transcript in the real one
    mkdirSync(join(elsewhere, 'proj'));
    writeFileSync(join(elsewhere, 'proj', `${sid(2)}.jsonl`), transcript(2, 20));
    symlinkSync(join(elsewhere, 'proj'), join(projects, '-tmp-linked'));
    writeFileSync(join(elsewhere, 'c.jsonl'), transcript(3, 3));
    symlinkSync(join(elsewhere, 'c.jsonl'), join(real, `${sid(3)}.jsonl`));
    // a second link to the real project, a link looping to itself, a dangling one
    symlinkSync(real, join(projects, '-tmp-again'));
    symlinkSync(join(projects, '-tmp-loop'), join(projects, '-tmp-loop'));
    symlinkSync(join(elsewhere, 'gone'), join(real, `${sid(4)}.jsonl`));

    for (const extra of [['--no-cache'], [], []]) {
      const r = await cli(home, ['cost', 'report', '--json', ...extra]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ outputTokens: 123, sessionCount: 3, requestCount: 3 });
    }
    const list = await cli(home, ['sessions', 'list', '--json']);
    const ids = (JSON.parse(list.out) as { id?: string; nativeId?: string }[]).map((s) => JSON.stringify(s));
    expect(ids).toHaveLength(3);
    for (const n of [1, 2, 3]) expect(ids.some((s) => s.includes(sid(n)))).toBe(true);
  });
});

describe('a folder discovery cannot list', () => {
  it('is named in a warning, and a warm run keeps its cached usage instead of an EACCES crash', async () => {
    const home = await makeHome();
    homes.push(home);
    const dir = join(home.claude, 'projects', '-tmp-locked');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${sid(5)}.jsonl`), transcript(5, 50));
    const run = asUnprivileged(home);
    expect(JSON.parse((await run(['cost', 'report', '--json'])).out)).toMatchObject({ outputTokens: 50 });
    chmodSync(dir, 0o000);
    try {
      const warm = await run(['cost', 'report', '--json']);
      expect(warm.code).toBe(0);
      expect(warm.err).toContain(`Cannot list ${dir}`);
      const cold = await run(['cost', 'report', '--json', '--no-cache']);
      expect(cold.err).toContain(`Cannot list ${dir}`);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});

/** The CLI as a user that folder modes bind (as `nobody` in a child when the tests run as root). */
function asUnprivileged(home: Home): (args: string[]) => Promise<{ code: number; out: string; err: string }> {
  return runAsUnprivileged(home.dir, home.env);
}

describe('lines that cannot be read are reported', () => {
  it('a transcript that starts with a UTF-8 BOM: its first line is named as skipped by cost report, cold and warm', async () => {
    const home = await makeHome();
    homes.push(home);
    const dir = join(home.claude, 'projects', '-tmp-bom');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${sid(6)}.jsonl`);
    writeFileSync(file, `\ufeff${transcript(6, 60)}${claudeAssistant(sid(6), '/tmp/p', 'd7', 7, '2026-04-07T10:00:00.000Z')}\n`);
    for (const extra of [['--no-cache'], [], []]) {
      const r = await cli(home, ['cost', 'report', '--json', ...extra]);
      expect(JSON.parse(r.out)).toMatchObject({ outputTokens: 7 });
      expect(r.err).toContain(`skipped 1 line of ${file}`);
    }
  });
});
