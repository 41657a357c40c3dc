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

export function getHermesRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.HERMES_HOME);
  if (explicit.length > 0) return explicit;
  return [join(env.HOME || homedir(), '.hermes')];
}

export const hermesDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['hermes-agent'],
  displayName: 'Hermes agent',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false },
  defaultRoots: getHermesRoots,
  rootVariables: ['HERMES_HOME'],
};
