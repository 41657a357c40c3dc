/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { claudeDescriptor } from '../claude/descriptor.js';
import { CODEC_ID, COWORK_ENV, getCoworkRoots, USER_DATA_ENV } from './paths.js';

/** Claude's engine reads every file, so the version and capabilities are Claude's: they go up with it. */
export const coworkDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['claude-cowork', 'claude-desktop'],
  displayName: 'Claude Cowork',
  parserVersion: claudeDescriptor.parserVersion,
  capabilities: claudeDescriptor.capabilities,
  defaultRoots: (env) => getCoworkRoots(env),
  rootVariables: [COWORK_ENV, USER_DATA_ENV],
};
