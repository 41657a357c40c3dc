/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';

export const CODEC_ID = 'cursor';

/** Goes up whenever this codec would parse an unchanged file differently. */
export const PARSER_VERSION = 1;

/** The default roots: the CLI home and every platform's IDE user folder (missing ones are skipped). */
export function getCursorRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME;
  const config = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.config');
  const roots = [join(home, '.cursor'), join(config, 'Cursor', 'User'), join(home, 'Library', 'Application Support', 'Cursor', 'User')];
  if (env.APPDATA) roots.push(join(env.APPDATA, 'Cursor', 'User'));
  return roots;
}

export const cursorDescriptor: CodecDescriptor = {
  id: CODEC_ID,
  aliases: ['cursor-agent', 'cursor-cli', 'cursor-ide'],
  displayName: 'Cursor',
  parserVersion: PARSER_VERSION,
  capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false, recordsUsage: false },
  defaultRoots: getCursorRoots,
};
