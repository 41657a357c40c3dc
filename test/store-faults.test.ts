/**
 * The store under failing disks and crashes, injected at each rename (test/helpers/fs-faults.ts): after a
 * write that fails (ENOSPC) or a process killed in the middle of one, and the recovery the next mutation
 * runs, the family of that name is entirely old or entirely new, and nothing a failed write left (a fork
 * record above all) joins the next session saved under that name.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { SessionStore } from '../src/store/store.js';
import type { FamilyWrite } from '../src/store/types.js';
import { injectRenameFault } from './helpers/fs-faults.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CRASH = join(ROOT, 'test', 'helpers', 'store-crash.ts');
const REGISTER = join(ROOT, 'src', 'scan', 'dev-register.mjs');

let root: string;
beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sf-store-faults-'));
  root = join(dir, 'store');
  return () => rm(dir, { recursive: true, force: true });
});

const transcript = (id: string, n: number): string => {
  const lines = [JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: id, title: id })];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ type: 'sessionfold.message', index: i, role: i % 2 ? 'assistant' : 'user', content: `${id} ${i}` }));
  return `${lines.join('\n')}\n`;
};

/**
 * What the root holds of `name`, every file below its entries with its text (a meta without its times,
 * which differ run to run), plus any other entry starting with a dot (a stage, a temp file, a lock).
 */
function snapshot(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string) => {
    if (statSync(path).isDirectory()) for (const e of readdirSync(path)) walk(join(path, e), join(rel, e));
    else if (rel.endsWith('.meta.json')) {
      const { createdAtMs: _c, updatedAtMs: _u, ...meta } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      out[rel] = JSON.stringify(meta);
    } else out[rel] = readFileSync(path, 'utf8');
  };
  if (existsSync(root)) for (const e of readdirSync(root)) if (e.startsWith(name) || e.startsWith('.')) walk(join(root, e), e);
  return out;
}

/** Run `op` with the `at`th rename failing; true when it failed (false: it had fewer renames than `at`). */
async function failingAt(at: number, op: () => Promise<unknown>): Promise<boolean> {
  const fault = injectRenameFault(at, 'ENOSPC');
  try {
    await op();
    return false;
  } catch (e) {
    if (!isSessionfoldError(e) || e.code !== 'IO_ERROR') throw e;
    return true;
  } finally {
    fault.restore();
  }
}

/** Run the store operation `op` in a child killed at its `at`th rename; true when it was killed. */
function killedAt(at: number, op: object): boolean {
  const r = spawnSync(process.execPath, ['--import', REGISTER, CRASH, root, String(at), JSON.stringify(op)], { encoding: 'utf8' });
  if (r.signal === 'SIGKILL') return true;
  expect([r.status, r.stderr]).toEqual([0, '']);
  expect(r.stdout).toMatch(/^done \d+\n$/);
  return false;
}

/** Any mutation: it breaks a dead holder's lock, so it recovers its intent first. */
const nextMutation = (s: SessionStore) => s.save('zz-next', 'Next', transcript('zz-next', 1));
const withoutNext = (snap: Record<string, string>) => Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith('zz-next')));

const OLD: FamilyWrite = {
  title: 'Old',
  transcript: transcript('fam', 4),
  sidecar: 'old sidecar\n',
  git: { branch: 'old' },
  fork: { version: 1, from: 'elsewhere', fromArchived: false, to: 'fam', messagesKept: 4, sourceMessages: 9, forkedAtMs: 1 },
  subagents: [{ id: 'agent-old', transcript: transcript('agent-old', 2), lineage: { version: 1, parent: 'fam', child: 'agent-old' } }],
};
const NEW: FamilyWrite = {
  title: 'New',
  transcript: transcript('fam', 6),
  modelChanges: [{ messageIndex: 1, to: 'm' }],
  git: { branch: 'new' },
  subagents: [{ id: 'agent-new', transcript: transcript('agent-new', 3), sidecar: 'new child sidecar\n' }],
};

/**
 * For each rename of a write of NEW over `old` (or over no family) in turn: a fresh store with `old`, the
 * write with `fault(at)` at that rename, then the family entirely as before or entirely NEW. `fault` is
 * false when the write had fewer renames; the renames walked are returned.
 */
async function oldOrNewAtEveryRename(old: FamilyWrite | undefined, fault: (at: number) => Promise<boolean>): Promise<number> {
  await rm(root, { recursive: true, force: true });
  await (await SessionStore.open(root)).saveFamily('fam', NEW);
  const after = snapshot('fam');
  let at = 1;
  for (; ; at++) {
    await rm(root, { recursive: true, force: true });
    const s = await SessionStore.open(root);
    if (old !== undefined) await s.saveFamily('fam', old);
    const before = snapshot('fam');
    if (!(await fault(at))) return at;
    expect([before, after], `rename ${at}`).toContainEqual(withoutNext(snapshot('fam')));
  }
}

describe('a write that fails', () => {
  it('a fork failing at any rename leaves nothing of the new name or the whole fork; a session saved after it is no fork', async () => {
    let at = 1;
    for (; ; at++) {
      await rm(root, { recursive: true, force: true });
      const s = await SessionStore.open(root);
      await s.save('c1', 'C1', transcript('c1', 4));
      if (!(await failingAt(at, () => s.fork('c1', 'c1b', 'C1b', undefined, 1)))) break;
      const left = Object.keys(snapshot('c1b')).sort();
      if (left.length > 0) {
        expect(left, `rename ${at}`).toEqual(['c1b.fork.json', 'c1b.jsonl', 'c1b.meta.json']);
        continue;
      }
      await s.save('c1b', 'Fresh', transcript('c1b', 2));
      expect((await s.list()).find((i) => i.name === 'c1b')?.forkedFrom, `rename ${at}`).toBeUndefined();
      expect(await s.loadForkProvenance('c1b')).toBeUndefined();
    }
    expect(at).toBeGreaterThan(3); // the fork wrote its provenance and meta before the transcript
  });

  it('an overwrite or a new family failing at any rename leaves the family entirely old (or absent) or entirely new', async () => {
    const s = await SessionStore.open(root);
    for (const old of [OLD, undefined]) expect(await oldOrNewAtEveryRename(old, (at) => failingAt(at, () => s.saveFamily('fam', NEW, { overwrite: true })))).toBeGreaterThan(8);
  });

  it('a new family clears the stray members a name has without a transcript, but a sidecar recorded ahead of it', async () => {
    const s = await SessionStore.open(root);
    await s.save('c1', 'C1', transcript('c1', 4));
    writeFileSync(join(root, 'c1b.fork.json'), JSON.stringify({ version: 1, from: 'c1', to: 'c1b' }));
    writeFileSync(join(root, 'c1b.usage.jsonl'), '{}\n');
    mkdirSync(join(root, 'c1b.subagents'));
    writeFileSync(join(root, 'c1b.subagents', 'old.jsonl'), transcript('old', 1));
    await s.save('c1b', 'Fresh', transcript('c1b', 2));
    expect(Object.keys(snapshot('c1b')).sort()).toEqual(['c1b.jsonl', 'c1b.meta.json']);
    expect((await s.list()).find((i) => i.name === 'c1b')?.forkedFrom).toBeUndefined();
    writeFileSync(join(root, 'c2.fork.json'), JSON.stringify({ version: 1, from: 'c1', to: 'c2' }));
    await s.saveSidecar('c2', 'ahead\n'); // the seed's reduced-mode resume: its sidecar before any transcript
    await s.fork('c1', 'c2', 'C2', 1, 1);
    expect((await s.loadForkProvenance('c2'))?.messagesKept).toBe(1);
    expect(Object.keys(snapshot('c2')).sort()).toEqual(['c2.fork.json', 'c2.jsonl', 'c2.meta.json', 'c2.sidecar.jsonl']);
  });
});

describe('a crash in the middle of a write', () => {
  it('an overwrite killed at any rename ends, after recovery, entirely old or entirely new', async () => {
    const s = await SessionStore.open(root);
    const crash = async (at: number) => {
      if (!killedAt(at, { saveFamily: ['fam', NEW, { overwrite: true }] })) return false;
      await nextMutation(s);
      return true;
    };
    expect(await oldOrNewAtEveryRename(OLD, crash)).toBeGreaterThan(8);
  }, 120_000);
});
