/**
 * Claude test helpers. `codecWithSidecar(file)`: the codec whose pure core carries the file's subagent sidecar,
 * as `read()` does, so the harness's chunk-invariance check (pure core vs file reader) compares like with like.
 */
import type { Codec } from '../cursors/protocol/codec.js';
import { claude, createClaudeCore, getSubagentMetaPath, readSubagentMeta } from '../codecs/claude/index.js';

export async function codecWithSidecar(file: string): Promise<Codec> {
  const metaPath = getSubagentMetaPath(file);
  const meta = metaPath === undefined ? undefined : await readSubagentMeta(metaPath);
  return meta === undefined ? claude : { ...claude, lineCore: createClaudeCore({ meta }) };
}
