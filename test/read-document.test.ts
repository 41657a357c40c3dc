/**
 * A whole-document read with parse dependencies (cursors/read-document.ts `createDocumentRead`): the cursor
 * holds the stamp of the files beside the document, so a change there alone restarts the read, and a
 * document read without dependencies keeps the fingerprint alone.
 */
import { writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadCursor, ResumeStart } from '../cursors/protocol/codec.js';
import { sessionEventOf, type SessionfoldEvent } from '../cursors/protocol/events.js';
import { createDocumentRead, type DocumentParser } from '../cursors/read-document.js';
import { inTempDir } from './helpers/files.js';

const CODEC = { id: 'doc-test', parserVersion: 1 };

/** One session event per document, whose id is the document's text. */
const parse: DocumentParser = function* (_file, chunks) {
  const text = Buffer.concat([...chunks()].map((c) => Buffer.from(c))).toString('utf8');
  yield sessionEventOf(CODEC.id, text.trim(), 0, {});
};

async function readOnce(read: ReturnType<typeof createDocumentRead>, file: string, from?: ReadCursor) {
  let cursor: ReadCursor | undefined;
  let start: ResumeStart | undefined;
  const events: SessionfoldEvent[] = [];
  for await (const e of read(file, { resume: { from, onCursor: (u) => (cursor = u.cursor), onStart: (s) => (start = s) } })) events.push(e);
  return { events, cursor: cursor!, start: start! };
}

describe('createDocumentRead with dependencies', () => {
  it('reads again when a dependency changes, and not while none does', async () => {
    await inTempDir('sf-read-doc-', async (dir) => {
      const doc = join(dir, 'a.json');
      const beside = join(dir, 'a.journal');
      await writeFile(doc, 'one');
      const read = createDocumentRead(CODEC, parse, () => [beside]);
      const first = await readOnce(read, doc);
      expect(first.events).toHaveLength(1);
      const same = await readOnce(read, doc, first.cursor);
      expect([same.events.length, same.start.restarted]).toEqual([0, false]);
      await appendFile(beside, 'x\n'); // the dependency appears: the document alone is unchanged
      const grown = await readOnce(read, doc, same.cursor);
      expect(grown.start).toMatchObject({ restarted: true, reason: 'prefix-changed' });
      expect(grown.events).toHaveLength(1);
      expect((await readOnce(read, doc, grown.cursor)).start.restarted).toBe(false);
    });
  });

  it('without dependencies, a change beside the document is not seen', async () => {
    await inTempDir('sf-read-doc-', async (dir) => {
      const doc = join(dir, 'a.json');
      await writeFile(doc, 'one');
      const read = createDocumentRead(CODEC, parse);
      const first = await readOnce(read, doc);
      await writeFile(join(dir, 'a.journal'), 'x\n');
      expect((await readOnce(read, doc, first.cursor)).start.restarted).toBe(false);
      expect(first.cursor.state).toEqual({ kinds: expect.any(Array) });
    });
  });
});
