/**
 * OpenClaw's `sessions.json` (a map of session key -> SessionEntry, `src/config/sessions/types.ts`) as the
 * session metadata of one transcript: its key, its title (`label`, else `displayName`, else `subject`), its
 * channel, and whether a subagent spawned it (a `:subagent:` key or `spawnedBy`, the spawning key). One parse per index file and version of it (size and mtime): a scan reads every transcript of
 * a folder against the same index.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { jsonObject } from '../../cursors/core.js';
import type { PiSessionMeta } from '../pi/index.js';
import { indexPathFor, openclawSessionId } from './paths.js';

type Index = Map<string, PiSessionMeta>;

const cache = new Map<string, { size: number; mtimeMs: number; index: Index }>();
const MAX_CACHED = 64;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The index of a parsed `sessions.json`: by session id and by transcript file name. */
export function parseSessionsIndex(text: string): Index {
  const index: Index = new Map();
  const doc = jsonObject(text);
  if (doc === undefined) return index;
  const entries = Object.entries(doc).filter((kv): kv is [string, Record<string, unknown>] => kv[1] !== null && typeof kv[1] === 'object' && !Array.isArray(kv[1]));
  const idOfKey = new Map(entries.map(([key, entry]) => [key, str(entry.sessionId)]));
  for (const [key, entry] of entries) {
    const origin = (entry.origin !== null && typeof entry.origin === 'object' ? entry.origin : {}) as Record<string, unknown>;
    const meta: PiSessionMeta = { sessionKey: key };
    const title = str(entry.label) ?? str(entry.displayName) ?? str(entry.subject) ?? str(origin.label);
    const channel = str(entry.channel) ?? str(entry.lastChannel) ?? str(origin.provider);
    if (title !== undefined) meta.title = title;
    if (channel !== undefined) meta.channel = channel;
    const spawnedBy = str(entry.spawnedBy);
    if (key.includes(':subagent:') || spawnedBy !== undefined) meta.subagent = true;
    const parentId = spawnedBy === undefined ? undefined : idOfKey.get(spawnedBy);
    if (parentId !== undefined) meta.parentId = parentId;
    const id = str(entry.sessionId);
    const file = str(entry.sessionFile);
    if (file !== undefined) index.set(`file:${basename(file)}`, meta);
    if (id !== undefined) index.set(`id:${id}`, meta);
  }
  return index;
}

/** The entry of one transcript: by its file name, else by the session id its name gives. */
export function metaOf(index: Index, file: string): PiSessionMeta | undefined {
  const id = openclawSessionId(file);
  return index.get(`file:${basename(file)}`) ?? index.get(`id:${id}`) ?? index.get(`id:${id.replace(/-topic-.*$/, '')}`);
}

function remember(path: string, size: number, mtimeMs: number, text: string): Index {
  const index = parseSessionsIndex(text);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(path, { size, mtimeMs, index });
  return index;
}

/** The metadata of a transcript from the `sessions.json` beside it (undefined without one). */
export async function readOpenclawMeta(file: string): Promise<PiSessionMeta | undefined> {
  const path = indexPathFor(file);
  try {
    const s = await stat(path);
    const hit = cache.get(path);
    if (hit !== undefined && hit.size === s.size && hit.mtimeMs === s.mtimeMs) return metaOf(hit.index, file);
    return metaOf(remember(path, s.size, s.mtimeMs, await readFile(path, 'utf8')), file);
  } catch {
    return undefined;
  }
}

/** `readOpenclawMeta`, synchronously (`lineCoreFor`). */
export function readOpenclawMetaSync(file: string): PiSessionMeta | undefined {
  const path = indexPathFor(file);
  try {
    const s = statSync(path);
    const hit = cache.get(path);
    if (hit !== undefined && hit.size === s.size && hit.mtimeMs === s.mtimeMs) return metaOf(hit.index, file);
    return metaOf(remember(path, s.size, s.mtimeMs, readFileSync(path, 'utf8')), file);
  } catch {
    return undefined;
  }
}
