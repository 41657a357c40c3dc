/**
 * Where GitHub Copilot CLI keeps sessions: `$COPILOT_HOME` (comma-separated list accepted, as for Codex), else
 * `~/.copilot`, plus `$XDG_CONFIG_HOME/.copilot` when XDG_CONFIG_HOME is set (builds up to 0.0.421 put their
 * home there; github/copilot-cli#1954). Below a home, `session-state/<id>/events.jsonl` (next to
 * `workspace.yaml`, `checkpoints/`, `files/`) and, from older builds, flat `session-state/<id>.jsonl`.
 * Sources: README.md.
 */
import { homedir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { statSync } from 'node:fs';
import { DIR, FILE, fileStatOf, followEntry, listTree, type FileStat } from '../../cursors/list-dir.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'copilot';
export const SESSION_STATE_DIR = 'session-state';
export const EVENTS_FILE = 'events.jsonl';
/** The session's metadata beside `events.jsonl` (its `summary:` is the session's title). */
export const WORKSPACE_FILE = 'workspace.yaml';

/** Every Copilot home to scan, honouring `$COPILOT_HOME` (comma-separated) and `$XDG_CONFIG_HOME`. */
export function getCopilotRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.COPILOT_HOME);
  if (explicit.length > 0) return explicit;
  const home = join(env.HOME || homedir(), '.copilot');
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const older = xdg ? join(xdg, '.copilot') : undefined;
  return older === undefined || older === home ? [home] : [home, older];
}

/**
 * The folder of sessions under a root: `<root>/session-state` when it exists, else the root itself (a root
 * one level too deep, or a copy of the sessions, still finds them instead of silently finding none).
 */
export function sessionStateDir(root: string): string {
  const dir = join(root, SESSION_STATE_DIR);
  return followEntry(dir) === 'dir' ? dir : root;
}

/** The session id a path names: the folder of an `events.jsonl`, else the file name without `.jsonl`. */
export function sessionIdOfPath(file: string): string {
  const name = basename(file);
  if (name === EVENTS_FILE) return basename(dirname(file));
  return name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
}

/** A session file found under a folder of sessions. */
export interface FoundSession {
  path: string;
  sessionId: string;
  stat: FileStat;
}

/**
 * The sessions of one `session-state` folder in name order: each `<id>/events.jsonl`, and each flat
 * `<id>.jsonl` whose id has no folder (a session moved to the folder layout is read once, from its folder).
 */
export function* walkSessionState(dir: string): Generator<FoundSession> {
  const entries = listTree(dir, [], 2);
  const folders = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.depth === 0 && e.kind === DIR) folders.add(e.name);
  }
  let folder: string | undefined;
  for (const e of entries) {
    if (e.depth === 0) folder = e.kind === DIR ? e.name : undefined;
    if (e.kind !== FILE || e.stat === null || e.stat === undefined) continue;
    if (e.depth === 1 && folder !== undefined && e.name === EVENTS_FILE) {
      yield { path: dir + sep + folder + sep + EVENTS_FILE, sessionId: folder, stat: e.stat };
    } else if (e.depth === 0 && e.name.endsWith('.jsonl')) {
      const id = e.name.slice(0, -'.jsonl'.length);
      if (id !== '' && !folders.has(id)) yield { path: join(dir, e.name), sessionId: id, stat: e.stat };
    }
  }
}

/** The file of session `id` under a root, or undefined (a folder's `events.jsonl` first, then a flat file). */
export function locateSession(root: string, id: string): FoundSession | undefined {
  if (id === '' || id === '.' || id === '..' || id.includes('/') || id.includes('\\')) return undefined;
  const dir = sessionStateDir(root);
  for (const path of [join(dir, id, EVENTS_FILE), join(dir, `${id}.jsonl`)]) {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s?.isFile() === true) return { path, sessionId: id, stat: fileStatOf(s) };
  }
  return undefined;
}
