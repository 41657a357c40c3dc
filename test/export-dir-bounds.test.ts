/**
 * Export folders that are not sessionfold's (issue 17). `sessions export` writes to stdout only; the export
 * folder (`SESSIONFOLD_EXPORT_DIR`) is where the sessionfold-jsonl codec discovers exports. Named at `/`, a
 * file, a FIFO or a large foreign folder, discovery must neither walk the whole file system nor hang nor
 * touch anything: it stops at documented bounds (EXPORT_WALK_LIMITS) and warns, naming the path.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_WALK_LIMITS } from '../codecs/sessionfold-jsonl/index.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './sessions-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-export-dir-'));
  await mkdir(join(dir, 'home'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], exportDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const env = { HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_DATA_HOME: join(dir, 'data'), SESSIONFOLD_EXPORT_DIR: exportDir, TZ: 'UTC' };
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Every path under `root` with its kind, size, mode and mtime (a FIFO is never opened). */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const s = lstatSync(p);
    out.push(`${p} ${s.mode} ${s.size} ${s.mtimeMs}${s.isFile() ? ' ' + createHash('sha256').update(readFileSync(p)).digest('hex') : ''}`);
    if (s.isDirectory()) for (const n of readdirSync(p).sort()) visit(join(p, n));
  };
  visit(root);
  return out;
}

describe('SESSIONFOLD_EXPORT_DIR that is not an export folder', () => {
  it('/ : the walk stops at its bounds and warns naming the root, in seconds', async () => {
    const t = Date.now();
    const r = await cli(['cost', 'report', '--json', '--group-by', 'agent', '--agent', 'sessionfold-jsonl'], '/');
    expect(Date.now() - t).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Cannot list \/ \((over \d+ folders|folders more than \d+ deep): not an export folder/);
  }, 30_000);

  it('a file, a FIFO and /dev/null: warned about as no folder (a FIFO never opened), nothing changed', async () => {
    const things = join(dir, 'things');
    await mkdir(things);
    const file = join(things, 'notes.jsonl');
    await writeFile(file, '{"not":"an export"}\n');
    const fifo = join(things, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const before = snapshot(things);
    for (const root of [file, fifo, '/dev/null']) {
      const r = await cli(['cost', 'report', '--json', '--agent', 'sessionfold-jsonl'], root);
      expect(r.code).toBe(0);
      // the source report names a root it cannot open, once
      expect(r.stderr).toContain(`cannot read ${root} (not a directory)`);
      const list = await cli(['sessions', 'list', 'sessionfold-jsonl', '--json'], root);
      expect([list.code, list.stdout.trim()]).toEqual([0, '[]']);
    }
    expect(snapshot(things)).toEqual(before);
  }, 30_000);

  it('a deep foreign folder: exports within the bounds are listed, the rest warned about, nothing changed', async () => {
    const root = join(dir, 'foreign');
    let deep = root;
    for (let i = 0; i <= EXPORT_WALK_LIMITS.depth + 1; i++) deep = join(deep, `d${i}`);
    await mkdir(deep, { recursive: true });
    const header = (id: string) => JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: id, cwd: '/w' }) + '\n';
    await writeFile(join(root, 'top.jsonl'), header('top'));
    await writeFile(join(deep, 'deep.jsonl'), header('deep'));
    await writeFile(join(root, 'README.md'), 'not ours\n');
    const before = snapshot(root);
    const r = await cli(['sessions', 'list', 'sessionfold-jsonl', '--json'], root);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual(['top']);
    const c = await cli(['cost', 'report', '--json', '--agent', 'sessionfold-jsonl'], root);
    expect(c.stderr).toContain(`Cannot list ${root} (folders more than ${EXPORT_WALK_LIMITS.depth} deep`);
    expect(snapshot(root)).toEqual(before);
  }, 30_000);
});
