/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEBUDDY_ENV, CODEC_ID, getCodeBuddyRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 4;

/**
 * The descriptor of a codec that reads the CodeBuddy CLI's transcripts (CodeBuddy Code, WorkBuddy): this
 * engine's version and capabilities, its own names and roots. A fork's descriptor imports this file, not the engine.
 */
export function codeBuddyFamilyDescriptor(own: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>): CodecDescriptor {
  return { ...own, parserVersion: PARSER_VERSION, capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true } };
}

export const codebuddyDescriptor: CodecDescriptor = codeBuddyFamilyDescriptor({
  id: CODEC_ID,
  aliases: ['codebuddy-code'],
  displayName: 'CodeBuddy Code',
  defaultRoots: getCodeBuddyRoots,
  rootVariables: [CODEBUDDY_ENV],
});
