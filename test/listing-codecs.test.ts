/**
 * Qwen Code and Factory Droid list their sessions synchronously and take `discover` and `locate` from that
 * listing (cursors/discovery.ts `fromSyncListing`): the async listing is the sync one, and `locate` finds a
 * session by its native id in each layout the listing walks, and nothing for an id it does not list.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droid } from '../codecs/droid/index.js';
import { qwen } from '../codecs/qwen/index.js';
import type { Codec } from '../cursors/protocol/codec.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-listing-codecs-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Empty session files at `rels` under a fresh root. */
function tree(name: string, rels: readonly string[]): string {
  const root = join(home, name);
  for (const rel of rels) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), '');
  }
  return root;
}

const CASES: [string, Codec, string[]][] = [
  ['qwen', qwen, ['-home-a/chats/s-1.jsonl', '-home-b/chats/s-2.jsonl', '-home-b/notes.jsonl']],
  ['droid', droid, ['s-0.jsonl', '-home-a/s-1.jsonl', '-home-b/s-2.jsonl']],
];

describe.each(CASES)('%s: discover and locate from the sync listing', (name, codec, rels) => {
  it('lists the same sessions either way, and locates each by its id', async () => {
    const root = tree(name, rels);
    const sync = [...codec.discoverSync!([root])];
    const all = [];
    for await (const f of codec.discover([root])) all.push(f);
    expect(all).toEqual(sync);
    expect(sync.map((f) => f.sessionId).sort()).toEqual(name === 'qwen' ? ['s-1', 's-2'] : ['s-0', 's-1', 's-2']);
    for (const f of sync) expect(await codec.locate!([join(home, 'missing'), root], f.sessionId!)).toEqual(f);
    expect(await codec.locate!([root], 'notes')).toBeUndefined();
  });
});
