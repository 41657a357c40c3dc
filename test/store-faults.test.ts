/**
 * The store under failing disks and crashes, injected at each rename (test/helpers/fs-faults.ts): a write
 * that fails (ENOSPC, EIO) leaves no member behind for the next session of that name to adopt, and a family
 * that a crash interrupts ends, after recovery, entirely old or entirely new.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { SessionStore } from '../src/store/store.js';
import { injectRenameFault } from './helpers/fs-faults.js';

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

/** The entries of the root that belong to `name` (its members, its subagents folder, its temp files). */
const entriesOf = (name: string): string[] => readdirSync(root).filter((e) => e.startsWith(name) || e.startsWith(`.${name}`)).sort();

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

describe('a write that fails', () => {
  it('a fork failing at any rename leaves nothing of the new name, and the next session saved under it is no fork', async () => {
    let at = 1;
    for (; ; at++) {
      await rm(root, { recursive: true, force: true });
      const s = await SessionStore.open(root);
      await s.save('c1', 'C1', transcript('c1', 4));
      if (!(await failingAt(at, () => s.fork('c1', 'c1b', 'C1b', undefined, 1)))) break;
      expect(entriesOf('c1b'), `rename ${at}`).toEqual([]);
      await s.save('c1b', 'Fresh', transcript('c1b', 2));
      expect((await s.list()).find((i) => i.name === 'c1b')?.forkedFrom, `rename ${at}`).toBeUndefined();
      expect(await s.loadForkProvenance('c1b')).toBeUndefined();
    }
    expect(at).toBeGreaterThan(2); // the fork wrote its provenance and meta before the transcript
  });

  it('a new family failing at any rename leaves nothing of its name', async () => {
    let at = 1;
    for (; ; at++) {
      await rm(root, { recursive: true, force: true });
      const s = await SessionStore.open(root);
      const write = () => s.saveFamily('n', { title: 'N', transcript: transcript('n', 2), sidecar: 's\n', git: { branch: 'b' }, subagents: [{ id: 'a1', transcript: transcript('a1', 1) }] });
      if (!(await failingAt(at, write))) break;
      expect(entriesOf('n'), `rename ${at}`).toEqual([]);
    }
    expect(at).toBeGreaterThan(4);
  });

  it('a new family clears the stray members a name has without a transcript', async () => {
    const s = await SessionStore.open(root);
    await s.save('c1', 'C1', transcript('c1', 4));
    writeFileSync(join(root, 'c1b.fork.json'), JSON.stringify({ version: 1, from: 'c1', to: 'c1b' }));
    writeFileSync(join(root, 'c1b.sidecar.jsonl'), 'stale\n');
    mkdirSync(join(root, 'c1b.subagents'));
    writeFileSync(join(root, 'c1b.subagents', 'old.jsonl'), transcript('old', 1));
    await s.save('c1b', 'Fresh', transcript('c1b', 2));
    expect(entriesOf('c1b')).toEqual(['c1b.jsonl', 'c1b.meta.json']);
    expect((await s.list()).find((i) => i.name === 'c1b')?.forkedFrom).toBeUndefined();
    writeFileSync(join(root, 'c2.fork.json'), JSON.stringify({ version: 1, from: 'c1', to: 'c2' }));
    await s.fork('c1', 'c2', 'C2', 1, 1);
    expect((await s.loadForkProvenance('c2'))?.messagesKept).toBe(1);
    expect(existsSync(join(root, 'c2.sidecar.jsonl'))).toBe(false);
  });
});
