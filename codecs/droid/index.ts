/**
 * `droid`: Factory Droid sessions, `~/.factory/sessions/<project>/<uuid>.jsonl` with the
 * `<uuid>.settings.json` beside each that carries its token totals (a parse dependency). README.md has the
 * format, the token semantics and the sources.
 */
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createDroidCore } from './parse.js';
import { discoverDroidSync, settingsPathFor } from './paths.js';
import { readDroidSettings, readDroidSettingsSync } from './settings.js';
import { droidDescriptor } from './descriptor.js';

export { createDroidCore, settingsUsage, type DroidState } from './parse.js';
export { CODEC_ID as DROID_CODEC_ID, discoverDroidSync, getDroidRoots, settingsPathFor } from './paths.js';
export { parseDroidSettings, readDroidSettings, type DroidSettings } from './settings.js';

const plainCore = createDroidCore();

/** `read()`: the sidecar first, handed to the pure core. */
async function* readDroid(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  yield* createJsonlRead(droidDescriptor, createDroidCore(await readDroidSettings(file)))(file, options);
}

/** The Factory Droid codec. */
export const droid: Codec = {
  ...droidDescriptor,
  ...fromSyncListing(discoverDroidSync),
  getParseDependencies: (file: string) => [settingsPathFor(file)],
  lineCore: plainCore,
  lineCoreFor: (file: string) => createDroidCore(readDroidSettingsSync(file)),
  read: readDroid,
};
export default droid;
