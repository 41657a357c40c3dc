/**
 * Where a Cline ≥ 4.1 (SDK) session's files are and what its manifest says. A root session is a folder
 * `<sessions>/<id>/` holding `<id>.messages.json` and the manifest `<id>.json`; a subagent's and a teammate's
 * messages are in the same folder as `<agentId>.messages.json` and `<agentId>__<teamTaskId>.messages.json`
 * (cline/cline `sdk/packages/core/src/services/session-artifacts.ts`). README.md has the sources.
 */
import { basename, dirname, join } from 'node:path';
import { distinctFolders } from '../../cursors/env-paths.js';
import { isoOf, rec, str } from '../../cursors/json-value.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { SDK_MESSAGES_SUFFIX } from './paths.js';

/** What the path of one messages file says. */
export interface SdkFileName {
  /** The root session's id: the folder's name. */
  rootId: string;
  /** The session id sessionfold gives the file: the root's, or `<root>/<agentId>` for a child's. */
  sessionId: string;
  /** A subagent's or teammate's file (not the root's own). */
  child: boolean;
  /** A child's kind, from its file name: a teammate's names its team task after `__`. */
  agentType: 'subagent' | 'teammate' | undefined;
  /** The root's manifest, `<id>.json` beside the file. */
  manifest: string;
}

export function sdkFileName(file: string): SdkFileName {
  const dir = dirname(file);
  const rootId = basename(dir);
  const stem = basename(file).slice(0, -SDK_MESSAGES_SUFFIX.length);
  const child = stem !== rootId;
  return {
    rootId,
    sessionId: child ? `${rootId}/${stem}` : rootId,
    child,
    agentType: child ? (stem.includes('__') ? 'teammate' : 'subagent') : undefined,
    manifest: join(dir, `${rootId}.json`),
  };
}

/**
 * The files whose change changes what a messages file reads as: the root's manifest for the root's file (its
 * title, model and fork change as the session goes), none for a child's. Cline rewrites the manifest every
 * turn, so a child depending on it would be read again from byte 0 every turn. A child takes only the
 * manifest's `cwd` and `started_at`, set as the root starts; were a rewrite to change them, a child would show
 * the old ones until its own file changes.
 */
export function sdkDependencies(file: string): string[] {
  const name = sdkFileName(file);
  return name.child ? [] : [name.manifest];
}

/** The manifest's fields a session event takes; every one may be missing. */
export interface SdkManifest {
  startedAt?: string;
  cwd?: string;
  model?: string;
  provider?: string;
  title?: string;
  prompt?: string;
  /** A fork's or a checkpoint restore's source session and the time it was made (`metadata.fork`). */
  forkedFrom?: string;
  forkedAtMs?: number;
}

/** A manifest is a few fields and the session's metadata; one larger than this is not a manifest. */
const MAX_MANIFEST_BYTES = 4 << 20;

/**
 * The manifest `path` names, or an empty one when it is missing, too large, no regular file (a FIFO would
 * block the read) or not a JSON object: side information, as the task folder's siblings are (history.ts).
 */
export function readSdkManifest(path: string): SdkManifest {
  let m: Record<string, unknown> | undefined;
  try {
    m = rec(JSON.parse(readRegularFileSync(path, MAX_MANIFEST_BYTES)));
  } catch {
    return {};
  }
  if (m === undefined) return {};
  const meta = rec(m.metadata);
  const fork = rec(meta?.fork);
  const forkedAt = isoOf(fork?.forkedAt);
  return {
    startedAt: isoOf(m.started_at),
    cwd: str(m.cwd)?.trim() ?? str(m.workspace_root)?.trim(),
    model: str(m.model)?.trim(),
    provider: str(m.provider)?.trim(),
    title: str(meta?.title),
    prompt: str(m.prompt),
    forkedFrom: str(fork?.forkedFromSessionId)?.trim(),
    forkedAtMs: forkedAt === undefined ? undefined : Date.parse(forkedAt),
  };
}

/**
 * The folder of a root whose subfolders are SDK sessions: `<root>/sessions`, else, for a root holding neither
 * `tasks/` nor `sessions/` (`CLINE_SESSION_DATA_DIR`, or a folder `SESSIONFOLD_CLINE_DIR` names), the root
 * itself. A storage folder with `tasks/` costs no more listing.
 */
function sessionsFolderOf(root: string): { dir: string; entries: ReturnType<typeof listDir> } {
  const sessions = join(root, 'sessions');
  const entries = listDir(sessions);
  if (entries.length > 0) return { dir: sessions, entries };
  const own = listDir(root);
  const storage = own.some((e) => e.kind === DIR && (e.name === 'tasks' || e.name === 'sessions'));
  return storage ? { dir: sessions, entries } : { dir: root, entries: own };
}

/**
 * Every SDK session's messages files under the roots: a folder `<id>/` counts when it holds `<id>.messages.json`;
 * its root file comes first, then its children's files (`subagent: true`), each with the stat its listing took.
 */
export function* discoverSdkSessions(agent: string, roots: readonly string[]): Generator<SessionFile> {
  const folders = roots.map((root) => ({ root, ...sessionsFolderOf(root) }));
  // Two roots may hold one sessions folder (`CLINE_SESSION_DATA_DIR=<data>/sessions` beside `<data>`, or a
  // link to it): its sessions are listed once, under the first.
  const distinct = new Set(distinctFolders(folders.map((f) => f.dir)));
  for (const { root, dir: sessions, entries } of folders) {
    if (!distinct.delete(sessions)) continue;
    for (const s of entries) {
      if (s.kind !== DIR) continue;
      const dir = join(sessions, s.name);
      const files = listDir(dir).filter((e) => e.kind === FILE && e.name.endsWith(SDK_MESSAGES_SUFFIX));
      const own = files.find((e) => e.name === `${s.name}${SDK_MESSAGES_SUFFIX}`);
      if (own === undefined) continue;
      for (const e of [own, ...files.filter((f) => f !== own)]) {
        const st = fileStat(dir, e);
        if (st === undefined) continue;
        const path = join(dir, e.name);
        const name = sdkFileName(path);
        yield { agent, path, root, sessionId: name.sessionId, ...(name.child && { subagent: true }), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      }
    }
  }
}
