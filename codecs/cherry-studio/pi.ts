/**
 * The pi sessions of Cherry Studio's pi runtime (`<userData>/Data/Agents/.pi/sessions`, README.md): pi's
 * files, written by pi's own SessionManager, so pi's engine and layout read them. The engine runs as `pi`,
 * so dedup keys are pi's (`pi:<entry id>:<time>`): a copy in `~/.pi/agent/sessions` counts once. Events are
 * named `cherry-studio`.
 */
import type { DetectScore, SessionFile } from '../../cursors/protocol/codec.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { renamedCore } from '../../cursors/renamed-core.js';
import { createPiCore, detectPi, discoverPiLayout, locatePiLayout } from '../pi/index.js';
import { cherryStudioDescriptor } from './descriptor.js';
import { CODEC_ID, isPiFile } from './paths.js';

export const piCore = renamedCore(createPiCore({ agent: 'pi' }), CODEC_ID);
export const readPi = createJsonlRead(cherryStudioDescriptor, piCore);

/** pi's listing of Cherry's pi folder, the files named Cherry's. */
export function discoverPi(roots: readonly string[]): Generator<SessionFile> {
  return discoverPiLayout(CODEC_ID, roots);
}

export function locatePi(roots: readonly string[], nativeId: string): SessionFile | undefined {
  return locatePiLayout(CODEC_ID, roots, nativeId);
}

/**
 * pi's head, only for a file in a `.pi/sessions` folder: pi and its forks write the same head, and Cherry's
 * codec is registered before pi's, so it must not win a pi file that lies elsewhere.
 */
export function detectCherryPi(file: string, head: Buffer): DetectScore {
  return isPiFile(file) ? detectPi(file, head) : 0;
}
