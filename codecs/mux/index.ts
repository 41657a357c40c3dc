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
import { basename, dirname, join } from 'node:path';
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { readCollected, readSessionText } from '../../cursors/read-collected.js';
import { parseMuxUsage } from './parse.js';
import { parseMuxChat } from './chat.js';
import { CHAT_ARCHIVE_FILE, CHAT_FILE, CODEC_ID, discoverMuxFiles } from './paths.js';
import { muxDescriptor } from './descriptor.js';

export { muxUsage, parseMuxUsage } from './parse.js';
export { parseMuxChat } from './chat.js';
export { discoverMuxFiles, getMuxRoots } from './paths.js';

/** The conversation files beside a ledger: the archive, then the active file. */
const chatFilesOf = (file: string): [string, string] => [join(dirname(file), CHAT_ARCHIVE_FILE), join(dirname(file), CHAT_FILE)];

function readMux(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, (o, emit) => {
    const text = readSessionText(CODEC_ID, file, false) as string;
    const workspace = basename(dirname(file));
    // the time of a ledger without `lastRequest`: its last rewrite (README "Tokens")
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    const got = parseMuxUsage(text, workspace, mtimeMs);
    const [session, ...usage] = got.events;
    if (session !== undefined && o.kinds.has(session.type)) emit(session);
    let records = 1;
    let bytes = Buffer.byteLength(text);
    let skipped = got.skipped;
    // the conversation only when asked for: a cost scan or a locate reads the ledger alone
    if (o.conversation) {
      const [archive, active] = chatFilesOf(file).map((p) => readSessionText(CODEC_ID, p, true));
      const chat = parseMuxChat(workspace, archive, active);
      for (const e of chat.events) if (o.kinds.has(e.type)) emit(e);
      records += chat.lines;
      bytes += Buffer.byteLength(archive ?? '') + Buffer.byteLength(active ?? '');
      skipped += chat.skipped;
    }
    for (const e of usage) if (o.kinds.has(e.type)) emit(e);
    return { records, bytes, skipped };
  });
}

/** Mux (Xum): workspace usage ledgers under `~/.xum/sessions` and the Mux homes; see its README. */
export const mux: Codec = {
  ...muxDescriptor,
  ...fromSyncListing(discoverMuxFiles),
  getParseDependencies: (file: string) => chatFilesOf(file),
  read: readMux,
};
export default mux;
