/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';
import { CODEC_ID, getSenpiRoots } from './paths.js';

export const senpiDescriptor: CodecDescriptor = piFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['senpi-agent'],
  displayName: 'Senpi',
  defaultRoots: getSenpiRoots,
  rootVariables: ['SENPI_CODING_AGENT_DIR', 'SENPI_CODING_AGENT_SESSION_DIR'],
});
