/**
 * `mux`: Mux (coder/mux, renamed Xum: coder/xum), whose per-workspace usage ledger is
 * `~/.xum/sessions/<workspace id>/session-usage.json`, or the same under the Mux homes `~/.mux` and `~/.cmux`
 * (`$XUM_ROOT`, else `$MUX_ROOT`, moves the home). README.md has the format, the token semantics and the sources. A read is whole:
 * the ledger is rewritten at every stream's end.
 *
 * @example
 * import { mux } from 'sessionfold/codecs/mux';
 * for (const f of mux.discoverSync!(mux.defaultRoots()))
 *   for await (const e of mux.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { readCollected, readSessionText } from '../../cursors/read-collected.js';
import { parseMuxUsage } from './parse.js';
import { CODEC_ID, discoverMuxFiles } from './paths.js';
import { muxDescriptor } from './descriptor.js';

export { muxUsage, parseMuxUsage } from './parse.js';
export { discoverMuxFiles, getMuxRoots } from './paths.js';

function readMux(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, (o, emit) => {
    const text = readSessionText(CODEC_ID, file, false) as string;
    // the time of a ledger without `lastRequest`: its last rewrite (README "Tokens")
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    const got = parseMuxUsage(text, basename(dirname(file)), mtimeMs);
    for (const e of got.events) if (o.kinds.has(e.type)) emit(e);
    return { records: 1, bytes: Buffer.byteLength(text), skipped: got.skipped };
  });
}

/** Mux (Xum): workspace usage ledgers under `~/.xum/sessions` and the Mux homes; see its README. */
export const mux: Codec = {
  ...muxDescriptor,
  ...fromSyncListing(discoverMuxFiles),
  getParseDependencies: () => [],
  read: readMux,
};
export default mux;
