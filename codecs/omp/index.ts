/**
 * `omp`: sessions of oh-my-pi, a fork of pi that keeps pi's session format (its differences, all read by
 * the pi engine, are in README.md). The codec is pi's, under omp's roots and name.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { ompDescriptor } from './descriptor.js';

export { CODEC_ID, getOmpRoots } from './paths.js';

/** The omp codec. */
export const omp: Codec = definePiCodec({ descriptor: ompDescriptor, command: 'omp' });
export default omp;
