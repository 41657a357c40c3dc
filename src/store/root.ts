/** The store's default root, as the `store` agent reads it (its codec's default roots, through the registry). */
import { getCodec } from '../registry.js';

/** `$SESSIONFOLD_STORE_DIR`, else `$XDG_DATA_HOME/sessionfold/sessions` (`~/.local/share/sessionfold/sessions`). */
export function defaultStoreRoot(env: NodeJS.ProcessEnv = process.env): string {
  return getCodec('store').defaultRoots(env)[0] as string;
}
