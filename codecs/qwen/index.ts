/**
 * `qwen`: Qwen Code (QwenLM/qwen-code, a Gemini CLI fork) chats, `~/.qwen/projects/<project>/chats/<id>.jsonl`.
 * README.md has the format, the token semantics and the sources.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { qwenCore } from './parse.js';
import { discoverQwenSync } from './paths.js';
import { qwenDescriptor } from './descriptor.js';

export { qwenCore, qwenUsage, type QwenState } from './parse.js';
export { CODEC_ID as QWEN_CODEC_ID, discoverQwenSync, getQwenRoots } from './paths.js';


/** The Qwen Code codec. */
export const qwen: Codec = {
  ...qwenDescriptor,
  async *discover(roots: readonly string[]) {
    yield* discoverQwenSync(roots);
  },
  discoverSync: discoverQwenSync,
  async locate(roots: readonly string[], nativeId: string) {
    for (const f of discoverQwenSync(roots)) if (f.sessionId === nativeId) return f;
    return undefined;
  },
  getParseDependencies: () => [],
  lineCore: qwenCore,
  read: createJsonlRead(qwenDescriptor, qwenCore),
  resumeCommand: (nativeId: string) => ['qwen', '--resume', nativeId],
};
export default qwen;
