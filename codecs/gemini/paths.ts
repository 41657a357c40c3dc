/**
 * Where Gemini CLI keeps its chats, and what a chat's path says about it.
 *
 * Layout under a root (`<home>/.gemini/tmp`, `<home>` = `$GEMINI_CLI_HOME` or the user's home):
 *   <project-id>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl   a session (append-only JSONL)
 *   <project-id>/chats/session-<…>.json                                   the same, older whole-file JSON
 *   <project-id>/chats/<parentSessionId>/<sessionId>.jsonl                a subagent's chat
 *   <project-id>/.project_root                                            the project's path (slug dirs)
 * `<project-id>` is a slug of the project's basename (registered in `<home>/.gemini/projects.json` as
 * `{projects: {<path>: <slug>}}`) or, in older installs, sha256 of the project path in hex. The cwd of a
 * session is that project path: the `.project_root` marker, else the registry (by slug, or by the hash of a
 * registered path). A `.json` beside a `.jsonl` of the same name was migrated to it on resume (Gemini CLI
 * appends the whole record to the `.jsonl` and leaves the `.json`), so only the `.jsonl` is listed.
 */
import { nodeCrypto } from '../../cursors/builtins.js';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'gemini';

/** `$GEMINI_CLI_HOME` (a comma-separated list is accepted) else the home directory, each with `.gemini/tmp`. */
export function getGeminiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.GEMINI_CLI_HOME);
  const homes = explicit.length > 0 ? explicit : [env.HOME || homedir()];
  return [...new Set(homes.map((h) => join(h, '.gemini', 'tmp')))];
}

/** What a chat's path says. */
export interface GeminiPathInfo {
  /** The project directory (`<root>/<project-id>`). */
  projectDir: string;
  /** The subagent's parent session id (`chats/<parent>/<id>.jsonl`). */
  parentSessionId: string | undefined;
  /** The file name without `.jsonl` / `.json`. */
  stem: string;
}

export function getGeminiPathInfo(file: string): GeminiPathInfo {
  const dir = dirname(file);
  const stem = basename(file).replace(/\.jsonl?$/, '');
  const up = dirname(dir);
  if (basename(up) === 'chats' && basename(dir) !== '') return { projectDir: dirname(up), parentSessionId: basename(dir), stem };
  return { projectDir: up, parentSessionId: undefined, stem };
}

/** The registry file of a root (`<home>/.gemini/projects.json`). */
export function getRegistryPath(projectDir: string): string {
  return join(dirname(dirname(projectDir)), 'projects.json');
}

function readRegistry(path: string): Record<string, string> {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { projects?: unknown };
    const p = data?.projects;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(p)) if (typeof v === 'string') out[k] = v;
    return out;
  } catch {
    return {};
  }
}

function sha256(s: string): string {
  return nodeCrypto().createHash('sha256').update(s).digest('hex');
}

/**
 * Project paths a chat's session may belong to, keyed by what names them: the project dir's own id
 * (`dir`), and every registered path's sha256 (so a `projectHash` in the chat finds its path). Read only;
 * a missing or broken registry is no path.
 */
export interface ProjectPaths {
  /** The path of the project dir the chat is in, when the marker or the registry tells it. */
  dir: string | undefined;
  /** sha256(path) → path of every registered project. */
  byHash: Record<string, string>;
}

export function getProjectPaths(file: string): ProjectPaths {
  const { projectDir } = getGeminiPathInfo(file);
  const id = basename(projectDir);
  const registry = readRegistry(getRegistryPath(projectDir));
  const byHash: Record<string, string> = {};
  let dir: string | undefined;
  for (const [path, slug] of Object.entries(registry)) {
    const h = sha256(path);
    byHash[h] = path;
    if (slug === id || h === id) dir ??= path;
  }
  try {
    const marker = readFileSync(join(projectDir, '.project_root'), 'utf8').trim();
    if (marker !== '') dir = marker;
  } catch {
    // no marker: older hash dirs have none
  }
  return { dir, byHash };
}

/** The files a chat's events depend on besides itself: the marker and the registry. */
export function getGeminiDependencies(file: string): string[] {
  const { projectDir } = getGeminiPathInfo(file);
  return [join(projectDir, '.project_root'), getRegistryPath(projectDir)];
}

function isSessionName(name: string): boolean {
  return name.startsWith('session-') && (name.endsWith('.jsonl') || name.endsWith('.json'));
}

/** Every chat under the roots, synchronously (missing roots are skipped). */
export function* discoverGeminiFilesSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const project of listDir(root)) {
      if (project.kind !== DIR) continue;
      const chats = join(root, project.name, 'chats');
      const entries = listDir(chats);
      const names = new Set(entries.map((e) => e.name));
      for (const e of entries) {
        if (e.kind === FILE && isSessionName(e.name)) {
          if (e.name.endsWith('.json') && names.has(`${e.name}l`)) continue;
          const s = fileStat(chats, e);
          if (s === undefined) continue;
          yield { agent: CODEC_ID, path: join(chats, e.name), root, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
        } else if (e.kind === DIR) {
          const sub = join(chats, e.name);
          for (const c of listDir(sub)) {
            if (c.kind !== FILE || !c.name.endsWith('.jsonl')) continue;
            const s = fileStat(sub, c);
            if (s === undefined) continue;
            yield { agent: CODEC_ID, path: join(sub, c.name), root, sessionId: c.name.slice(0, -'.jsonl'.length), subagent: true, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
          }
        }
      }
    }
  }
}

/**
 * A session's file by id without reading every chat: a subagent's file is named by its id; a session's name
 * holds the id's first 8 characters, so only those candidates are read (by the caller) to confirm.
 */
export function candidateFiles(roots: readonly string[], nativeId: string): SessionFile[] {
  if (nativeId === '' || nativeId.includes('/') || nativeId.includes('\\')) return [];
  const short = nativeId.slice(0, 8);
  const out: SessionFile[] = [];
  for (const f of discoverGeminiFilesSync(roots)) {
    const name = basename(f.path);
    if (f.subagent === true ? f.sessionId === nativeId : name.replace(/\.jsonl?$/, '').endsWith(`-${short}`)) out.push(f);
  }
  return out;
}
