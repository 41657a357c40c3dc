/**
 * Where omp (oh-my-pi, can1357/oh-my-pi) keeps sessions: pi's layout, `sessions/--<cwd>--/<time>_<id>.jsonl`,
 * under every folder omp writes to (`packages/utils/src/dirs.ts`, README.md): the XDG data folder, each
 * profile's, and the legacy agent dir. `PI_CODING_AGENT_DIR` and `PI_CONFIG_DIR` are pi's names, which omp
 * also reads; pi's codec owns the folders they name, so each file has one reader.
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { distinctFolders } from '../../cursors/env-paths.js';

export const CODEC_ID = 'omp';

/** omp's `PROFILE_NAME_RE`: other folders under `profiles/` are not profiles omp can select. */
const PROFILE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The profiles under `dir`, by name. */
function profileNames(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && PROFILE_NAME.test(e.name) && !e.name.endsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}


/**
 * omp's roots, the newest place first: on Linux and macOS `<data>/omp/sessions` and
 * `<data>/omp/profiles/<name>/sessions` (`<data>` = `$XDG_DATA_HOME` else `~/.local/share`), then
 * `~/.omp/profiles/<name>/agent/sessions` and `~/.omp/agent/sessions`. Every profile, not only the active
 * one: a user's history spans them. Missing roots are kept (discovery skips them); one folder is one root.
 */
export function getOmpRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const home = env.HOME || homedir();
  const legacy = join(home, '.omp');
  const roots: string[] = [];
  if (platform === 'linux' || platform === 'darwin') {
    const data = join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'omp');
    roots.push(join(data, 'sessions'), ...profileNames(join(data, 'profiles')).map((p) => join(data, 'profiles', p, 'sessions')));
  }
  roots.push(...profileNames(join(legacy, 'profiles')).map((p) => join(legacy, 'profiles', p, 'agent', 'sessions')), join(legacy, 'agent', 'sessions'));
  return distinctFolders(roots);
}
