/**
 * Where Claude Code keeps transcripts, and what a transcript's path says about it.
 *
 * Layout under a root (`<config>/projects`):
 *   <encoded-cwd>/<session-uuid>.jsonl                          a session
 *   <encoded-cwd>/<session-uuid>/subagents/agent-<id>.jsonl     a subagent (Task) transcript, 2.1+
 *   <encoded-cwd>/<session-uuid>/subagents/agent-<id>.meta.json its sidecar ({agentType, …})
 *   <encoded-cwd>/agent-<id>.jsonl                              a subagent transcript, before 2.1
 * The encoded cwd replaces every non-alphanumeric character by `-`, so it cannot be decoded back: the cwd
 * comes from the lines, never from the directory name.
 *
 * The file name is the session id (`claude --resume <id>` resolves on it), so the path wins over the
 * `sessionId` field of the lines, which a resumed or forked copy may carry over from its origin.
 */
import { promises, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, OTHER, TREE_STRIDE, fileStatOf, followEntry, listDir, listTreeColumns, statEntry, treeStat, type FileStat } from '../../cursors/list-dir.js';
import { envPathList, expandHome } from '../../cursors/env-paths.js';

export const CODEC_ID = 'claude';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `agent-<id>` with a single alphanumeric id (so `agent-sessions-v2.1-…` fixture names do not match). */
const AGENT_RE = /^agent-[0-9a-z]+$/i;


/**
 * Default roots, each a `projects/` directory: every comma-separated entry of `$CLAUDE_CONFIG_DIR` (an entry
 * may name the config dir or its `projects/`), else `$XDG_CONFIG_HOME/claude/projects` (default
 * `~/.config/claude/projects`) and `~/.claude/projects`. Missing roots are kept: `discover` skips them.
 */
export function getClaudeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const explicit = envPathList(env.CLAUDE_CONFIG_DIR, (p) => expandHome(p, home));
  const roots: string[] = [];
  if (explicit.length > 0) {
    for (const entry of explicit) {
      const p = expandHome(entry, home).replace(/[\\/]+$/, '') || '/';
      roots.push(basename(p) === 'projects' ? p : join(p, 'projects'));
    }
  } else {
    const config = env.XDG_CONFIG_HOME?.trim() || join(home, '.config');
    roots.push(join(config, 'claude', 'projects'), join(home, '.claude', 'projects'));
  }
  return [...new Set(roots)];
}

/** What a transcript's path says: its session id (when the name is one), subagent-ness and parent. */
export interface ClaudePathInfo {
  /** The file name without `.jsonl`. */
  stem: string;
  /** The session id the path gives: a UUID name, or `agent-<id>` for a subagent transcript. */
  sessionId: string | undefined;
  /** `…/<parent>/subagents/agent-<id>.jsonl`. */
  subagent: boolean;
  /** The parent session of a 2.1+ subagent transcript. */
  parentSessionId: string | undefined;
}

export function getClaudePathInfo(file: string): ClaudePathInfo {
  const name = basename(file);
  const stem = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  const dir = dirname(file);
  const inSubagents = basename(dir) === 'subagents' && stem.startsWith('agent-');
  const parent = inSubagents ? basename(dirname(dir)) : undefined;
  return { stem, sessionId: sessionIdOf(stem, inSubagents), subagent: inSubagents, parentSessionId: parent !== undefined && parent !== '' ? parent : undefined };
}

/**
 * `getClaudePathInfo(file).sessionId`, asked of every file a scan reads: a UUID file name (a session
 * transcript, wherever it is) is its id without taking the path apart.
 */
export function getClaudeSessionId(file: string): string | undefined {
  const cut = file.lastIndexOf(sep);
  if (file.endsWith('.jsonl') && cut >= 0 && file.length - cut - 1 === 36 + '.jsonl'.length) {
    const stem = file.slice(cut + 1, -'.jsonl'.length);
    if (UUID_RE.test(stem)) return stem;
  }
  return getClaudePathInfo(file).sessionId;
}

/**
 * The session a main transcript's own lines name: its UUID file name. A line of it naming another session
 * was copied from that one (usage.ts `isCopiedLine`). Undefined for a subagent's transcript, whose lines name
 * the parent's session, and for a file named otherwise, whose session is taken from its lines.
 */
export function getOwnSessionId(file: string): string | undefined {
  const id = getClaudeSessionId(file);
  return id !== undefined && UUID_RE.test(id) ? id : undefined;
}

/** The session id a file name's stem gives (`getClaudePathInfo`), `inSubagents` when it is an `agent-` stem in a `subagents/` folder. */
function sessionIdOf(stem: string, inSubagents: boolean): string | undefined {
  return UUID_RE.test(stem) || AGENT_RE.test(stem) || inSubagents ? stem : undefined;
}

/** A `.` or `..` path segment. */
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

/** `Codec.getParseDependencies`: a subagent transcript's sidecar (see `getSubagentMetaPath`). */
export function claudeParseDependencies(file: string): string[] {
  const meta = getSubagentMetaPath(file);
  return meta === undefined ? [] : [meta];
}

/** The subagent sidecar `agent-<id>.meta.json` next to `agent-<id>.jsonl`; none for a session file. */
export function getSubagentMetaPath(file: string): string | undefined {
  // Asked of every discovered file (its parse dependencies): no path parsing for a session transcript.
  if (!file.endsWith('.jsonl') || !file.includes('agent-')) return undefined;
  const name = basename(file);
  if (!name.startsWith('agent-')) return undefined;
  const dir = dirname(file);
  const meta = `${name.slice(0, -'.jsonl'.length)}.meta.json`;
  // join's answer without its normalizing pass, for a directory it would leave as it is (no `.` or `..`
  // segment, no doubled or trailing separator: discovery's paths; `~/.claude/…` is one).
  const normal = sep === '/' && dir !== '' && !dir.endsWith('/') && !dir.includes('//') && !DOT_SEGMENT.test(dir);
  return normal ? `${dir}/${meta}` : join(dir, meta);
}

/**
 * The projects folder of a root: a config dir (`~/.claude`, which has `projects/`) gives its `projects/`, any
 * other folder is taken as a projects folder, so a root one level too high still finds its transcripts.
 * Claude Code names project folders after an encoded cwd (`-Users-…`), never `projects`.
 */
export function projectsDir(root: string): string {
  if (basename(root) === 'projects') return root;
  const p = join(root, 'projects');
  return followEntry(p) === 'dir' ? p : root;
}

/**
 * A discovered transcript: `getClaudePathInfo(path)`'s session id (its stem and folder say it: the caller
 * passes them, no path parsing per file) and the stat its listing took. A file named otherwise (renamed,
 * copied) has no id here, and its id is the first `sessionId` of its lines, as `read()` and every fold take it.
 * Every field is set, in one order (one object shape for the thousands of them a history has).
 */
function sessionFile(path: string, root: string, stem: string, inSubagents: boolean, subagent: boolean, st: FileStat): SessionFile {
  return { agent: CODEC_ID, path, root, sessionId: sessionIdOf(stem, inSubagents), subagent: subagent ? true : undefined, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
}

const JSONL = '.jsonl';

/**
 * The transcripts of one project folder, in discovery's order: its own transcripts (sorted by name), then its
 * sessions' `subagents/agent-*.jsonl` (by session, then name). One listing of the project's tree
 * (cursors/list-dir.ts: a native call where the kernel is built, with the stats), read by columns; a project
 * at a time, so that a scan starts reading the first project's files while the next ones are listed.
 */
function* projectFiles(project: string, projectName: string, root: string): Generator<SessionFile> {
  const t = listTreeColumns(project, ['', 'subagents'], 3);
  const nums = t.nums;
  let entryPath = ''; // the path of the project's entry (a transcript, or a session folder) last seen
  let subagents = '';
  const nested: SessionFile[] = [];
  for (let i = 0; i < t.n; i++) {
    const depth = nums[TREE_STRIDE * i] as number;
    const kind = nums[TREE_STRIDE * i + 1] as number;
    const name = t.names[i] as string;
    if (depth === 0) {
      entryPath = project + sep + name;
      if (kind === DIR || !name.endsWith(JSONL)) continue;
      const stem = name.slice(0, -JSONL.length);
      const inSubagents = projectName === 'subagents' && stem.startsWith('agent-');
      if (kind === OTHER) {
        // A linked transcript is read through its link (a FIFO or a dangling link is not a transcript).
        const target = followEntry(entryPath);
        if (target !== undefined && target !== 'dir') yield sessionFile(entryPath, root, stem, inSubagents, name.startsWith('agent-'), target);
        continue;
      }
      if (!statEntry(t, i, project)) continue;
      yield sessionFile(entryPath, root, stem, inSubagents, name.startsWith('agent-'), treeStat(t, i));
    } else if (depth === 1) {
      if (name === 'subagents') subagents = entryPath + sep + name; // the only folder listTree enters here
    } else if (kind !== DIR && kind !== OTHER && name.startsWith('agent-') && name.endsWith(JSONL) && statEntry(t, i, subagents)) {
      nested.push(sessionFile(subagents + sep + name, root, name.slice(0, -JSONL.length), true, true, treeStat(t, i)));
    }
  }
  yield* nested;
}

/**
 * Every transcript under the roots, project by project, sorted by name for stable output, each with the
 * stat its listing took. Synchronous listings on purpose: a history has thousands of small directories, and
 * a synchronous walk lists them several times faster than as many promises through libuv's thread pool.
 */
export async function* discoverClaudeFiles(roots: readonly string[]): AsyncGenerator<SessionFile> {
  yield* discoverClaudeFilesSync(roots);
}

/** `discoverClaudeFiles`, synchronously (`Codec.discoverSync`). */
export function* discoverClaudeFilesSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    const base = projectsDir(root);
    // A project folder reached twice (a link to another project, or to itself) is listed once.
    const listed = new Set<string>();
    for (const p of listDir(base)) {
      if (p.kind !== DIR) continue;
      const dir = join(base, p.name);
      const real = realDir(dir);
      if (real !== undefined && listed.has(real)) continue;
      if (real !== undefined) listed.add(real);
      yield* projectFiles(dir, p.name, root);
    }
  }
}

/** The real path of a folder (links resolved), or undefined when it cannot be resolved. */
function realDir(dir: string): string | undefined {
  try {
    return realpathSync.native(dir);
  } catch {
    return undefined;
  }
}

/** The stat of `p` when it is a regular file (following links, as a transcript is opened). */
async function fileStatAt(p: string): Promise<FileStat | undefined> {
  // fs.promises at the call: an import of node:fs/promises loads it (and the ten internal modules it takes,
  // readline's among them) on every start of the CLI's CommonJS bundle, where this module is in the chunk the
  // registry loads at once.
  return promises.stat(p).then(
    (s) => (s.isFile() ? fileStatOf(s) : undefined),
    () => undefined,
  );
}

/**
 * Find a transcript by id with one `stat` per project directory (no file is opened). Subagent ids
 * (`agent-<id>`) also look in every session's `subagents/` folder.
 */
export async function locateClaudeFile(roots: readonly string[], nativeId: string): Promise<SessionFile | undefined> {
  if (!nativeId || nativeId.includes('/') || nativeId.includes('\\') || nativeId === '.' || nativeId === '..') return undefined;
  const name = `${nativeId}.jsonl`;
  const agent = nativeId.startsWith('agent-');
  for (const root of roots) {
    const base = projectsDir(root);
    for (const project of listDir(base)) {
      if (project.kind !== DIR) continue;
      const dir = join(base, project.name);
      const direct = join(dir, name);
      const s = await fileStatAt(direct);
      if (s !== undefined) return sessionFile(direct, root, nativeId, project.name === 'subagents' && agent, agent, s);
      if (!agent) continue;
      for (const e of listDir(dir)) {
        if (e.kind !== DIR) continue;
        const p = join(dir, e.name, 'subagents', name);
        const sub = await fileStatAt(p);
        if (sub !== undefined) return sessionFile(p, root, nativeId, agent, true, sub);
      }
    }
  }
  return undefined;
}
