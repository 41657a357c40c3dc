/**
 * `senpi`: sessions of Senpi, a fork of pi that keeps pi's session files unchanged (README.md). The codec is
 * pi's, under Senpi's roots and name.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { senpiDescriptor } from './descriptor.js';

export { CODEC_ID, getSenpiRoots } from './paths.js';

/** The Senpi codec. */
export const senpi: Codec = definePiCodec({ descriptor: senpiDescriptor, command: 'senpi' });
export default senpi;
