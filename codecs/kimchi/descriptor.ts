/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';
import { CODEC_ID, getKimchiRoots } from './paths.js';

export const kimchiDescriptor: CodecDescriptor = piFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['kimchi-code', 'kimchi-dev'],
  displayName: 'Kimchi',
  defaultRoots: getKimchiRoots,
  rootVariables: ['KIMCHI_CODING_AGENT_DIR', 'KIMCHI_CODING_AGENT_SESSION_DIR'],
});
