/**
 * Where Prime Agent (PrimeIntellect-ai/prime-agent, a fork of pi) keeps sessions, from its
 * `packages/coding-agent/src/config.ts` and `core/session-manager.ts` (README.md cites the commits):
 *
 *   <sessions>/<session id>.jsonl                                     root sessions and their forks (flat)
 *   <sessions>/../session-artifacts/<root id>/sub-<8 hex>/<id>.jsonl  RLM children, `sub-…/sub-…/` deeper down
 *   <sessions>/../session-artifacts/<root id>/act[-depth-<n>]/session.jsonl   Act lanes
 *
 * `<sessions>` is `$PRIME_AGENT_SESSION_DIR` (else the older `$PRIME_AGENT_CODING_AGENT_SESSION_DIR`), else the
 * `sessionDir` of the agent dir's `settings.json`, else `<agent dir>/sessions` with `<agent dir>` =
 * `$PRIME_AGENT_CODING_AGENT_DIR` or `~/.prime/agent`. The agent dir's own `sessions/` is read beside a moved
 * folder (what was written before the move). `SESSIONFOLD_PRIME_AGENT_DIR` (comma-separated sessions folders)
 * replaces them all; each folder's sibling `session-artifacts` comes with it.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envPathList, expandHome } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { agentSessionRoots, settingsSessionDir } from '../pi/descriptor.js';

export const CODEC_ID = 'prime-agent';

/** Prime's sessions folders, the one new sessions go to first (see the file header). */
export function getPrimeAgentRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const own = envPathList(env.SESSIONFOLD_PRIME_AGENT_DIR, (p) => expandHome(p, home)).map((p) => expandHome(p, home));
  if (own.length > 0) return own;
  const roots = agentSessionRoots(env, 'PRIME_AGENT_CODING_AGENT_DIR', '.prime', 'agent');
  const fromEnv = (env.PRIME_AGENT_SESSION_DIR || env.PRIME_AGENT_CODING_AGENT_SESSION_DIR)?.trim();
  const moved = fromEnv ? expandHome(fromEnv, home) : settingsSessionDir(dirname(roots[0] as string), home);
  return [...new Set([...(moved === undefined ? [] : [moved]), ...roots])];
}

/** The artifacts tree beside a sessions folder (Prime's `getSessionArtifactsRoot`). */
export function artifactsRoot(sessionsRoot: string): string {
  return join(dirname(sessionsRoot), 'session-artifacts');
}

/** A session file Prime names itself: its session id (a UUID v7) and `.jsonl`. */
const OWN_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const CHILD_DIR = /^sub-[0-9a-f]{8}$/;
const ACT_DIR = /^act(?:-depth-[1-9][0-9]?)?$/;
/** Nested children deeper than this are not looked for (Prime bounds them by its RLM_MAX_DEPTH). */
const MAX_NESTING = 16;

function file(dir: string, name: string, root: string, stat: ReturnType<typeof fileStat>, subagent: boolean, id: string | undefined): SessionFile | undefined {
  if (stat === undefined) return undefined;
  return { agent: CODEC_ID, path: join(dir, name), root, sessionId: id, subagent: subagent || undefined, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, ctimeMs: stat.ctimeMs };
}

const stem = (name: string) => name.slice(0, -'.jsonl'.length);

/** The sessions of a sessions folder: every `*.jsonl` in it (as Prime lists them), and one folder down (pi's per-cwd folders). */
function* sessionsFolder(root: string): Generator<SessionFile> {
  for (const e of listDir(root)) {
    if (e.kind === FILE && e.name.endsWith('.jsonl')) {
      const f = file(root, e.name, root, fileStat(root, e), false, stem(e.name));
      if (f !== undefined) yield f;
    } else if (e.kind === DIR) {
      const dir = join(root, e.name);
      if (CHILD_DIR.test(e.name)) {
        yield* children(dir, root, 1);
        continue;
      }
      for (const c of listDir(dir)) {
        if (c.kind !== FILE || !c.name.endsWith('.jsonl')) continue;
        const f = file(dir, c.name, root, fileStat(dir, c), false, stem(c.name));
        if (f !== undefined) yield f;
      }
    }
  }
}

/** A child's folder: its session files (UUID-named: the folder also holds Prime's ledgers), then its own children. */
function* children(dir: string, root: string, depth: number): Generator<SessionFile> {
  const entries = listDir(dir);
  for (const e of entries) {
    if (e.kind !== FILE || !OWN_NAME.test(e.name)) continue;
    const f = file(dir, e.name, root, fileStat(dir, e), true, stem(e.name));
    if (f !== undefined) yield f;
  }
  if (depth >= MAX_NESTING) return;
  for (const e of entries) if (e.kind === DIR && CHILD_DIR.test(e.name)) yield* children(join(dir, e.name), root, depth + 1);
}

/** One root session's artifact folder: its RLM children and its Act lanes. */
function* artifacts(dir: string, root: string): Generator<SessionFile> {
  for (const e of listDir(dir)) {
    if (e.kind !== DIR) continue;
    const sub = join(dir, e.name);
    if (CHILD_DIR.test(e.name)) yield* children(sub, root, 1);
    else if (ACT_DIR.test(e.name)) {
      for (const c of listDir(sub)) {
        if (c.kind !== FILE || c.name !== 'session.jsonl') continue;
        const f = file(sub, c.name, root, fileStat(sub, c), true, undefined);
        if (f !== undefined) yield f;
      }
    }
  }
}

/** Every Prime session under the roots, each root's artifacts tree after its sessions. */
export function* discoverPrimeAgent(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    yield* sessionsFolder(root);
    const tree = artifactsRoot(root);
    if (seen.has(tree)) continue;
    seen.add(tree);
    for (const e of listDir(tree)) if (e.kind === DIR) yield* artifacts(join(tree, e.name), root);
  }
}

/** The file of one session id (names are `<id>.jsonl`; an Act lane is found by its header only, when read). */
export function locatePrimeAgent(roots: readonly string[], nativeId: string): SessionFile | undefined {
  if (nativeId === '' || /[\\/]/.test(nativeId) || nativeId === '.' || nativeId === '..') return undefined;
  for (const f of discoverPrimeAgent(roots)) if (f.sessionId === nativeId || basename(f.path) === `${nativeId}.jsonl`) return f;
  return undefined;
}
