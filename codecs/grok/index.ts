/**
 * `grok`: Grok Build, xAI's coding agent CLI (`grok`), whose sessions are
 * `~/.grok/sessions/<workspace>/<session id>/updates.jsonl` (`$GROK_HOME` moves the home). README.md has the
 * format, the token semantics and the sources.
 *
 * @example
 * import { grok } from 'sessionfold/codecs/grok';
 * for (const f of grok.discoverSync!(grok.defaultRoots()))
 *   for await (const e of grok.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec, ReadOptions } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { createGrokCore, grokCore } from './parse.js';
import { grokSummaryPath, readGrokMeta, summaryStamp } from './meta.js';
import { discoverGrokSync } from './paths.js';
import { grokDescriptor } from './descriptor.js';

export { createGrokCore, grokCore, grokUsage, type GrokSessionMeta, type GrokState } from './parse.js';
export { turnSpends, GROK_TICKS_PER_USD, type GrokSpend } from './usage.js';
export { CODEC_ID as GROK_CODEC_ID, discoverGrokSync, getGrokRoots, grokWorkspace } from './paths.js';

/** The line engine for one session file, with what its `summary.json` and workspace folder say. */
const coreFor = (file: string) => createGrokCore(readGrokMeta(file));

/** The Grok Build codec. */
export const grok: Codec = {
  ...grokDescriptor,
  ...fromSyncListing(discoverGrokSync),
  getParseDependencies: (file: string) => (file === '-' ? [] : [grokSummaryPath(file)]),
  // summary.json is rewritten every turn; the read takes from it only whether the session is a subagent's
  dependencyStamp: (file: string, dependency: string) => (dependency === grokSummaryPath(file) ? summaryStamp(dependency) : undefined),
  lineCore: grokCore,
  lineCoreFor: coreFor,
  read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
    return createJsonlRead(grokDescriptor, coreFor(file))(file, options);
  },
};
export default grok;
