/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { clineFamilyDescriptor } from '../cline/descriptor.js';
import { opencodeFamilyDescriptor } from '../opencode/descriptor.js';
import { CODEC_ID, getKiloCliRoots, getKiloRoots } from './paths.js';

const ALIASES = ['kilo-code', 'kilocode', 'kilo-cli'];

/** Kilo Code's VS Code extension: Cline's engine. */
export const kiloExtensionDescriptor: CodecDescriptor = clineFamilyDescriptor({ id: CODEC_ID, aliases: ALIASES, displayName: 'Kilo Code', defaultRoots: getKiloRoots, rootVariables: ['SESSIONFOLD_KILO_DIR'] });

/** Kilo CLI: OpenCode's engine. */
export const kiloCliDescriptor: CodecDescriptor = opencodeFamilyDescriptor({ id: CODEC_ID, aliases: ALIASES, displayName: 'Kilo Code', defaultRoots: getKiloCliRoots, rootVariables: ['SESSIONFOLD_KILO_CLI_DIR', 'KILO_DB'] });

export const kiloDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ALIASES,
  displayName: 'Kilo Code',
  // Both engines bump the one version when either reads an unchanged file differently.
  parserVersion: kiloExtensionDescriptor.parserVersion + kiloCliDescriptor.parserVersion - 1,
  capabilities: { incremental: true, persistence: 'json', eventsPrecedeMtime: true },
  defaultRoots: (env?: NodeJS.ProcessEnv) => [...getKiloRoots(env), ...getKiloCliRoots(env)],
  rootVariables: ['SESSIONFOLD_KILO_DIR', 'SESSIONFOLD_KILO_CLI_DIR', 'KILO_DB'],
};
