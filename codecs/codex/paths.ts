/**
 * Where Codex keeps rollouts: `$CODEX_HOME` (comma-separated list accepted, like ccusage) else `~/.codex`;
 * live threads under `sessions/YYYY/MM/DD/rollout-<local time>-<thread uuid>.jsonl`, archived ones under
 * `archived_sessions/` (flat in current builds; walked recursively to be safe). The day directory and the
 * time in the name are LOCAL time (`OffsetDateTime::now_local()` in `codex-rs/core/src/rollout/recorder.rs`),
 * so they are never compared with the UTC timestamps inside the file. Codex compresses archived rollouts to
 * `rollout-….jsonl.zst` (codex-rs/rollout/src/compression.rs): such a file is a rollout too, named by its plain
 * name, and skipped where its plain sibling exists (Codex's `should_skip_compressed_sibling`).
 */
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { statSync } from 'node:fs';
import { DIR, OTHER, TREE_STRIDE, listTreeColumns, statEntry, treeStat, type FileStat } from '../../cursors/list-dir.js';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { envPathList } from '../../cursors/env-paths.js';
import { ZSTD_SUFFIX } from '../../cursors/zstd-name.js';

export const SESSIONS_SUBDIR = 'sessions';
export const ARCHIVED_SESSIONS_SUBDIR = 'archived_sessions';

const ROLLOUT_NAME = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;

/** Every Codex home to scan, honouring `$CODEX_HOME` (comma-separated). */
export function getCodexRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.CODEX_HOME);
  if (explicit.length > 0) return explicit;
  return [join(env.HOME || homedir(), '.codex')];
}

/** False for a folder that cannot be stat'ed either (a root without search permission): the walk reports it. */
function isDirectory(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * The rollout folders of a root. A Codex home (`~/.codex`: it has `sessions/` or `archived_sessions/`) gives
 * both; any other folder (`~/.codex/sessions` itself, an archive, a copy of rollouts) is walked as it is, so
 * a root one level too deep still finds its rollouts instead of silently finding none.
 */
export function rolloutDirs(root: string): { live: string; archived: string | undefined } {
  const live = join(root, SESSIONS_SUBDIR);
  const archived = join(root, ARCHIVED_SESSIONS_SUBDIR);
  if (isDirectory(live) || isDirectory(archived)) return { live, archived };
  return { live: root, archived: undefined };
}

/** A compressed rollout's ending (`.jsonl` and ZSTD_SUFFIX; a literal: nothing imported runs at this module's load). */
const COMPRESSED_ROLLOUT = '.jsonl.zst';

/** The plain name of a rollout's file name: `….jsonl.zst` → `….jsonl`; any other name as it is. */
export function plainRolloutName(name: string): string {
  return name.endsWith(COMPRESSED_ROLLOUT) ? name.slice(0, -ZSTD_SUFFIX.length) : name;
}

/**
 * `rollout-2025-05-07T17-24-21-<uuid>.jsonl` (or its compressed `….jsonl.zst`) → its local timestamp text and
 * thread id; undefined otherwise.
 */
export function parseRolloutFileName(name: string): { localTime: string; id: string } | undefined {
  const m = ROLLOUT_NAME.exec(plainRolloutName(name));
  return m ? { localTime: m[1] as string, id: (m[2] as string).toLowerCase() } : undefined;
}

/** True for a file name Codex gives a rollout: `rollout-*.jsonl`, or `rollout-*.jsonl.zst` compressed. */
export function isRolloutFileName(name: string): boolean {
  return name.startsWith('rollout-') && (name.endsWith('.jsonl') || name.endsWith(COMPRESSED_ROLLOUT));
}

/**
 * Rollout files under `dir`, recursively (up to MAX_ROLLOUT_DEPTH levels), in name order (a missing
 * directory yields nothing; a file gone before its stat is left out). A compressed rollout whose plain
 * sibling is listed is left out: Codex reads the plain one (it writes it back before it appends, and removes
 * the plain one only once the compressed one is whole). A plain generator: an async one would cost a
 * microtask per level per file (~10 ms over 780 rollouts in one profile).
 */
export function* walkRollouts(dir: string): Generator<Rollout> {
  // One listing of the tree (cursors/list-dir.ts: a native call where the kernel is built, with the stats),
  // read by columns; synchronous: a tree of thousands of day folders lists several times faster than through
  // libuv's pool.
  const t = listTreeColumns(dir, [], MAX_ROLLOUT_DEPTH);
  const nums = t.nums;
  const path: string[] = [dir];
  // A folder's entries come sorted, so `X.jsonl` comes before `X.jsonl.zst`: the plain paths seen say which to skip.
  const plain = new Set<string>();
  for (let i = 0; i < t.n; i++) {
    const depth = nums[TREE_STRIDE * i] as number;
    const kind = nums[TREE_STRIDE * i + 1] as number;
    const name = t.names[i] as string;
    const parent = path[depth] as string;
    // join's answer: the root as given may end in a separator or hold `.` segments; the folders below are joined.
    const p = depth === 0 ? join(dir, name) : parent + sep + name;
    if (kind === DIR) path[depth + 1] = p;
    else if (kind !== OTHER && isRolloutFileName(name) && statEntry(t, i, parent)) {
      if (!name.endsWith(ZSTD_SUFFIX)) plain.add(p);
      else if (plain.has(p.slice(0, -ZSTD_SUFFIX.length))) continue;
      yield { path: p, name, stat: treeStat(t, i) };
    }
  }
}

/** The codec's id; descriptor.ts, which imports this module, takes it from here (as Claude's paths.ts holds its id). */
export const CODEC_ID = 'codex';

/** A rollout as discovery hands it over. */
export function rolloutFile(path: string, root: string, name: string, stat?: FileStat): SessionFile {
  // Every field set, in the Claude codec's order: one object shape for every file discovery hands over.
  return { agent: CODEC_ID, path, root, sessionId: parseRolloutFileName(name)?.id, subagent: undefined, size: stat?.size, mtimeMs: stat?.mtimeMs, ino: stat?.ino, ctimeMs: stat?.ctimeMs };
}

/**
 * Every rollout under each root: `sessions/` first, then `archived_sessions/`, skipping an archived file whose
 * plain name (compressed or not) is already live under `sessions/` of the same root (the live copy wins). A
 * root that is not a Codex home is walked as a folder of rollouts (`rolloutDirs`). The codec's `discoverSync`.
 */
export function* discoverCodexFilesSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    const dirs = rolloutDirs(root);
    const live = new Set<string>();
    for (const r of walkRollouts(dirs.live)) {
      live.add(plainRolloutName(r.name));
      yield rolloutFile(r.path, root, r.name, r.stat);
    }
    if (dirs.archived === undefined) continue;
    for (const r of walkRollouts(dirs.archived)) {
      if (!live.has(plainRolloutName(r.name))) yield rolloutFile(r.path, root, r.name, r.stat);
    }
  }
}

/** How deep `walkRollouts` looks: `sessions/YYYY/MM/DD/` is 4 levels; a folder of rollouts walked as a root may nest more. */
export const MAX_ROLLOUT_DEPTH = 64;

/** A rollout `walkRollouts` found: its path, file name and stat. */
export interface Rollout {
  path: string;
  name: string;
  stat: FileStat;
}

/**
 * Day directories (`YYYY/MM/DD` under a root's live rollout folder) a UUIDv7 thread id can live in: the id's
 * creation time ±1 day, since the directory is named in local time. Empty for ids that are not UUIDv7 (older
 * random v4 ids).
 */
export function candidateDayDirs(root: string, id: string): string[] {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/i.test(id)) return [];
  const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  const { live } = rolloutDirs(root);
  const out: string[] = [];
  for (const d of [-1, 0, 1]) {
    const t = new Date(ms + d * 86_400_000);
    const y = String(t.getUTCFullYear());
    const m = String(t.getUTCMonth() + 1).padStart(2, '0');
    const day = String(t.getUTCDate()).padStart(2, '0');
    out.push(join(live, y, m, day));
  }
  return out;
}
