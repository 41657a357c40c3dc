/**
 * `kilo`: Kilo Code, in both of its homes.
 * - The VS Code extension (up to 5.x), a fork of Roo Code that keeps Cline's task layout and `ClineMessage`
 *   records: read by Cline's engine under Kilo Code's roots and name, with Kilo Code's `tokensIn` (cache
 *   included since 4.119.0) and its model taken from the prompts.
 * - Kilo CLI (1.0 and later), OpenCode's engine under Kilo's name: `kilo.db` in `$XDG_DATA_HOME/kilo`, read by
 *   OpenCode's engine (codecs/opencode/README.md, "Forks").
 * A file is the extension's when it is a task's `ui_messages.json`, else the CLI's. README.md has both formats.
 */
import type { Codec, DiscoverOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { defineClineFamilyCodec } from '../cline/index.js';
import { defineOpencodeCodec } from '../opencode/index.js';
import { CODEC_ID, KILO_EXTENSION_ID, isKiloDatabaseName } from './paths.js';
import { kiloCliDescriptor, kiloDescriptor, kiloExtensionDescriptor } from './descriptor.js';

export { CODEC_ID as KILO_CODEC_ID, KILO_EXTENSION_ID, getKiloCliRoots, getKiloRoots, isKiloDatabaseName } from './paths.js';

/** Kilo Code 4.119.0 took Roo Code's change: `tokensIn` with the cache for every protocol. */
export const KILO_INCLUSIVE_SINCE = Date.UTC(2025, 10, 12);

const extension = defineClineFamilyCodec({
  descriptor: kiloExtensionDescriptor,
  extensionId: KILO_EXTENSION_ID,
  flavor: { inclusiveSince: KILO_INCLUSIVE_SINCE, metadataModels: false, fastApply: true },
  // a fork keeps a project's tasks in a folder of its own, with no tasks/ level (README.md, "Project-local tasks")
  tasksFolderRoots: true,
});

const cli = defineOpencodeCodec({
  agent: CODEC_ID,
  isDatabaseName: isKiloDatabaseName,
  // Kilo's processor writes a subagent's cost into its parent's reply (`reconcileCost`), possibly after the
  // parent completed, and nothing in Kilo's source is cited for settled messages: every read walks them
  settledMessages: false,
  descriptor: kiloCliDescriptor,
  command: 'kilo',
});

const isTask = (file: string): boolean => file.endsWith('ui_messages.json');
const engineOf = (file: string): Codec => (isTask(file) ? extension : cli);

function* both(roots: readonly string[], options?: DiscoverOptions): Generator<SessionFile> {
  yield* extension.discoverSync!(roots, options);
  yield* cli.discoverSync!(roots, options);
}

/** The Kilo Code codec: the extension's tasks and the CLI's database. */
export const kilo: Codec = {
  ...kiloDescriptor,
  async *discover(roots: readonly string[], options?: DiscoverOptions) {
    yield* both(roots, options);
  },
  discoverSync: both,
  async locate(roots: readonly string[], nativeId: string) {
    return (await cli.locate!(roots, nativeId)) ?? (await extension.locate?.(roots, nativeId));
  },
  getParseDependencies: (file: string) => engineOf(file).getParseDependencies(file),
  read: (file, options) => engineOf(file).read(file, options),
  detect: (file: string, head: Buffer) => Math.max(extension.detect?.(file, head) ?? 0, cli.detect?.(file, head) ?? 0) as ReturnType<NonNullable<Codec['detect']>>,
  resumeCommand: (nativeId: string, file?: SessionFile) => (file !== undefined && isTask(file.path) ? [] : cli.resumeCommand!(nativeId, file)),
};
export default kilo;
