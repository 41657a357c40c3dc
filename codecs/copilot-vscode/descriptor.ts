/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { CODEC_ID, getVscodeChatRoots } from './paths.js';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 2;

export const copilotVscodeDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['vscode-copilot', 'vscode-chat', 'copilot-chat'],
  displayName: 'GitHub Copilot Chat (VS Code)',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true, usageMayBeUnknown: true, usageKnownAtEnd: true },
  defaultRoots: (env) => getVscodeChatRoots(env),
  rootVariables: ['SESSIONFOLD_VSCODE_USER_DIR'],
};
