/**
 * Two processes forking, archiving, deleting, retitling, saving and pruning one store at once (and one
 * killed in the middle of it): every family ends whole — in one place, every member parseable, none without
 * its transcript — with no lock or temp file left behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_MEMBERS, STORE_SUBAGENTS } from '../cursors/protocol/session-store.js';
import { SessionStore } from '../src/store/store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER = join(ROOT, 'test', 'helpers', 'store-worker.ts');
const REGISTER = join(ROOT, 'src', 'scan', 'dev-register.mjs');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-store-race-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function worker(root: string, seed: number, ops: number): { done: Promise<{ code: number | null; out: string }>; kill(): void } {
  const child = spawn(process.execPath, ['--import', REGISTER, WORKER, root, String(seed), String(ops)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return {
    done: new Promise((resolve) => child.on('close', (code) => resolve({ code, out }))),
    kill: () => child.kill('SIGKILL'),
  };
}

const SUFFIXES = [...Object.values(STORE_MEMBERS), STORE_SUBAGENTS, '.jsonl'].sort((a, b) => b.length - a.length);

/** The family name a file belongs to (undefined for the archive folder). */
function familyOf(entry: string): string | undefined {
  for (const s of SUFFIXES) if (entry.endsWith(s)) return entry.slice(0, -s.length);
  return undefined;
}

/** Every file parses: a .json whole, a .jsonl line by line. */
function expectWhole(path: string): void {
  if (statSync(path).isDirectory()) {
    for (const e of readdirSync(path)) expectWhole(join(path, e));
    return;
  }
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.jsonl')) {
    expect(text.endsWith('\n'), path).toBe(true);
    for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line), path).not.toThrow();
  } else expect(() => JSON.parse(text), path).not.toThrow();
}

function expectFamiliesWhole(root: string): void {
  const active = readdirSync(root).filter((e) => e !== 'archived');
  const archived = existsSync(join(root, 'archived')) ? readdirSync(join(root, 'archived')) : [];
  for (const [entries, base] of [[active, root], [archived, join(root, 'archived')]] as const) {
    for (const e of entries) {
      expect(e.startsWith('.'), `left behind: ${e}`).toBe(false);
      const name = familyOf(e);
      expect(name, e).toBeDefined();
      expect(entries.includes(`${name}.jsonl`), `${e} without its transcript`).toBe(true);
      expectWhole(join(base, e));
    }
  }
  const names = (xs: string[]) => new Set(xs.map(familyOf));
  const both = [...names(active)].filter((n) => names(archived).has(n));
  expect(both, 'families split between active and archived').toEqual([]);
}

describe('two processes on one store', () => {
  it('fork, archive, delete, retitle, save and prune at once: every family ends whole', async () => {
    const root = join(dir, 'store');
    const a = worker(root, 1, 60);
    const b = worker(root, 2, 60);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect([ra.code, ra.out.trim()]).toEqual([0, 'done']);
    expect([rb.code, rb.out.trim()]).toEqual([0, 'done']);
    expectFamiliesWhole(root);
    expect((await SessionStore.at(root).list()).length).toBeGreaterThan(0);
  }, 120_000);

  it('one killed mid-run: the other (and the next mutation) finishes its work; every family ends whole', async () => {
    const root = join(dir, 'store');
    const victim = worker(root, 3, 100_000);
    const survivor = worker(root, 4, 80);
    await new Promise((r) => setTimeout(r, 1500));
    victim.kill();
    expect((await victim.done).code).toBe(null);
    expect((await survivor.done).code).toBe(0);
    // the victim may have died holding the lock after the survivor's last step: the next mutation recovers
    await SessionStore.at(root).save('after', 'after', `${JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: 'after' })}\n`);
    expectFamiliesWhole(root);
  }, 120_000);
});
