/**
 * Where Cherry Studio (CherryHQ/cherry-studio) keeps its agents' Claude Code transcripts. Cherry runs Claude
 * Code (the Agent SDK's CLI) with `CLAUDE_CONFIG_DIR` set to a folder of its own, under Electron's userData
 * (`<appData>/CherryStudio`, the package name):
 *   <userData>/Data/Agents/.claude/projects/<encoded cwd>/<session>.jsonl   since its v2 data layout
 *   <userData>/.claude/projects/<encoded cwd>/<session>.jsonl               v1, copied to the above on migration
 * (`src/main/core/paths/pathRegistry.ts`: `feature.agents.claude.root`, `v1.agents.claude`). The layout
 * inside `projects/` is Claude Code's own, so discovery is Claude's.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CODEC_ID = 'cherry-studio';

/** Electron's `app.getPath('appData')`: `%APPDATA%`, `~/Library/Application Support`, else `$XDG_CONFIG_HOME` or `~/.config`. */
function appData(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const home = env.HOME || homedir();
  if (platform === 'win32') return env.APPDATA?.trim() || join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME?.trim() || join(home, '.config');
}

/**
 * Cherry Studio's roots, the v2 folder first: discovery keeps the first root's copy of a transcript that
 * both hold (index.ts), so a v1 transcript the migration copied is one session, and one left behind is read.
 */
export function getCherryStudioRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const userData = join(appData(env, platform), 'CherryStudio');
  return [join(userData, 'Data', 'Agents', '.claude', 'projects'), join(userData, '.claude', 'projects')];
}
