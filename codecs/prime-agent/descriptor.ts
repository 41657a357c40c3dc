/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';
import { CODEC_ID, getPrimeAgentRoots } from './paths.js';

export const primeAgentDescriptor: CodecDescriptor = piFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['prime', 'prime-intellect'],
  displayName: 'Prime Agent',
  defaultRoots: getPrimeAgentRoots,
  rootVariables: ['SESSIONFOLD_PRIME_AGENT_DIR', 'PRIME_AGENT_CODING_AGENT_DIR', 'PRIME_AGENT_SESSION_DIR', 'PRIME_AGENT_CODING_AGENT_SESSION_DIR'],
});
