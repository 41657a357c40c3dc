/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getOpenHandsRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const openHandsDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['openhands-cli'],
  displayName: 'OpenHands CLI',
  parserVersion: PARSER_VERSION,
  // events are appended to events/ between two saves of base_state.json, and to an app conversation's folder
  // after its first event file: they may be newer than the session file's mtime
  capabilities: { incremental: true, persistence: 'json', eventsPrecedeMtime: false, usageMayBeUnknown: true },
  defaultRoots: getOpenHandsRoots,
  rootVariables: ['SESSIONFOLD_OPENHANDS_DIR', 'OPENHANDS_CONVERSATIONS_DIR', 'OPENHANDS_PERSISTENCE_DIR', 'OH_PERSISTENCE_DIR', 'FILE_STORE_PATH'],
};
