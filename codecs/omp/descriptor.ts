/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';
import { CODEC_ID, getOmpRoots } from './paths.js';

export const ompDescriptor: CodecDescriptor = piFamilyDescriptor({ id: CODEC_ID, aliases: ['oh-my-pi', 'ohmypi'], displayName: 'omp (oh-my-pi)', defaultRoots: getOmpRoots, rootVariables: ['XDG_DATA_HOME'] });
