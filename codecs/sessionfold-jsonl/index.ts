/**
 * `sessionfold-jsonl`: sessionfold's own JSONL export (one header line, then one message per line). The
 * first codec, so the reader and cursors are exercised through a real codec.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Codec, SessionFile, DetectScore } from '../../cursors/protocol/codec.js';
import { firstJsonLine } from '../../cursors/detect.js';
import { fromListing } from '../../cursors/discovery.js';
import { isUnnamable, noteLeftOut } from '../../cursors/list-dir.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { CODEC_ID, sessionfoldJsonlCore } from './parse.js';
import { sessionfoldJsonlDescriptor } from './descriptor.js';

export { sessionfoldJsonlCore, createSessionfoldJsonlCore } from './parse.js';
export { sessionfoldStore } from './store.js';
export * from '../../cursors/protocol/sessionfold-jsonl.js';

/**
 * How far discovery walks below an export root: sessionfold writes `<id>.jsonl` at its top (users may group them
 * in folders), so a root deeper or larger than this is not an export folder (`SESSIONFOLD_EXPORT_DIR=/`, a home
 * folder) and walking all of it would read the whole file system. The walk stops there and says so.
 */
export const EXPORT_WALK_LIMITS = { depth: 4, folders: 2000 } as const;

async function* walkRoot(root: string): AsyncGenerator<SessionFile> {
  let s;
  try {
    s = await stat(root);
  } catch {
    return; // a missing root holds no exports yet
  }
  if (!s.isDirectory()) {
    noteLeftOut(root, 'not a folder: SESSIONFOLD_EXPORT_DIR names folders of exports');
    return;
  }
  const budget = { folders: EXPORT_WALK_LIMITS.folders, deep: false };
  yield* walk(root, root, 0, budget);
  if (budget.folders < 0 || budget.deep) {
    const what = budget.folders < 0 ? `over ${EXPORT_WALK_LIMITS.folders} folders` : `folders more than ${EXPORT_WALK_LIMITS.depth} deep`;
    noteLeftOut(root, `${what}: not an export folder, walked no further (sessions beyond are left out)`);
  }
}

async function* walk(root: string, dir: string, depth: number, budget: { folders: number; deep: boolean }): AsyncGenerator<SessionFile> {
  if (--budget.folders < 0) return;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (isUnnamable(dir, e.name)) continue; // named in a warning
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (depth >= EXPORT_WALK_LIMITS.depth) budget.deep = true;
      else yield* walk(root, p, depth + 1, budget);
      if (budget.folders < 0) return;
    } else if (e.isFile() && e.name.endsWith('.jsonl')) yield { agent: CODEC_ID, path: p, root, sessionId: e.name.slice(0, -'.jsonl'.length) };
  }
}

const listing = fromListing(async function* (roots: readonly string[]) {
  for (const r of roots) yield* walkRoot(r);
});

/** `<root>/<id>.jsonl`, where sessionfold writes an export (one stat per root), else the walk of the roots. */
async function locateExport(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  if (nativeId === '' || nativeId.includes('/') || nativeId.includes('\\') || nativeId === '.' || nativeId === '..') return undefined;
  for (const r of roots) {
    const p = join(r, `${nativeId}.jsonl`);
    if (await stat(p).then((s) => s.isFile(), () => false)) return { agent: CODEC_ID, path: p, root: r, sessionId: nativeId };
  }
  return listing.locate?.(roots, nativeId);
}

/** A sessionfold export opens with its header line. */
function detect(_file: string, head: Buffer): DetectScore {
  return firstJsonLine(head)?.type === 'sessionfold.session' ? 2 : 0;
}

/** sessionfold's own JSONL export, read back into the same messages, tools and usage. */
export const sessionfoldJsonl: Codec = {
  ...sessionfoldJsonlDescriptor,
  detect,
  ...listing,
  locate: locateExport,
  getParseDependencies: () => [],
  lineCore: sessionfoldJsonlCore,
  read: createJsonlRead(sessionfoldJsonlDescriptor, sessionfoldJsonlCore),
};
export default sessionfoldJsonl;
