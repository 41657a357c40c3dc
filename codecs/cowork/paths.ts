/**
 * Where Claude Desktop's Cowork (its local agent mode) keeps its sessions (README.md). The app runs Claude
 * Code through the Agent SDK with a private `CLAUDE_CONFIG_DIR` per task, under its data folder (`Claude`, or
 * `Claude-3p` in its gateway mode, or `$CLAUDE_USER_DATA_DIR`):
 *   <appData>/Claude/local-agent-mode-sessions/<org>/<account>/local_<id>/.claude/projects/<encoded cwd>/<session>.jsonl
 *   <appData>/Claude/local-agent-mode-sessions/<org>/<account>/agent/local_ditto_<id>/.claude/projects/…
 * Inside each `projects` folder the layout is Claude Code's, so Claude's discovery lists it.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { DIR, followEntry, listDir } from '../../cursors/list-dir.js';
import { electronAppData, envDir, envPathList, expandHome } from '../../cursors/env-paths.js';

export const CODEC_ID = 'cowork';
export const COWORK_ENV = 'COWORK_CONFIG_DIR';
const SESSIONS_DIR = 'local-agent-mode-sessions';
/**
 * The Microsoft Store (MSIX) build's package family name. Windows redirects a packaged app's writes to
 * `%APPDATA%` into `%LOCALAPPDATA%\Packages\<family>\LocalCache\Roaming`, which other programs see only there;
 * the family name is the package's name and its publisher's hash, the same on every machine.
 */
const STORE_PACKAGE = 'Claude_pzs8sxrjxfjjc';
/**
 * The data folder of the app's third-party (gateway) deployment mode, beside `Claude`; on Windows in
 * `%LOCALAPPDATA%` (README "Where" has the sources, and the one that puts it in `%APPDATA%`).
 */
const GATEWAY_PROFILE = 'Claude-3p';
/**
 * How deep below a sessions folder a session's `local_*` folder may be: the layout puts it at 3
 * (`<org>/<account>/local_<id>`) or 4 (`…/agent/local_ditto_<id>`); one level more for a change of layout.
 * The app keeps other state there (`skills-plugin/`, `rpm/`), which the walk need not enter further.
 */
const MAX_DEPTH = 5;


/** The app's own variable for its data folder (Electron's `userData`, the `Claude` folder itself). */
export const USER_DATA_ENV = 'CLAUDE_USER_DATA_DIR';

/**
 * Cowork's roots: each comma-separated entry of `$COWORK_CONFIG_DIR` (a sessions folder, a task's `.claude`
 * folder or its `projects/`); else the sessions folder of `$CLAUDE_USER_DATA_DIR`, the data folder the app
 * takes from it; else the app's sessions folders: its own profile's (`Claude`) and its gateway profile's
 * (`Claude-3p`), and on Windows the Store build's as well. Missing roots are kept: discovery skips them.
 */
export function getCoworkRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = env.HOME || homedir();
  const explicit = envPathList(env[COWORK_ENV], (p) => expandHome(p, home));
  if (explicit.length > 0) return [...new Set(explicit.map((p) => expandHome(p, home).replace(/[\\/]+$/, '') || '/'))];
  const userData = envDir(env, USER_DATA_ENV, { home });
  if (userData !== undefined) return [join(userData, SESSIONS_DIR)];
  const appData = electronAppData(env, platform);
  const roots = [join(appData, 'Claude', SESSIONS_DIR)];
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA?.trim() || join(home, 'AppData', 'Local');
    roots.push(join(local, 'Packages', STORE_PACKAGE, 'LocalCache', 'Roaming', 'Claude', SESSIONS_DIR));
    roots.push(join(local, GATEWAY_PROFILE, SESSIONS_DIR));
  }
  roots.push(join(appData, GATEWAY_PROFILE, SESSIONS_DIR));
  return roots;
}

/** A Claude Code config or projects folder: `projects` itself, or a folder holding one. */
function isClaudeConfig(root: string): boolean {
  return basename(root) === 'projects' || followEntry(join(root, 'projects')) === 'dir';
}

/** The `projects` folder of a task's `.claude` under a `local_*` session folder, when there is one. */
function taskProjects(sessionDir: string): string | undefined {
  const p = join(sessionDir, '.claude', 'projects');
  return followEntry(p) === 'dir' ? p : undefined;
}

/**
 * The Claude Code `projects` folders under a sessions folder, sorted: every `local_*` folder's
 * `.claude/projects`. A `local_*` folder is a session's storage (the user's uploads and outputs beside its
 * `.claude`), so the walk never enters it.
 */
function* walkSessions(dir: string, depth: number): Generator<string> {
  const entries = listDir(dir)
    .filter((e) => e.kind === DIR)
    .map((e) => e.name)
    .sort();
  for (const name of entries) {
    const sub = join(dir, name);
    if (name.startsWith('local_')) {
      const p = taskProjects(sub);
      if (p !== undefined) yield p;
    } else if (depth < MAX_DEPTH) yield* walkSessions(sub, depth + 1);
  }
}

/** The Claude Code folders a root holds: the root itself when it is one, else those of its sessions. */
export function getCoworkProjectDirs(root: string): string[] {
  return isClaudeConfig(root) ? [root] : [...walkSessions(root, 1)];
}
