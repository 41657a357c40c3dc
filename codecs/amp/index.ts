/**
 * `amp`: Amp (ampcode.com). One JSON document per thread, `$XDG_DATA_HOME/amp/threads/T-<id>.json`, rewritten
 * whole as the thread goes on: read in constant memory with stream-json (walk.ts) behind a fingerprint cursor
 * (cursors/read-document.ts), so an unchanged thread is never parsed again.
 */
import { join } from 'node:path';
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { FILE, listDir } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createDocumentRead } from '../../cursors/read-document.js';
import { parseAmpThread } from './parse.js';
import { CODEC_ID, threadIdOf } from './paths.js';
import { ampDescriptor } from './descriptor.js';

export { parseAmpThread } from './parse.js';
export { getAmpRoots } from './paths.js';


function* discoverSync(roots: readonly string[]): Iterable<SessionFile> {
  for (const root of roots) {
    for (const e of listDir(root)) {
      if (e.kind !== FILE || !e.name.endsWith('.json')) continue;
      const path = join(root, e.name);
      yield { agent: CODEC_ID, path, root, sessionId: threadIdOf(path) };
    }
  }
}

/** Amp: thread documents under `$XDG_DATA_HOME/amp/threads`; see its README. */
export const amp: Codec = {
  ...ampDescriptor,
  ...fromSyncListing(discoverSync),
  getParseDependencies: () => [],
  read: createDocumentRead(ampDescriptor, parseAmpThread),
};
export default amp;
