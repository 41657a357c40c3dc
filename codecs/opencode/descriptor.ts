/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';

export const CODEC_ID = 'opencode';

/** Goes up whenever the OpenCode engine (OpenCode and Kilo CLI) would parse an unchanged file differently. */
export const PARSER_VERSION = 6;

/** The database name that keeps an OpenCode-family agent's database in memory: nothing of it is on disk. */
export const MEMORY_DATABASE = ':memory:';

/**
 * What an OpenCode-family agent reads, from its data folder `data` and its database variable `override`
 * (`OPENCODE_DB`, Kilo's `KILO_DB`), as the agent resolves it (anomalyco/opencode
 * `packages/opencode/src/storage/db.ts` @ 89d1ccc3 `Database.Path`, `packages/core/src/database/database.ts`
 * @ 4dba5c9f `path()`; Kilo-Org/kilocode `packages/core/src/database/database.ts` @ 2855ebbe):
 * - unset or blank: `[data]`, the folder, whose databases (every channel's) and legacy `storage/` tree are read;
 * - `:memory:`: `[]`, the agent keeps its database in memory, so nothing on disk is its;
 * - else the one database the variable names, as it is when absolute, else joined to `data`: the agent then
 *   opens that database and no other, so neither the folder's other databases nor its `storage/` are read.
 * An empty value is unset for the agent too; one of spaces only, which it would join to its folder as a file
 * name, is taken as unset.
 */
export function getDatabaseRoots(data: string, override: string | undefined): string[] {
  if (override === undefined || override.trim() === '') return [data];
  if (override === MEMORY_DATABASE) return [];
  return [isAbsolute(override) ? override : join(data, override)];
}

/**
 * `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`), or what `OPENCODE_DB` names instead
 * (`getDatabaseRoots`). Here, not in paths.ts, because the registry asks for roots before it loads the codec.
 */
export function getOpencodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME || homedir(), '.local', 'share');
  return getDatabaseRoots(join(data, 'opencode'), env.OPENCODE_DB);
}

/** A codec read by the OpenCode engine (OpenCode, Kilo CLI) under its own names and roots. */
export function opencodeFamilyDescriptor(d: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>): CodecDescriptor {
  return { ...d, parserVersion: PARSER_VERSION, capabilities: { incremental: true, persistence: 'sqlite', eventsPrecedeMtime: false } };
}

export const opencodeDescriptor: CodecDescriptor = opencodeFamilyDescriptor({ id: CODEC_ID, aliases: ['open-code', 'oc'], displayName: 'OpenCode', defaultRoots: getOpencodeRoots, rootVariables: ['OPENCODE_DB'] });
