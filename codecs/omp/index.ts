/**
 * `omp`: sessions of oh-my-pi, a fork of pi that keeps pi's session format (its differences, all read by
 * the pi engine, are in README.md). The codec is pi's, under omp's roots and name.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { CODEC_ID, getOmpRoots } from './paths.js';

export { CODEC_ID, getOmpRoots } from './paths.js';

/** The omp codec. */
export const omp: Codec = definePiCodec({ id: CODEC_ID, aliases: ['oh-my-pi', 'ohmypi'], displayName: 'omp (oh-my-pi)', defaultRoots: getOmpRoots, rootVariables: ['OMP_CODING_AGENT_DIR'], command: 'omp' });
export default omp;
