/**
 * The folders an agent's environment variable names. Sessionfold accepts a comma-separated list where an
 * agent takes one folder (`CODEX_HOME=/a,/b`), but a comma is a legal character in a path: a value that
 * names an existing entry whole is that one path, and only a value that does not is split on commas.
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** True when something is at `p` (a stat that follows links; imports nothing more, as descriptors load at start). */
function exists(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // a folder on the way that cannot be searched: nothing to read there either
  }
}

/** `p` with a leading `~` (alone, or `~/`) as `home`, as a shell would expand an agent's home variable. */
export function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

/** How `envDir` reads a variable: `home` expands a leading `~` against it; `absolute` resolves the result. */
export interface EnvDirOptions {
  home?: string;
  absolute?: boolean;
}

/**
 * The folder the variable `name` names, as most agents read their home variables: trimmed, undefined when
 * unset or blank; with `home`, a leading `~` expanded; with `absolute`, resolved against the cwd. One reading
 * for every codec, so a codec says which of these its agent does rather than writing the steps again.
 */
export function envDir(env: NodeJS.ProcessEnv, name: string, options: EnvDirOptions = {}): string | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  const dir = options.home === undefined ? v : expandHome(v, options.home);
  return options.absolute === true ? resolve(dir) : dir;
}

/**
 * `value` as a list of paths: [] when unset or blank; the whole value (trimmed) when it exists, as
 * `resolve` maps it (`~` expanded, say); else its comma-separated entries, trimmed, blanks left out.
 */
export function envPathList(value: string | undefined, resolve: (p: string) => string = (p) => p): string[] {
  const v = value?.trim();
  if (!v) return [];
  if (v.includes(',') && exists(resolve(v))) return [v];
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Electron's `app.getPath('appData')`: `%APPDATA%`, `~/Library/Application Support`, else `$XDG_CONFIG_HOME` or `~/.config`. */
export function electronAppData(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const home = env.HOME || homedir();
  if (platform === 'win32') return env.APPDATA?.trim() || join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME?.trim() || join(home, '.config');
}

/**
 * `dirs` with each folder kept once, in order: two spellings of one folder (a link left by a migration, a
 * profile that points at another) are one root, so its files have one owner. A folder's identity is its real
 * path when it exists, else its resolved spelling (a missing root is kept; discovery skips it).
 */
export function distinctFolders(dirs: readonly string[]): string[] {
  const seen = new Set<string>();
  return dirs.filter((dir) => {
    let key: string;
    try {
      key = realpathSync.native(dir);
    } catch {
      key = resolve(dir);
    }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
