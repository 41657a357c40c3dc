/**
 * `antigravity`: the Antigravity CLI (`agy`). One folder per conversation under
 * `~/.gemini/antigravity-cli/brain`, its steps appended to `.system_generated/logs/transcript.jsonl`: read with
 * byte-exact resume through a LineCore and `createJsonlRead()`. The log records no tokens.
 */
import { join } from 'node:path';
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createAntigravityCore } from './parse.js';
import { CODEC_ID, conversationIdOf, TRANSCRIPT } from './paths.js';
import { antigravityDescriptor } from './descriptor.js';

export { createAntigravityCore } from './parse.js';
export { getAntigravityRoots } from './paths.js';

function* discoverSync(roots: readonly string[]): Iterable<SessionFile> {
  for (const root of roots) {
    for (const conv of listDir(root)) {
      if (conv.kind !== DIR) continue;
      const logs = join(root, conv.name, TRANSCRIPT[0], TRANSCRIPT[1]);
      const entry = listDir(logs).find((e) => e.kind === FILE && e.name === TRANSCRIPT[2]);
      const st = entry === undefined ? undefined : fileStat(logs, entry);
      if (st === undefined) continue;
      yield { agent: CODEC_ID, path: join(logs, TRANSCRIPT[2]), root, sessionId: conv.name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
    }
  }
}

const coreFor = (file: string) => createAntigravityCore(conversationIdOf(file));

/** The Antigravity CLI: step logs under `~/.gemini/antigravity-cli/brain`; see its README. */
export const antigravity: Codec = {
  ...antigravityDescriptor,
  ...fromSyncListing(discoverSync),
  getParseDependencies: () => [],
  lineCore: createAntigravityCore('stdin'),
  lineCoreFor: coreFor,
  read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
    return createJsonlRead(antigravityDescriptor, coreFor(file))(file, options);
  },
  resumeCommand(nativeId: string): string[] {
    return ['agy', '--conversation', nativeId];
  },
};
export default antigravity;
