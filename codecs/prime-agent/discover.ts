/**
 * Prime Agent's sessions under its roots (paths.ts has the layout): pi's listing of a sessions folder, plus the
 * RLM children and Act lanes of each root's `session-artifacts` tree. A file is pi's `listedFile`, and one
 * session id is found as pi finds one (`locateListed`).
 */
import { join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, listDir } from '../../cursors/list-dir.js';
import { listedFile, listSessionsFolder, locateListed } from '../pi/index.js';
import { artifactsRoot, CODEC_ID } from './paths.js';

/** A session file Prime names itself: its session id (a UUID v7) and `.jsonl`. */
const OWN_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const CHILD_DIR = /^sub-[0-9a-f]{8}$/;
const ACT_DIR = /^act(?:-depth-[1-9][0-9]?)?$/;
/** Nested children deeper than this are not looked for (Prime bounds them by its RLM_MAX_DEPTH). */
const MAX_NESTING = 16;

const stem = (name: string) => name.slice(0, -'.jsonl'.length);

/** The sessions of a sessions folder: pi's listing (every `*.jsonl` in it, as Prime lists them, and one folder down), with RLM children found in it. */
function sessionsFolder(root: string): Generator<SessionFile> {
  return listSessionsFolder(CODEC_ID, root, stem, (dir, name) => (CHILD_DIR.test(name) ? children(dir, root, 1) : undefined));
}

/** A child's folder: its session files (UUID-named: the folder also holds Prime's ledgers), then its own children. */
function* children(dir: string, root: string, depth: number): Generator<SessionFile> {
  const entries = listDir(dir);
  for (const e of entries) {
    if (e.kind !== FILE || !OWN_NAME.test(e.name)) continue;
    const f = listedFile(CODEC_ID, dir, e, root, stem(e.name), true);
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
        const f = listedFile(CODEC_ID, sub, c, root, undefined, true);
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
  return locateListed(discoverPrimeAgent(roots), nativeId);
}
