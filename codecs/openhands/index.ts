/**
 * `openhands`: the OpenHands CLI (OpenHands/OpenHands-CLI, on the OpenHands SDK), which keeps each conversation
 * in a folder of its own, `~/.openhands/conversations/<id>/`: `base_state.json`, the state rewritten whole
 * (with the LLM usage of the conversation), and `events/`, one JSON file per event. A session's file is its
 * `base_state.json`, read in chunks behind a fingerprint cursor (cursors/read-document.ts); the `events/` folder
 * is a parse dependency, and its stat is kept in the cursor too, so a read resumed after an event was written
 * reads the conversation again. The web app's V1 server keeps its own copy of each conversation's events,
 * `<persistence>/v1/events/<uuid>/` (app.ts): there the session's file is the folder's first event file, and
 * the folder and the app's database are its dependencies. README.md has the format, the token semantics and
 * the sources.
 *
 * @example
 * import { openHands } from 'sessionfold/codecs/openhands';
 * for await (const f of openHands.discover(openHands.defaultRoots()))
 *   for await (const e of openHands.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { basename, dirname } from 'node:path';
import type { Codec, DetectScore } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { sqliteDependencies } from '../../cursors/record-path.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { parseOpenHandsConversation } from './parse.js';
import { parseOpenHandsApp } from './app.js';
import { BASE_STATE, appDbOf, discoverOpenHandsSync, eventsDirOf, isAppEventFile } from './paths.js';
import { openHandsDescriptor } from './descriptor.js';

export { parseOpenHandsConversation } from './parse.js';
export { listAppEventFiles, parseOpenHandsApp } from './app.js';
export { bucketsOf, readStats } from './stats.js';
export { appConversationId, appDbOf, conversationIdOf, discoverOpenHandsSync, eventsDirOf, getOpenHandsRoots, isAppEventFile } from './paths.js';
export { PARSER_VERSION } from './descriptor.js';

/** A CLI conversation's parse dependency: its `events/` folder. */
const cliDependencies = (file: string): string[] => [eventsDirOf(file)];

/** An app conversation's parse dependencies: its folder (events are only added) and the app's database (its title). */
const appDependencies = (file: string): string[] => [dirname(file), appDbOf(file), ...sqliteDependencies(appDbOf(file))];

/** Each read stamps its dependencies into its cursor; the app's document is its first event file. */
const readCli = createDocumentRead(openHandsDescriptor, parseOpenHandsConversation, cliDependencies);
const readApp = createDocumentRead(openHandsDescriptor, parseOpenHandsApp, appDependencies);

const readOpenHands: Codec['read'] = (file, options) => (isAppEventFile(file) ? readApp(file, options) : readCli(file, options));

const HEAD = /^\s*\{\s*"id"\s*:\s*"[0-9a-fA-F-]{32,36}"\s*,\s*"agent"\s*:/;
/** An SDK event as the app dumps it (`model_dump(mode='json')`, indented): `kind` first. */
const APP_HEAD = /^\{\s*"kind"\s*:\s*"[A-Za-z.]+"\s*,/;

/** A `base_state.json` that begins as the SDK's `ConversationState` dump does (`id`, then `agent`), or an app event file. */
function detect(file: string, head: Buffer): DetectScore {
  const text = head.subarray(0, 4096).toString('utf8');
  if (isAppEventFile(file)) return APP_HEAD.test(text) ? 2 : 0;
  return basename(file) === BASE_STATE && HEAD.test(text) ? 2 : 0;
}

/** OpenHands: the CLI's conversation folders under `~/.openhands/conversations` and the web app's `~/.openhands/v1/events`; see its README. */
export const openHands: Codec = {
  ...openHandsDescriptor,
  ...fromSyncListing(discoverOpenHandsSync),
  getParseDependencies: (file: string) => (isAppEventFile(file) ? appDependencies(file) : cliDependencies(file)),
  read: readOpenHands,
  detect,
  resumeCommand: (nativeId: string) => ['openhands', '--resume', nativeId],
};
export default openHands;
