/**
 * Where Roo Code keeps its tasks: `rooveterinaryinc.roo-cline` in every editor's globalStorage (the Cline
 * family's layout, codecs/cline/), and its CLI's `~/.vscode-mock/global-storage`. `SESSIONFOLD_ROO_DIR`
 * (comma-separated folders, each holding `tasks/`) replaces them; Roo Code's `customStoragePath` setting is
 * such a folder.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { extensionStorageRoots } from '../cline/paths.js';

export const CODEC_ID = 'roo';
export const ROO_EXTENSION_ID = 'rooveterinaryinc.roo-cline';

export function getRooRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return extensionStorageRoots(ROO_EXTENSION_ID, env, env.SESSIONFOLD_ROO_DIR, [join(env.HOME || homedir(), '.vscode-mock', 'global-storage')]);
}
