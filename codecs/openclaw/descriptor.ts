/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { expandHome, piFamilyDescriptor } from '../pi/descriptor.js';

export const CODEC_ID = 'openclaw';

/** OpenClaw's roots: `$OPENCLAW_STATE_DIR`, else `~/.openclaw`. */
export function getOpenclawRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const explicit = env.OPENCLAW_STATE_DIR?.trim();
  return [explicit ? expandHome(explicit, home) : join(home, '.openclaw')];
}

export const openclawDescriptor: CodecDescriptor = piFamilyDescriptor({ id: CODEC_ID, aliases: ['clawdbot', 'moltbot'], displayName: 'OpenClaw', defaultRoots: getOpenclawRoots, rootVariables: ['OPENCLAW_STATE_DIR'] });
