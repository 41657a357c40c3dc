/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { opencodeFamilyDescriptor } from '../opencode/descriptor.js';
import { CODEC_ID, getMimoRoots } from './paths.js';

/** MiMo Code: OpenCode's engine under MiMo's names. */
export const mimoDescriptor: CodecDescriptor = opencodeFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['mimocode', 'mimo-code', 'micode'],
  displayName: 'MiMo Code',
  defaultRoots: getMimoRoots,
  rootVariables: ['SESSIONFOLD_MIMO_DIR'],
});
