/**
 * `store`: sessionfold's own session store (src/store/, layout in cursors/protocol/session-store.ts) read
 * as an agent, by the sessionfold-jsonl engine. Every `<name>.jsonl` in the root and in `archived/` is a
 * session whose id is `<name>`; every `<name>.subagents/<child>.jsonl` a subagent whose id is
 * `<name>/<child>`. The family's other members (sidecars, logs, records) are not sessions: their stems are
 * not valid names. Usage keeps the origin's dedup keys, so a stored copy is never counted beside its source.
 */
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Codec, SessionFile } from '../../cursors/protocol/codec.js';
import { FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { STORE_ARCHIVE_DIR, STORE_SUBAGENTS, STORE_TRANSCRIPT, storeNameProblem } from '../../cursors/protocol/session-store.js';
import { createSessionfoldJsonlCore, type PathSession } from './parse.js';
import { sessionfoldStoreDescriptor, STORE_CODEC_ID } from './descriptor.js';

export { STORE_CODEC_ID };

/** The stem of a `.jsonl` file name when it names a session or subagent, else undefined. */
function stemOf(fileName: string): string | undefined {
  if (!fileName.endsWith(STORE_TRANSCRIPT)) return undefined;
  const stem = fileName.slice(0, -STORE_TRANSCRIPT.length);
  return storeNameProblem(stem) === undefined ? stem : undefined;
}

/** `<name>` for a transcript, `<parent>/<child>` for a subagent's (see the file header). */
export function storePathSession(file: string): PathSession {
  const stem = basename(file).replace(/\.jsonl$/, '');
  const dir = basename(dirname(file));
  if (dir.endsWith(STORE_SUBAGENTS)) {
    const parent = dir.slice(0, -STORE_SUBAGENTS.length);
    return { sessionId: `${parent}/${stem}`, parent };
  }
  return { sessionId: stem };
}

function* listFolder(root: string, dir: string): Generator<SessionFile> {
  const entries = listDir(dir);
  const nested: SessionFile[] = [];
  for (const e of entries) {
    if (e.kind === FILE) {
      const stem = stemOf(e.name);
      const st = stem === undefined ? undefined : fileStat(dir, e);
      if (stem !== undefined && st !== undefined) yield { agent: STORE_CODEC_ID, path: join(dir, e.name), root, sessionId: stem, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      continue;
    }
    if (!e.name.endsWith(STORE_SUBAGENTS)) continue;
    const parent = e.name.slice(0, -STORE_SUBAGENTS.length);
    if (storeNameProblem(parent) !== undefined) continue;
    const sub = join(dir, e.name);
    for (const c of listDir(sub)) {
      const child = c.kind === FILE ? stemOf(c.name) : undefined;
      const st = child === undefined ? undefined : fileStat(sub, c);
      if (child !== undefined && st !== undefined) nested.push({ agent: STORE_CODEC_ID, path: join(sub, c.name), root, sessionId: `${parent}/${child}`, subagent: true, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs });
    }
  }
  yield* nested;
}

function* discoverStore(roots: readonly string[]): Generator<SessionFile> {
  for (const r of roots) {
    yield* listFolder(r, r);
    yield* listFolder(r, join(r, STORE_ARCHIVE_DIR));
  }
}

const core = createSessionfoldJsonlCore({ id: STORE_CODEC_ID, pathSession: storePathSession });

/** sessionfold's own session store read as the agent `store`: every stored session and subagent, with the usage keys of its origin. */
export const sessionfoldStore: Codec = {
  ...sessionfoldStoreDescriptor,
  async *discover(roots: readonly string[]) {
    yield* discoverStore(roots);
  },
  discoverSync: discoverStore,
  async locate(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
    const parts = nativeId.split('/');
    if (parts.length > 2 || parts.some((p) => storeNameProblem(p) !== undefined)) return undefined;
    const [name, child] = parts as [string, string | undefined];
    const rel = child === undefined ? name + STORE_TRANSCRIPT : join(name + STORE_SUBAGENTS, child + STORE_TRANSCRIPT);
    for (const r of roots) {
      for (const path of [join(r, rel), join(r, STORE_ARCHIVE_DIR, rel)]) {
        const st = statSync(path, { throwIfNoEntry: false });
        if (st?.isFile()) return { agent: STORE_CODEC_ID, path, root: r, sessionId: nativeId, ...(child !== undefined && { subagent: true }), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      }
    }
    return undefined;
  },
  getParseDependencies: () => [],
  lineCore: core,
  read: createJsonlRead(sessionfoldStoreDescriptor, core),
};
