/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { claudeDescriptor } from '../claude/descriptor.js';
import { PI_PARSER_VERSION } from '../pi/descriptor.js';
import { CODEC_ID, getCherryStudioRoots } from './paths.js';

/**
 * Claude's engine reads the Claude Code transcripts and pi's the pi sessions, so the version is the sum of
 * theirs: it goes up whenever either engine's does. Their capabilities are the same.
 */
export const cherryStudioDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['cherrystudio', 'cherry'],
  displayName: 'Cherry Studio',
  parserVersion: claudeDescriptor.parserVersion + PI_PARSER_VERSION,
  capabilities: claudeDescriptor.capabilities,
  defaultRoots: (env) => getCherryStudioRoots(env),
};
