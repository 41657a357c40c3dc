/**
 * Where Cherry Studio (CherryHQ/cherry-studio) keeps its agents' session files, under Electron's userData
 * (`<appData>/CherryStudio`, the package name; `src/main/core/paths/pathRegistry.ts`):
 *   <userData>/Data/Agents/.claude/projects/<encoded cwd>/<session>.jsonl   Claude Code, since the v2 data layout
 *   <userData>/.claude/projects/<encoded cwd>/<session>.jsonl               Claude Code, v1, copied to the above
 *   <userData>/Data/Agents/.pi/sessions/<ISO time>_<session id>.jsonl       pi, handed to pi as its session dir
 * (`feature.agents.claude.root`, `v1.agents.claude`, `feature.agents.pi.sessions`). Inside each folder the
 * layout is the runtime's own, so discovery is Claude's or pi's.
 */
import { join } from 'node:path';
import { electronAppData } from '../../cursors/env-paths.js';

export const CODEC_ID = 'cherry-studio';

/**
 * Cherry Studio's roots: the Claude Code folders, v2 first (discovery keeps the first root's copy of a
 * transcript that both hold, index.ts, so a v1 transcript the migration copied is one session, and one left
 * behind is read), then pi's session folder.
 */
export function getCherryStudioRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const userData = join(electronAppData(env, platform), 'CherryStudio');
  const agents = join(userData, 'Data', 'Agents');
  return [join(agents, '.claude', 'projects'), join(userData, '.claude', 'projects'), join(agents, '.pi', 'sessions')];
}

/** A root that is pi's session folder (`…/.pi/sessions`); every other root is a Claude Code `projects` folder. */
export function isPiRoot(root: string): boolean {
  return /(^|[\\/])\.pi[\\/]sessions[\\/]*$/.test(root);
}

/** A file in (or one folder below) pi's session folder: pi's engine reads it, Claude's every other file. */
export function isPiFile(file: string): boolean {
  return /(^|[\\/])\.pi[\\/]sessions[\\/]([^\\/]+[\\/])?[^\\/]+$/.test(file);
}
