/**
 * Where Kilo Code keeps its tasks: `kilocode.kilo-code` in every editor's globalStorage (the Cline family's
 * layout, codecs/cline/). `SESSIONFOLD_KILO_DIR` (comma-separated folders, each holding `tasks/`) replaces
 * them; Kilo Code's `customStoragePath` setting is such a folder.
 */
import { extensionStorageRoots } from '../cline/index.js';

export const CODEC_ID = 'kilo';
export const KILO_EXTENSION_ID = 'kilocode.kilo-code';

export function getKiloRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return extensionStorageRoots(KILO_EXTENSION_ID, env, env.SESSIONFOLD_KILO_DIR);
}
