/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { clineFamilyDescriptor } from '../cline/descriptor.js';
import { CODEC_ID, getRooRoots } from './paths.js';

export const rooDescriptor: CodecDescriptor = clineFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['roo-code', 'roocode', 'roo-cline'],
  displayName: 'Roo Code',
  defaultRoots: getRooRoots,
  rootVariables: ['SESSIONFOLD_ROO_DIR'],
});
