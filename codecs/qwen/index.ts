/**
 * `qwen`: Qwen Code (QwenLM/qwen-code, a Gemini CLI fork) chats, `~/.qwen/projects/<project>/chats/<id>.jsonl`.
 * README.md has the format, the token semantics and the sources.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { qwenCore } from './parse.js';
import { CODEC_ID, discoverQwenSync, getQwenRoots } from './paths.js';

export { qwenCore, qwenUsage, type QwenState } from './parse.js';
export { CODEC_ID as QWEN_CODEC_ID, discoverQwenSync, getQwenRoots } from './paths.js';

const PARSER_VERSION = 1;

/** The Qwen Code codec. */
export const qwen: Codec = {
  id: CODEC_ID,
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true },
  defaultRoots: getQwenRoots,
  rootVariables: ['QWEN_RUNTIME_DIR', 'QWEN_HOME'],
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
  read: createJsonlRead({ id: CODEC_ID, parserVersion: PARSER_VERSION }, qwenCore),
  resumeCommand: (nativeId: string) => ['qwen', '--resume', nativeId],
};
export default qwen;
