/**
 * The folders discovery could not list belong to the discovery that met them (cursors/list-dir.ts
 * `unreadableMark` / `unreadableSince`): discoveries that interleave, as two requests to `serve` do, each get
 * the folders under their own roots noted since their mark, and none takes another's away. Two probe codecs
 * whose discovery notes a folder it leaves out, then waits for the other's, run as two concurrent surveys.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteLeftOut, unreadableMark, unreadableSince } from '../cursors/list-dir.js';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { surveySources } from '../src/scan/sources.js';
import { makeHome, type Home } from './sessions-helpers.js';

let home: Home;
const rootOf = (name: string) => join(home.dir, name);

describe('unreadableSince', () => {
  it('gives the folders noted since the mark under the roots asked for, each once, and forgets none', () => {
    const a = unreadableMark();
    noteLeftOut('/r/a/x', 'EACCES');
    const b = unreadableMark();
    noteLeftOut('/r/b/y', 'EIO');
    noteLeftOut('/r/a/x', 'EACCES');
    noteLeftOut('/r/ab', 'EACCES'); // a sibling whose name begins with a's: not under /r/a
    expect(unreadableSince(a, ['/r/a'])).toEqual([['/r/a/x', 'EACCES']]);
    expect(unreadableSince(b, ['/r/b'])).toEqual([['/r/b/y', 'EIO']]);
    expect(unreadableSince(b, ['/r/a'])).toEqual([['/r/a/x', 'EACCES']]);
    // a folder above a root (a discovery that lists a root's parent) is the root's too
    expect(unreadableSince(a, ['/r/b/y/db.sqlite'])).toEqual([['/r/b/y', 'EIO']]);
    expect(unreadableSince(a, ['/r/a'])).toEqual([['/r/a/x', 'EACCES']]);
    expect(unreadableSince(unreadableMark(), ['/r/a'])).toEqual([]);
  });
});

describe('two interleaved surveys', () => {
  let gate!: () => void;
  const other = new Promise<void>((r) => (gate = r));

  /** A probe whose discovery notes `dir` as left out, then (the first one) waits for the other to note its own. */
  const probe = (id: string, first: boolean): Codec => ({
    ...sessionfoldJsonl,
    id,
    aliases: [],
    displayName: id,
    defaultRoots: () => [rootOf(id)],
    discoverSync: undefined,
    async *discover(roots: readonly string[]): AsyncGenerator<SessionFile> {
      noteLeftOut(join(roots[0] as string, 'locked'), 'EACCES');
      if (first) await other;
      else gate();
    },
  });

  beforeAll(async () => {
    home = await makeHome();
    for (const id of ['notes-probe-a', 'notes-probe-b']) await mkdir(rootOf(id), { recursive: true });
  });

  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });

  it('each survey counts the folder under its own root, not the other\u2019s, and neither loses its own', async () => {
    const [a, b] = await Promise.all([
      surveySources([probe('notes-probe-a', true)], home.env),
      surveySources([probe('notes-probe-b', false)], home.env),
    ]);
    expect(a.map((s) => [s.agent, s.unreadable])).toEqual([['notes-probe-a', 1]]);
    expect(b.map((s) => [s.agent, s.unreadable])).toEqual([['notes-probe-b', 1]]);
  });
});
