/**
 * `vibe`: Mistral Vibe, which logs each session in a folder of its own under `~/.vibe/logs/session/`
 * (`$VIBE_HOME` moves the home; README.md has the format and its sources): `meta.json`, rewritten whole at
 * every save with the session's running token stats, and `messages.jsonl`, one message per line. A session's
 * file is its `meta.json`, with `messages.jsonl` as a parse dependency; reads are whole (both files are
 * small and change together); a read of only session or usage events reads `meta.json` alone. Per session: a
 * session event, the messages with their tool calls and results, and one usage event from the stats.
 *
 * @example
 * import { vibe } from 'sessionfold/codecs/vibe';
 * for await (const f of vibe.discover(vibe.defaultRoots()))
 *   for await (const e of vibe.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import { basename, dirname, join } from 'node:path';
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { readCollected, readSessionText } from '../../cursors/read-collected.js';
import { parseVibeSession } from './parse.js';
import { CODEC_ID, discoverVibeFiles, MESSAGES_FILE, shortIdOf } from './paths.js';
import { vibeDescriptor } from './descriptor.js';

export { activeModel, isoTime, messageEvents, parseVibeSession, sessionEvent, usageEvent } from './parse.js';
export { discoverVibeFiles, getVibeRoots } from './paths.js';

export { PARSER_VERSION } from './descriptor.js';

const messagesOf = (file: string): string => join(dirname(file), MESSAGES_FILE);

/** The session's events through `readCollected` (its counts, skips, `strict` and `onSkip`, as every whole read). */
function readVibe(file: string, options?: ReadOptions): AsyncGenerator<SessionfoldEvent> {
  return readCollected(CODEC_ID, file, options, (o, emit) => {
    const meta = readSessionText(CODEC_ID, file, false) as string;
    // the session and usage events are meta.json's alone: a cost scan or a locate leaves messages.jsonl unread
    const messages = o.conversation ? readSessionText(CODEC_ID, messagesOf(file), true) : undefined;
    const got = parseVibeSession(meta, messages, basename(dirname(file)));
    for (const e of got.events) if (o.kinds.has(e.type)) emit(e);
    return { records: 1 + got.lines, bytes: Buffer.byteLength(meta) + (messages === undefined ? 0 : Buffer.byteLength(messages)), skipped: got.skipped };
  });
}

/** A session by its id: only the folders whose short id begins it have their `meta.json` read. */
async function locateVibe(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  for (const f of discoverVibeFiles(roots)) {
    const short = shortIdOf(basename(dirname(f.path)));
    if (short === undefined || !nativeId.toLowerCase().startsWith(short)) continue;
    for await (const e of readVibe(f.path, { kinds: ['session'] })) if (e.sessionId === nativeId) return f;
  }
  return undefined;
}

/** Mistral Vibe: session folders under `~/.vibe/logs/session`; see its README. */
export const vibe: Codec = {
  ...vibeDescriptor,
  discoverSync: discoverVibeFiles,
  async *discover(roots: readonly string[]) {
    yield* discoverVibeFiles(roots);
  },
  locate: locateVibe,
  getParseDependencies: (file: string) => [messagesOf(file)],
  read: readVibe,
};
export default vibe;
