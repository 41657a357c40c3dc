/**
 * The source report's state of a root (src/scan/sources.ts): a root the codec listed sessions from is found,
 * a file among them (a database an agent's variable names, `OPENCODE_DB`); a file it listed nothing from is
 * still no folder to read, said so.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { surveySources } from '../src/scan/sources.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-source-roots-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A probe whose one root is `file`, listing `sessions` record paths from it. */
const probe = (file: string, sessions: number): Codec => ({
  ...sessionfoldJsonl,
  id: 'file-root-probe',
  aliases: [],
  displayName: 'file-root-probe',
  defaultRoots: () => [file],
  rootVariables: [],
  discoverSync: function* (roots: readonly string[]): Generator<SessionFile> {
    for (let i = 0; i < sessions; i++) yield { agent: 'file-root-probe', path: `${roots[0]}#s${i}`, root: roots[0] as string, sessionId: `s${i}` };
  },
});

describe('a root that is a file', () => {
  it('is found when the codec lists sessions from it', async () => {
    const db = join(dir, 'work.db');
    await writeFile(db, 'a database');
    expect(await surveySources([probe(db, 2)], {})).toEqual([{ agent: 'file-root-probe', root: db, status: 'found', files: 2, unreadable: 0 }]);
  });

  it('is no folder when it lists none', async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'not a database');
    expect(await surveySources([probe(file, 0)], {})).toEqual([{ agent: 'file-root-probe', root: file, status: 'unreadable', reason: 'not a directory', files: 0, unreadable: 0 }]);
  });
});
