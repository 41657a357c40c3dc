/**
 * `opencodereview`: Open Code Review (`ocr`, alibaba/open-code-review) review sessions,
 * `~/.opencodereview/sessions/<repo key>/<session id>.jsonl`. README.md has the format, the token semantics
 * and the sources.
 *
 * @example
 * import { openCodeReview } from 'sessionfold/codecs/opencodereview';
 * for (const f of openCodeReview.discoverSync!(openCodeReview.defaultRoots()))
 *   for await (const e of openCodeReview.read(f.path, { kinds: ['usage'] })) console.log(e.sessionId, e.inputTokens);
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { openCodeReviewCore } from './parse.js';
import { discoverOpenCodeReviewSync } from './paths.js';
import { openCodeReviewDescriptor } from './descriptor.js';

export { openCodeReviewCore, openCodeReviewUsage, type OpenCodeReviewState } from './parse.js';
export { CODEC_ID as OPENCODEREVIEW_CODEC_ID, discoverOpenCodeReviewSync, getOpenCodeReviewRoots } from './paths.js';

/** The Open Code Review codec. */
export const openCodeReview: Codec = {
  ...openCodeReviewDescriptor,
  ...fromSyncListing(discoverOpenCodeReviewSync),
  getParseDependencies: () => [],
  lineCore: openCodeReviewCore,
  read: createJsonlRead(openCodeReviewDescriptor, openCodeReviewCore),
};
export default openCodeReview;
