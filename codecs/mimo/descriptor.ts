/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { opencodeFamilyDescriptor, PARSER_VERSION } from '../opencode/descriptor.js';
import { CODEC_ID, getMimoRoots } from './paths.js';

/**
 * Goes up whenever MiMo's own rule (its imported messages, codecs/opencode/imports.ts) would read an unchanged
 * database differently: a change OpenCode's and Kilo CLI's databases never show, so their cached events stay
 * valid. 1: a row of `external_import` without `message_ids` silences only what its session created by its import;
 * 2: earlier releases' `claude_import` lists imports too.
 */
export const MIMO_RULES_VERSION = 2;

/** MiMo Code: OpenCode's engine under MiMo's names; its version the engine's plus its own rule's (both only go up, so the sum does). */
export const mimoDescriptor: CodecDescriptor = {
  ...opencodeFamilyDescriptor({
    id: CODEC_ID,
    aliases: ['mimocode', 'mimo-code', 'micode'],
    displayName: 'MiMo Code',
    defaultRoots: getMimoRoots,
    rootVariables: ['SESSIONFOLD_MIMO_DIR', 'MIMOCODE_DB'],
  }),
  parserVersion: PARSER_VERSION + MIMO_RULES_VERSION,
};
