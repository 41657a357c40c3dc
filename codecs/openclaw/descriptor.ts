/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { distinctFolders, envDir } from '../../cursors/env-paths.js';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { piFamilyDescriptor } from '../pi/descriptor.js';

export const CODEC_ID = 'openclaw';

/**
 * The state dirs OpenClaw resolves, in its order (openclaw/openclaw `src/config/paths.ts`
 * `NEW_STATE_DIRNAME`, `LEGACY_STATE_DIRNAMES`): its own, then those of Clawdbot, Moldbot and Moltbot, the
 * names it had before.
 */
export const OPENCLAW_STATE_DIRNAMES = ['.openclaw', '.clawdbot', '.moldbot', '.moltbot'] as const;

/** The home OpenClaw puts its state dirs in: `$OPENCLAW_HOME` (a leading `~` expanded), else HOME. */
function openclawHome(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  return envDir(env, 'OPENCLAW_HOME', { home }) ?? home;
}


/**
 * OpenClaw's roots: `$OPENCLAW_STATE_DIR`, else `$CLAWDBOT_STATE_DIR`, else every state dir under its home
 * (`OPENCLAW_STATE_DIRNAMES`), one root per folder: OpenClaw's migration moves a legacy dir to `~/.openclaw`
 * and leaves a link in its place, which is that folder again. Missing roots are kept (discovery skips them).
 */
export function getOpenclawRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = openclawHome(env);
  const explicit = envDir(env, 'OPENCLAW_STATE_DIR', { home }) ?? envDir(env, 'CLAWDBOT_STATE_DIR', { home });
  if (explicit !== undefined) return [explicit];
  return distinctFolders(OPENCLAW_STATE_DIRNAMES.map((name) => join(home, name)));
}

export const openclawDescriptor: CodecDescriptor = piFamilyDescriptor({ id: CODEC_ID, aliases: ['clawdbot', 'moltbot'], displayName: 'OpenClaw', defaultRoots: getOpenclawRoots, rootVariables: ['OPENCLAW_STATE_DIR', 'CLAWDBOT_STATE_DIR'] });
