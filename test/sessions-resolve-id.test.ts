/**
 * A session named by the first characters of its id: the manager's `resolveId`, and every CLI command that
 * takes a session (show, export, diff, resume, fork, store save) through it. `get` itself takes whole ids.
 */
import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { runCli } from '../src/cli/run.js';
import type { SessionManager } from '../src/sessions/manager.js';
import { EXPORT_IDS, sink, type Home } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';

const J = 'sessionfold-jsonl';
let home: Home;
let sm: SessionManager;

// a second session whose id shares its first characters with parent-1's
fixtureManager(
  (f) => ({ home, sm } = f),
  (h) => copyFile(join(h.exports, `${EXPORT_IDS.parent}.jsonl`), join(h.exports, 'parent-22.jsonl')),
);

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isSessionfoldError(e), String(e)).toBe(true);
  return e as { code: string; message: string };
}

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env: home.env });
  return { stdout: stdout.text(), stderr: stderr.text(), code };
}

describe('resolveId', () => {
  it('gives a whole id back as it is, and the one session a prefix names', async () => {
    expect(await sm.resolveId(J, EXPORT_IDS.fork)).toBe(EXPORT_IDS.fork);
    expect(await sm.resolveId(J, 'esca')).toBe(EXPORT_IDS.escaped);
    expect(await sm.resolveId(J, 'parent-2')).toBe('parent-22');
    // an exact id wins over the longer ids it is a prefix of
    expect(await sm.resolveId(J, EXPORT_IDS.parent)).toBe(EXPORT_IDS.parent);
  });

  it('names the sessions an ambiguous prefix matches, and takes no prefix under 4 characters', async () => {
    const ambiguous = await failure(sm.resolveId(J, 'pare'));
    expect(ambiguous.code).toBe('SESSION_NOT_FOUND');
    expect(ambiguous.message).toMatch(/^2 sessionfold-jsonl sessions start with "pare": /);
    expect(ambiguous.message).toContain(EXPORT_IDS.parent);
    expect(ambiguous.message).toContain('parent-22');
    expect((await failure(sm.resolveId(J, 'esc'))).message).toMatch(/^No sessionfold-jsonl session "esc" under /);
    expect((await failure(sm.resolveId(J, 'zzzz'))).code).toBe('SESSION_NOT_FOUND');
    expect((await failure(sm.resolveId('nope', 'zzzz'))).code).toBe('AGENT_NOT_FOUND');
  });

  it('leaves get to whole ids, as the spec has it', async () => {
    expect((await failure(sm.get(J, 'esca'))).code).toBe('SESSION_NOT_FOUND');
    expect((await sm.get(J, await sm.resolveId(J, 'esca'))).sessionId).toBe(EXPORT_IDS.escaped);
  });
});

describe('the CLI takes a unique prefix wherever it takes a session', () => {
  it('show, export and diff read the whole session and call it by its whole id', async () => {
    const shown = await cli('sessions', 'show', `${J}:esca`, '--format', 'json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ sessionId: EXPORT_IDS.escaped, unifiedId: `${J}:${EXPORT_IDS.escaped}` });
    const whole = await cli('sessions', 'export', J, EXPORT_IDS.escaped, '--format', 'json');
    expect((await cli('sessions', 'export', J, 'esca', '--format', 'json')).stdout).toBe(whole.stdout);
    const diff = await cli('sessions', 'diff', `${J}:fork`, `${J}:othe`);
    expect(diff.stdout.split('\n').slice(0, 2)).toEqual([`--- ${J}:${EXPORT_IDS.fork}`, `+++ ${J}:${EXPORT_IDS.other}`]);
  });

  it('stores a session named by a prefix under its whole id, and refuses an ambiguous one with the candidates', async () => {
    const store = join(home.dir, 'store');
    const saved = await cli('store', 'save', J, 'esca', '--store', store, '--json');
    expect(saved.code).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ name: EXPORT_IDS.escaped });
    expect((await readdir(store)).some((f) => f.startsWith(EXPORT_IDS.escaped))).toBe(true);
    const r = await cli('sessions', 'show', J, 'pare');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error SESSION_NOT_FOUND: 2 sessionfold-jsonl sessions start with "pare": .*; give more of the id\n/);
  });
});
