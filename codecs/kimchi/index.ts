/**
 * `kimchi`: sessions of Kimchi, which runs pi's coding agent (`@earendil-works/pi-coding-agent`) with its own
 * extensions and writes pi's session files unchanged (README.md). The codec is pi's, under Kimchi's roots.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { definePiCodec } from '../pi/index.js';
import { kimchiDescriptor } from './descriptor.js';

export { CODEC_ID, getKimchiRoots } from './paths.js';

/** The Kimchi codec. */
export const kimchi: Codec = definePiCodec({ descriptor: kimchiDescriptor, command: 'kimchi' });
export default kimchi;
