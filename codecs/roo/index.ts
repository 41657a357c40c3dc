/**
 * `roo`: Roo Code, a fork of Cline that keeps Cline's task layout and `ClineMessage` records (its
 * differences, all read by the Cline engine, are in README.md). The codec is Cline's, under Roo Code's roots
 * and name, with Roo Code's `tokensIn` (cache included since 3.29.5), its model taken from the prompts (an array
 * or Roo Code's `{version: 2, messages}` envelope), and its work dir and title from the task's
 * `history_item.json` where Roo Code wrote one.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { defineClineFamilyCodec } from '../cline/index.js';
import { ROO_EXTENSION_ID } from './paths.js';
import { rooDescriptor } from './descriptor.js';

export { CODEC_ID as ROO_CODEC_ID, ROO_EXTENSION_ID, getRooRoots } from './paths.js';

/** Roo Code 3.29.5 (RooCodeInc/Roo-Code#8954) writes `tokensIn` with the cache for every protocol. */
export const ROO_INCLUSIVE_SINCE = Date.UTC(2025, 10, 1);

/** The Roo Code codec. */
export const roo: Codec = defineClineFamilyCodec({
  descriptor: rooDescriptor,
  extensionId: ROO_EXTENSION_ID,
  flavor: { inclusiveSince: ROO_INCLUSIVE_SINCE, metadataModels: false, historyItem: true, apiEnvelope: true },
});
export default roo;
