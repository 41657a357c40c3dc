/**
 * `gjc`: sessions of gajae-code, a fork of oh-my-pi that keeps omp's session files (README.md); pi's engine
 * reads omp's differences, so the codec is pi's, under gjc's roots and name.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { gjcDescriptor } from './descriptor.js';

export { CODEC_ID, getGjcRoots } from './paths.js';

/** The gajae-code codec. */
export const gjc: Codec = definePiCodec({ descriptor: gjcDescriptor, command: 'gjc' });
export default gjc;
