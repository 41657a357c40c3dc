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
import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../src/codec.js';

export const CODEC_ID = 'claude';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `agent-<id>` with a single alphanumeric id (so `agent-sessions-v2.1-…` fixture names do not match). */
const AGENT_RE = /^agent-[0-9a-z]+$/i;

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/**
 * Default roots, each a `projects/` directory: every comma-separated entry of `$CLAUDE_CONFIG_DIR` (an entry
 * may name the config dir or its `projects/`), else `$XDG_CONFIG_HOME/claude/projects` (default
 * `~/.config/claude/projects`) and `~/.claude/projects`. Missing roots are kept: `discover` skips them.
 */
export function getClaudeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const explicit = env.CLAUDE_CONFIG_DIR?.trim();
  const roots: string[] = [];
  if (explicit) {
    for (const raw of explicit.split(',')) {
      const entry = raw.trim();
      if (!entry) continue;
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
  const sessionId = UUID_RE.test(stem) || AGENT_RE.test(stem) || inSubagents ? stem : undefined;
  return { stem, sessionId, subagent: inSubagents, parentSessionId: parent !== undefined && parent !== '' ? parent : undefined };
}

/** The subagent sidecar `agent-<id>.meta.json` next to `agent-<id>.jsonl`; none for a session file. */
export function getSubagentMetaPath(file: string): string | undefined {
  const info = getClaudePathInfo(file);
  if (!info.stem.startsWith('agent-') || !file.endsWith('.jsonl')) return undefined;
  return join(dirname(file), `${info.stem}.meta.json`);
}

/**
 * Synchronous on purpose: a history has thousands of small directories, and a `readdirSync` loop lists them
 * several times faster than as many promises through libuv's thread pool (a warm report waits on nothing else).
 */
function listDir(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The projects folder of a root: a config dir (`~/.claude`, which has `projects/`) gives its `projects/`, any
 * other folder is taken as a projects folder, so a root one level too high still finds its transcripts.
 * Claude Code names project folders after an encoded cwd (`-Users-…`), never `projects`.
 */
export function projectsDir(root: string): string {
  if (basename(root) === 'projects') return root;
  const p = join(root, 'projects');
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true ? p : root;
}

/**
 * A discovered transcript. Its `sessionId` is the one its path gives (a UUID name, `agent-<id>`); a file
 * named otherwise (renamed, copied) has none here, and its id is the first `sessionId` of its lines, as
 * `read()` and every fold take it.
 */
function sessionFile(path: string, root: string, subagent: boolean): SessionFile {
  const id = getClaudePathInfo(path).sessionId;
  return { agent: CODEC_ID, path, root, ...(id !== undefined && { sessionId: id }), ...(subagent && { subagent: true }) };
}

/** Every transcript under the roots, project by project, sorted by name for stable output. */
export async function* discoverClaudeFiles(roots: readonly string[]): AsyncGenerator<SessionFile> {
  for (const root of roots) {
    const base = projectsDir(root);
    const projects = (listDir(base)).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    for (const project of projects) {
      const dir = join(base, project);
      const entries = (listDir(dir)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        if (e.isFile() && e.name.endsWith('.jsonl')) {
          yield sessionFile(join(dir, e.name), root, e.name.startsWith('agent-'));
        }
      }
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        const sub = join(dir, e.name, 'subagents');
        const agents = (listDir(sub)).filter((a) => a.isFile() && a.name.startsWith('agent-') && a.name.endsWith('.jsonl')).map((a) => a.name).sort();
        for (const a of agents) yield sessionFile(join(sub, a), root, true);
      }
    }
  }
}

async function isFile(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isFile(),
    () => false,
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
    const projects = (listDir(base)).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    for (const project of projects) {
      const dir = join(base, project);
      const direct = join(dir, name);
      if (await isFile(direct)) return sessionFile(direct, root, agent);
      if (!agent) continue;
      for (const e of await listDir(dir)) {
        if (!e.isDirectory()) continue;
        const p = join(dir, e.name, 'subagents', name);
        if (await isFile(p)) return sessionFile(p, root, true);
      }
    }
  }
  return undefined;
}
