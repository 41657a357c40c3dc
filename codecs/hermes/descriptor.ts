/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'hermes';

/** Goes up whenever this codec would parse an unchanged source differently. */
export const PARSER_VERSION = 4;

/**
 * Hermes's homes: `$HERMES_HOME` when set (a comma-separated list accepted here), else the platform default of
 * `_get_platform_default_hermes_home` (NousResearch/hermes-agent `hermes_constants.py` @ `00067189`):
 * `%LOCALAPPDATA%\hermes` on Windows (`~\AppData\Local\hermes` when `LOCALAPPDATA` is unset or blank) and
 * `~/.hermes` elsewhere, `$HERMES_DATA_DIR_SUFFIX` appended to the folder's name as Hermes appends it. On
 * Windows `~/.hermes` is read too, after the new default: it was the default there until PR #38592 (commit
 * `40fbb0f3c`, fixing issue #30081), no release moves its sessions across (the migration of PR #66801 was
 * closed unmerged), and Hermes's desktop app keeps writing to it while `%LOCALAPPDATA%\hermes` is absent
 * (`apps/desktop/electron/main.cjs` `resolveHermesHome` @ `00a32c4b`).
 */
export function getHermesRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envPathList(env.HERMES_HOME);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || env.USERPROFILE || homedir();
  const suffix = env.HERMES_DATA_DIR_SUFFIX ?? '';
  const dotHermes = join(home, `.hermes${suffix}`);
  if (platform !== 'win32') return [dotHermes];
  const localAppData = env.LOCALAPPDATA?.trim() || join(home, 'AppData', 'Local');
  return [join(localAppData, `hermes${suffix}`), dotHermes];
}

export const hermesDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['hermes-agent'],
  displayName: 'Hermes agent',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false },
  defaultRoots: getHermesRoots,
  rootVariables: ['HERMES_HOME', 'HERMES_DATA_DIR_SUFFIX', 'LOCALAPPDATA'],
};
