/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { getExportRoots, getStoreRoots } from './paths.js';

export const CODEC_ID = 'sessionfold-jsonl';

/** Goes up whenever this codec would parse an unchanged file differently. 5: usage keeps `copied`. */
export const PARSER_VERSION = 5;

export const sessionfoldJsonlDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['sessionfold', 'export'],
  displayName: 'sessionfold JSONL export',
  parserVersion: PARSER_VERSION,
  // An export says what its source agent did not record (its header's usageUnknown), so this may too.
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: false, usageMayBeUnknown: true },
  defaultRoots: getExportRoots,
  rootVariables: ['SESSIONFOLD_EXPORT_DIR'],
};

export const STORE_CODEC_ID = 'store';

/** sessionfold's own session store (store.ts). */
export const sessionfoldStoreDescriptor: CodecDescriptor = {
  id: STORE_CODEC_ID,
  aliases: ['sessionfold-store'],
  displayName: 'sessionfold session store',
  parserVersion: 1,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: false },
  defaultRoots: getStoreRoots,
  rootVariables: ['SESSIONFOLD_STORE_DIR'],
};
