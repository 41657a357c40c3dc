/**
 * A codec's `discover`, `discoverSync` and `locate` from one synchronous listing, for a codec whose listing
 * names every session by its native id: `locate` walks the listing until it meets the id.
 */
import type { Codec, SessionFile } from './protocol/codec.js';

export function fromSyncListing(list: (roots: readonly string[]) => Iterable<SessionFile>): Pick<Codec, 'discover' | 'discoverSync' | 'locate'> {
  return {
    discoverSync: list,
    async *discover(roots: readonly string[]) {
      yield* list(roots);
    },
    async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
      for (const f of list(roots)) if (f.sessionId === nativeId) return f;
      return undefined;
    },
  };
}
