/**
 * File and folder names whose bytes are not valid UTF-8 (issue 17). Listings decode names as UTF-8, so such
 * a name cannot be opened through the path string built from it; discovery must name it in a warning
 * (escaped, `\xff`) rather than leave its sessions out without a word, and must never crash. Both listings:
 * the native kernel's and readdir's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { escapeName } from '../cursors/list-dir.js';
import { sink } from './sessions-helpers.js';

const GOOD = '0c0c0c0c-1111-4222-8333-444444444444';
const IN_BAD_FOLDER = '0b0b0b0b-1111-4222-8333-444444444444';
const line = (sid: string, out: number) =>
  JSON.stringify({ type: 'assistant', sessionId: sid, cwd: '/w', uuid: `u-${sid}`, timestamp: '2026-03-01T00:00:00.000Z', requestId: `r-${sid}`, message: { id: `m-${sid}`, role: 'assistant', model: 'claude-opus-4-1', content: [], usage: { input_tokens: 1, output_tokens: out } } }) + '\n';

let dir: string;
let projects: string;
const badFolder = Buffer.from('-w-bad\xff\xfe', 'latin1');
const badFile = Buffer.from('bad\xff-0a0a0a0a-1111-4222-8333-444444444444.jsonl', 'latin1');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-names-'));
  projects = join(dir, 'home', '.claude', 'projects');
  mkdirSync(join(projects, '-w-ok'), { recursive: true });
  writeFileSync(join(projects, '-w-ok', `${GOOD}.jsonl`), line(GOOD, 100));
  // Buffer paths: the bytes as they are, not UTF-8 encoded from a string.
  const bad = Buffer.concat([Buffer.from(projects + '/'), badFolder]);
  mkdirSync(bad);
  writeFileSync(Buffer.concat([bad, Buffer.from(`/${IN_BAD_FOLDER}.jsonl`)]), line(IN_BAD_FOLDER, 7));
  writeFileSync(Buffer.concat([Buffer.from(join(projects, '-w-ok') + '/'), badFile]), line('0a0a0a0a-1111-4222-8333-444444444444', 5));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], extra: Record<string, string> = {}) {
  const stdout = sink();
  const stderr = sink();
  const env = { HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_DATA_HOME: join(dir, 'data'), TZ: 'UTC', ...extra };
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('names that are not valid UTF-8', () => {
  it('escapes a name byte by byte', () => {
    expect(escapeName(Buffer.from('a\\b\xff é', 'latin1'))).toBe('a\\x5cb\\xff \\xe9');
  });

  it.each([
    ['the native listing', {}],
    ['readdir', { SESSIONFOLD_NATIVE_LISTING: '0' }],
  ])('cost report (%s, cold and warm): counts the readable session and names each unreadable name in a warning', async (_, env) => {
    for (const extra of [['--no-cache'], [], []]) {
      const r = await cli(['cost', 'report', '--json', '--group-by', 'none', '--agent', 'claude', ...extra], env);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outputTokens: 100, requestCount: 1 });
      expect(r.stderr).toContain(`${join(projects, escapeName(badFolder))} (its name is not valid UTF-8`);
      expect(r.stderr).toContain(`${join(projects, '-w-ok', escapeName(badFile))} (its name is not valid UTF-8`);
    }
  });

  it('sessions list: lists the readable session, never crashes', async () => {
    const r = await cli(['sessions', 'list', 'claude', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([GOOD]);
  });
});
