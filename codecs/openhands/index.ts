/**
 * `openhands`: the OpenHands CLI (OpenHands/OpenHands-CLI, on the OpenHands SDK), which keeps each conversation
 * in a folder of its own, `~/.openhands/conversations/<id>/`: `base_state.json`, the state rewritten whole
 * (with the LLM usage of the conversation), and `events/`, one JSON file per event. A session's file is its
 * `base_state.json`, read in chunks behind a fingerprint cursor (cursors/read-document.ts); the `events/` folder
 * is a parse dependency, and its stat is kept in the cursor too, so a read resumed after an event was written
 * reads the conversation again. README.md has the format, the token semantics and the sources.
 *
 * @example
 * import { openHands } from 'sessionfold/codecs/openhands';
 * for await (const f of openHands.discover(openHands.defaultRoots()))
 *   for await (const e of openHands.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Codec, DetectScore } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead, stampedDocumentRead } from '../../cursors/read-document.js';
import { parseOpenHandsConversation } from './parse.js';
import { BASE_STATE, discoverOpenHandsSync, eventsDirOf } from './paths.js';
import { openHandsDescriptor } from './descriptor.js';

export { parseOpenHandsConversation } from './parse.js';
export { bucketsOf, readStats } from './stats.js';
export { conversationIdOf, discoverOpenHandsSync, eventsDirOf, getOpenHandsRoots } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

const readDocument = createDocumentRead(openHandsDescriptor, parseOpenHandsConversation);

/** The `events/` folder's stat, as discovery stamps a dependency (size, mtime, inode, ctime); null without one. */
function eventsStamp(file: string): string {
  const s = statSync(eventsDirOf(file), { throwIfNoEntry: false });
  return JSON.stringify(s === undefined ? null : [s.size, s.mtimeMs, s.ino, s.ctimeMs]);
}

/** The document read with the `events/` folder's stamp in its cursor (cursors/read-document.ts `stampedDocumentRead`). */
const readOpenHands = stampedDocumentRead(readDocument, 'events', eventsStamp);

const HEAD = /^\s*\{\s*"id"\s*:\s*"[0-9a-fA-F-]{32,36}"\s*,\s*"agent"\s*:/;

/** A `base_state.json` that begins as the SDK's `ConversationState` dump does (`id`, then `agent`). */
function detect(file: string, head: Buffer): DetectScore {
  return basename(file) === BASE_STATE && HEAD.test(head.subarray(0, 4096).toString('utf8')) ? 2 : 0;
}

/** OpenHands CLI: conversation folders under `~/.openhands/conversations`; see its README. */
export const openHands: Codec = {
  ...openHandsDescriptor,
  ...fromSyncListing(discoverOpenHandsSync),
  getParseDependencies: (file: string) => [eventsDirOf(file)],
  read: readOpenHands,
  detect,
  resumeCommand: (nativeId: string) => ['openhands', '--resume', nativeId],
};
export default openHands;
