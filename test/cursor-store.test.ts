import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorStore } from '../cursors/store.js';
import type { JsonlCursor } from '../cursors/protocol/codec.js';

const cursor = (offset: number): JsonlCursor => ({ format: 'jsonl', version: 1, parser: 'x@n1.p1', offset, prefixHash: '0'.repeat(64) });

describe('CursorStore', () => {
  it('saves a versioned document atomically and loads it back', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'sf-store-')), 'sub', 'cursors.json');
    const s = await CursorStore.open(path);
    s.set('/a.jsonl', cursor(10));
    expect(await s.save()).toBe(true);
    const doc = JSON.parse(await readFile(path, 'utf8'));
    expect(doc).toEqual({ version: 1, cursors: { '/a.jsonl': cursor(10) } });
    await expect(stat(`${path}.tmp`)).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await CursorStore.open(path);
    expect(again.get('/a.jsonl')).toEqual(cursor(10));
  });

  it('skips the save when nothing changed', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'sf-store-')), 'cursors.json');
    const s = await CursorStore.open(path);
    s.set('/a', cursor(1));
    await s.save();
    const m1 = (await stat(path)).mtimeMs;
    s.set('/a', cursor(1));
    expect(await s.save()).toBe(false);
    expect((await stat(path)).mtimeMs).toBe(m1);
  });

  it('loads a complete temp file first (a crash between write and rename loses nothing)', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'sf-store-')), 'cursors.json');
    await writeFile(path, JSON.stringify({ version: 1, cursors: { '/a': cursor(1) } }));
    await writeFile(`${path}.tmp`, JSON.stringify({ version: 1, cursors: { '/a': cursor(2) } }));
    expect((await CursorStore.open(path)).get('/a')).toEqual(cursor(2));
  });

  it('ignores a torn temp file and a document of another version', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'sf-store-')), 'cursors.json');
    await writeFile(path, JSON.stringify({ version: 1, cursors: { '/a': cursor(1) } }));
    await writeFile(`${path}.tmp`, '{"version":1,"cursors":{"/a":');
    expect((await CursorStore.open(path)).get('/a')).toEqual(cursor(1));
    await writeFile(path, JSON.stringify({ version: 99, cursors: { '/a': cursor(1) } }));
    expect((await CursorStore.open(path)).size).toBe(0);
  });
});
