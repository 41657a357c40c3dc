/**
 * `sessionfold-jsonl`: sessionfold's own JSONL export (one header line, then one message per line). The
 * first codec, so the reader and cursors are exercised through a real codec.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Codec, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { CODEC_ID, sessionfoldJsonlCore } from './parse.js';
import { getExportRoots } from './paths.js';

export { sessionfoldJsonlCore, createSessionfoldJsonlCore } from './parse.js';
export { sessionfoldStore } from './store.js';
export * from '../../cursors/protocol/sessionfold-jsonl.js';

async function* walk(root: string, dir: string): AsyncGenerator<SessionFile> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(root, p);
    else if (e.isFile() && e.name.endsWith('.jsonl')) yield { agent: CODEC_ID, path: p, root, sessionId: e.name.slice(0, -'.jsonl'.length) };
  }
}

const PARSER_VERSION = 3;

/** A sessionfold export opens with its header line. */
function detect(_file: string, head: Buffer): DetectScore {
  return firstJsonLine(head)?.type === 'sessionfold.session' ? 2 : 0;
}

/** sessionfold's own JSONL export, read back into the same messages, tools and usage. */
export const sessionfoldJsonl: Codec = {
  id: CODEC_ID,
  aliases: ['sessionfold', 'export'],
  displayName: 'sessionfold JSONL export',
  detect,
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: false },
  defaultRoots: getExportRoots,
  rootVariables: ['SESSIONFOLD_EXPORT_DIR'],
  async *discover(roots: readonly string[]) {
    for (const r of roots) yield* walk(r, r);
  },
  async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
    if (nativeId === '' || nativeId.includes('/') || nativeId.includes('\\') || nativeId === '.' || nativeId === '..') return undefined;
    for (const r of roots) {
      const p = join(r, `${nativeId}.jsonl`);
      if (await stat(p).then((s) => s.isFile(), () => false)) return { agent: CODEC_ID, path: p, root: r, sessionId: nativeId };
    }
    for await (const f of sessionfoldJsonl.discover(roots)) if (f.sessionId === nativeId) return f;
    return undefined;
  },
  getParseDependencies: () => [],
  lineCore: sessionfoldJsonlCore,
  read: createJsonlRead({ id: CODEC_ID, parserVersion: PARSER_VERSION }, sessionfoldJsonlCore),
};
export default sessionfoldJsonl;
