/**
 * Which file holds a session, by its id, as the codec tells it: shared by the folds that look a session up
 * (the SessionManager's `get`, the status line's check that a session exists, the store's import), so that
 * no fold reaches into another's helpers for it. Below them all: it imports the registry and the protocol only.
 */
import { basename } from 'node:path';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import { loadCodec } from './registry.js';

/** The native id a file's path tells, else its name without extension. */
export function fileSessionId(file: SessionFile): string {
  return file.sessionId ?? basename(file.path).replace(/\.[^.]+$/, '');
}

/** The file under `roots` that holds session `id` (the codec's `locate`, else the ids of its listing); undefined when none. */
export async function findSessionFile(codec: Codec, roots: readonly string[], id: string): Promise<SessionFile | undefined> {
  await loadCodec(codec);
  if (codec.locate !== undefined) return codec.locate(roots, id);
  for await (const f of codec.discover(roots)) if (fileSessionId(f) === id) return f;
  return undefined;
}

/** The shortest id prefix `findSessionFiles` takes: shorter ones match too much to mean one session. */
export const MIN_ID_PREFIX = 4;

/**
 * The files whose ids start with `prefix` (at most `limit`), for a user who typed the first characters of
 * an id as git takes a commit's: callers take the file when exactly one matches.
 */
export async function findSessionsByPrefix(codec: Codec, roots: readonly string[], prefix: string, limit = 6): Promise<SessionFile[]> {
  if (prefix.length < MIN_ID_PREFIX) return [];
  await loadCodec(codec);
  const found: SessionFile[] = [];
  for await (const f of codec.discover(roots)) {
    if (!fileSessionId(f).startsWith(prefix)) continue;
    found.push(f);
    if (found.length >= limit) break;
  }
  return found;
}
