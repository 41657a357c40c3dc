/**
 * Where pi keeps sessions, and the layout omp shares:
 *   <agent dir>/sessions/--<cwd, '/' '\' ':' as '-'>--/<ISO time, ':' '.' as '-'>_<session id>.jsonl
 * `<agent dir>` is `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (`packages/coding-agent/src/config.ts`
 * `getAgentDir`). A moved folder (`$PI_CODING_AGENT_SESSION_DIR`, else `sessionDir` in the agent dir's
 * `settings.json`: descriptor.ts `movableSessionRoots`) holds the files directly. The encoded cwd loses its separators, so the cwd comes from the header, never the folder.
 */
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir, type DirEntry } from '../../cursors/list-dir.js';
import { piFileSessionId } from './parse.js';

export { agentSessionRoots, getPiRoots } from './descriptor.js';

/** A session file of a listing, with the stat the listing took (undefined when the file is gone). */
export function listedFile(agent: string, dir: string, e: DirEntry, root: string, sessionId: string | undefined, subagent?: boolean): SessionFile | undefined {
  let s;
  try {
    s = fileStat(dir, e);
  } catch {
    return undefined;
  }
  if (s === undefined) return undefined;
  return { agent, path: join(dir, e.name), root, sessionId, subagent: subagent || undefined, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
}

/** Every `*.jsonl` directly in the roots and one folder down (the per-cwd folders), sorted by name. */
export function* discoverPiLayout(agent: string, roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) yield* listSessionsFolder(agent, root, piFileSessionId);
}

/**
 * One sessions folder in pi's layout: every `*.jsonl` in it and one folder down, each named to its session id
 * by `idOf`. A fork's own kind of subfolder is `folder`'s to list (it answers undefined for any other).
 */
export function* listSessionsFolder(
  agent: string,
  root: string,
  idOf: (name: string) => string,
  folder?: (dir: string, name: string) => Iterable<SessionFile> | undefined,
): Generator<SessionFile> {
  for (const e of listDir(root)) {
    if (e.kind === FILE && e.name.endsWith('.jsonl')) {
      const f = listedFile(agent, root, e, root, idOf(e.name));
      if (f !== undefined) yield f;
    } else if (e.kind === DIR) {
      const dir = join(root, e.name);
      const own = folder?.(dir, e.name);
      if (own !== undefined) {
        yield* own;
        continue;
      }
      for (const c of listDir(dir)) {
        if (c.kind !== FILE || !c.name.endsWith('.jsonl')) continue;
        const f = listedFile(agent, dir, c, root, idOf(c.name));
        if (f !== undefined) yield f;
      }
    }
  }
}

/** The file of one session id: names end in `_<id>.jsonl`, so one listing per cwd folder, no file opened. */
export function locatePiLayout(agent: string, roots: readonly string[], nativeId: string): SessionFile | undefined {
  return locateListed(discoverPiLayout(agent, roots), nativeId);
}

/** The file of a discovery whose session id (or name, `<id>.jsonl`) is `nativeId`; none for an id that is a path. */
export function locateListed(files: Iterable<SessionFile>, nativeId: string): SessionFile | undefined {
  if (nativeId === '' || /[\\/]/.test(nativeId) || nativeId === '.' || nativeId === '..') return undefined;
  for (const f of files) if (f.sessionId === nativeId || basename(f.path) === `${nativeId}.jsonl`) return f;
  return undefined;
}
