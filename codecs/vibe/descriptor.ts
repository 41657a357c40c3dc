/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getVibeRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const vibeDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['mistral-vibe'],
  displayName: 'Mistral Vibe',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: false, persistence: 'json', eventsPrecedeMtime: true },
  defaultRoots: getVibeRoots,
  rootVariables: ['VIBE_HOME', 'XDG_CONFIG_HOME'],
};
