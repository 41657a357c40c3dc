/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';

export const CODEC_ID = 'opencode';

/** Goes up whenever the OpenCode engine (OpenCode and Kilo CLI) would parse an unchanged file differently. */
export const PARSER_VERSION = 6;

export function getOpencodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return [join(data, 'opencode')];
}

/** A codec read by the OpenCode engine (OpenCode, Kilo CLI) under its own names and roots. */
export function opencodeFamilyDescriptor(d: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>): CodecDescriptor {
  return { ...d, parserVersion: PARSER_VERSION, capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false } };
}

export const opencodeDescriptor: CodecDescriptor = opencodeFamilyDescriptor({ id: CODEC_ID, aliases: ['open-code', 'oc'], displayName: 'OpenCode', defaultRoots: getOpencodeRoots });
