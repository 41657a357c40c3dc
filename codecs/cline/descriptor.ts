/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { getClineRoots } from './paths.js';

/** Goes up whenever the Cline engine (Cline, Roo Code, Kilo Code's extension) would parse an unchanged file differently. */
export const PARSER_VERSION = 12;

/** A codec read by the Cline engine under its own names and roots. */
export function clineFamilyDescriptor(d: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>, capabilities: Partial<CodecDescriptor['capabilities']> = {}): CodecDescriptor {
  return { ...d, parserVersion: PARSER_VERSION, capabilities: { incremental: true, persistence: 'json', eventsPrecedeMtime: true, ...capabilities } };
}

export const clineDescriptor: CodecDescriptor = clineFamilyDescriptor({
  id: 'cline',
  aliases: ['claude-dev', 'cline-vscode'],
  displayName: 'Cline',
  defaultRoots: getClineRoots,
  rootVariables: ['SESSIONFOLD_CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_DIR', 'CLINE_SESSION_DATA_DIR'],
  // An SDK session's usage may be a lower bound (codecs/cline/README.md), said once its messages are read.
}, { usageMayBeUnknown: true, usageKnownAtEnd: true });
