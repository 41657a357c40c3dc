/**
 * `jcode`: Jcode (1jehuang/jcode), which keeps each session as a snapshot, `~/.jcode/sessions/<id>.json`
 * (`$JCODE_HOME` moves the folder), rewritten whole at a checkpoint, and a journal beside it,
 * `<id>.journal.jsonl`, appended between checkpoints and removed by the next one. A session's file is its
 * snapshot, read behind a fingerprint cursor (cursors/read-document.ts); the journal is a parse dependency, and
 * its stat is kept in the cursor too, so a read resumed after an append reads the session again. README.md has
 * the format, the token semantics and the sources.
 *
 * @example
 * import { jcode } from 'sessionfold/codecs/jcode';
 * for await (const f of jcode.discover(jcode.defaultRoots()))
 *   for await (const e of jcode.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { readFileSync } from 'node:fs';
import type { Codec, NormalizedReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { lineSkipper } from '../../cursors/core.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead, documentText } from '../../cursors/read-document.js';
import { parseJcodeSession } from './parse.js';
import { discoverJcodeSync, jcodeSessionIdOf, journalOf } from './paths.js';
import { jcodeDescriptor } from './descriptor.js';

export { bucketsOf, parseJcodeSession, type JcodeBuckets, type JcodeParseOptions } from './parse.js';
export { discoverJcodeSync, getJcodeRoots, jcodeSessionIdOf, journalOf } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** The journal's text, or undefined when there is none (Jcode removes it at each checkpoint). */
function readJournal(file: string): string | undefined {
  try {
    return readFileSync(journalOf(file), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The document parser: the snapshot's text (decoded as it is read) and the journal, into the pure core. */
function* parseDocument(file: string, chunks: () => Generator<Buffer>, options: NormalizedReadOptions): Generator<SessionfoldEvent> {
  yield* parseJcodeSession(jcodeSessionIdOf(file), documentText(chunks()), readJournal(file), { conversation: options.conversation, skip: lineSkipper(options, file) });
}

/** The journal beside a snapshot: a parse dependency, whose stamp the read's cursor holds. */
const dependencies = (file: string): string[] => [journalOf(file)];

const readJcode = createDocumentRead(jcodeDescriptor, parseDocument, dependencies);

/** Jcode: session snapshots and journals under `~/.jcode/sessions`; see its README. */
export const jcode: Codec = {
  ...jcodeDescriptor,
  ...fromSyncListing(discoverJcodeSync),
  getParseDependencies: dependencies,
  read: readJcode,
  resumeCommand: (nativeId: string) => ['jcode', '--resume', nativeId],
};
export default jcode;
