/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';
import { CODEC_ID, getGjcRoots } from './paths.js';

export const gjcDescriptor: CodecDescriptor = piFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['gajae-code', 'gajae'],
  displayName: 'gajae-code (gjc)',
  defaultRoots: (env) => getGjcRoots(env),
  rootVariables: ['GJC_CODING_AGENT_DIR', 'GJC_CONFIG_DIR'],
});
