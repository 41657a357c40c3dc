/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { claudeDescriptor } from '../claude/descriptor.js';
import { CODEC_ID, getCherryStudioRoots } from './paths.js';

/** Claude's engine reads the files, so its parser version and capabilities are Cherry's. */
export const cherryStudioDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['cherrystudio', 'cherry'],
  displayName: 'Cherry Studio',
  parserVersion: claudeDescriptor.parserVersion,
  capabilities: claudeDescriptor.capabilities,
  defaultRoots: (env) => getCherryStudioRoots(env),
};
