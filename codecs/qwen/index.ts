/**
 * `qwen`: Qwen Code (QwenLM/qwen-code, a Gemini CLI fork) chats, `~/.qwen/projects/<project>/chats/<id>.jsonl`.
 * README.md has the format, the token semantics and the sources.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { qwenCore } from './parse.js';
import { discoverQwenSync } from './paths.js';
import { qwenDescriptor } from './descriptor.js';

export { qwenCore, qwenUsage, type QwenState } from './parse.js';
export { CODEC_ID as QWEN_CODEC_ID, discoverQwenSync, getQwenRoots } from './paths.js';


/** The Qwen Code codec. */
export const qwen: Codec = {
  ...qwenDescriptor,
  ...fromSyncListing(discoverQwenSync),
  getParseDependencies: () => [],
  lineCore: qwenCore,
  read: createJsonlRead(qwenDescriptor, qwenCore),
  resumeCommand: (nativeId: string) => ['qwen', '--resume', nativeId],
};
export default qwen;
