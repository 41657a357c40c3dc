/**
 * OpenCode's storage tree (before the database; `packages/opencode/src/storage/json-migration.ts` imports it
 * once): `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<messageID>.json`,
 * `storage/part/<messageID>/<partID>.json`. Older trees keep parts flat (`storage/part/<partID>.json`,
 * each naming its `messageID`), and some parts omit `messageID`: their folder names the message.
 * And the JSON `opencode export <id>` prints: `{ info, messages: [{ info, parts }] }`, read as a stream.
 */
import { createReadStream, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { emitMessage, sessionEvent, sortMessages, sortParts, type EmitTarget } from './parse.js';
import type { OpencodeMessageInfo, OpencodeMessageRecord, OpencodePart, OpencodeSessionInfo } from './schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function jsonFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** The storage folder of a session file `storage/session/<project>/<id>.json`, when the path is one. */
export function storageOf(sessionFile: string): string | undefined {
  const projectDir = dirname(sessionFile);
  const sessionDir = dirname(projectDir);
  if (basename(sessionDir) !== 'session' || !sessionFile.endsWith('.json')) return undefined;
  const storage = dirname(sessionDir);
  return statSync(join(storage, 'message'), { throwIfNoEntry: false })?.isDirectory() === true ? storage : undefined;
}

/** The files whose change changes a tree session's events: its message files and part folders and files. */
export function treeDependencies(sessionFile: string): string[] {
  const storage = storageOf(sessionFile);
  const info = storage === undefined ? undefined : readJson(sessionFile);
  if (storage === undefined || info === undefined || typeof info.id !== 'string') return [];
  const messageDir = join(storage, 'message', info.id);
  const out = [messageDir];
  for (const m of jsonFiles(messageDir)) {
    out.push(m);
    const msg = readJson(m);
    if (typeof msg?.id !== 'string') continue;
    const dir = join(storage, 'part', msg.id);
    out.push(dir, ...jsonFiles(dir));
  }
  return out;
}

/** Parts kept flat under `part/` (older trees), by message id. */
function flatParts(storage: string): Map<string, OpencodePart[]> {
  const out = new Map<string, OpencodePart[]>();
  for (const f of jsonFiles(join(storage, 'part'))) {
    const p = readJson(f);
    if (p === undefined || typeof p.messageID !== 'string' || typeof p.id !== 'string') continue;
    const list = out.get(p.messageID) ?? [];
    list.push(p as unknown as OpencodePart);
    out.set(p.messageID, list);
  }
  return out;
}

type FileReadCounts = CollectedRead;

/** Give each record its offsets (record ordinals: the session is 0) and emit its events. */
function emitAll(info: OpencodeSessionInfo, messages: OpencodeMessageRecord[], out: EmitTarget): void {
  if (out.kinds.has('session')) out.emit(sessionEvent(info, 0, out.agent));
  let next = 1;
  const own: EmitTarget = { ...out, sessionCreated: typeof info.time?.created === 'number' ? info.time.created : undefined };
  for (const rec of sortMessages(messages)) {
    rec.offset = next++;
    rec.partOffsets = rec.parts.map(() => next++);
    emitMessage(rec, info.id, own);
  }
}

function sessionInfoOf(v: Record<string, unknown> | undefined, file: string): OpencodeSessionInfo {
  if (v === undefined || typeof v.id !== 'string' || v.id === '') throw new SessionfoldError('PARSE_ERROR', `Not an OpenCode session: ${file}`, { agent: 'opencode', file });
  return v as unknown as OpencodeSessionInfo;
}

/** A session of a storage tree, its messages and parts. */
export function readTreeSession(file: string, storage: string, target: EmitTarget): FileReadCounts {
  const out: EmitTarget = { ...target, outputHasReasoning: true };
  const counts: FileReadCounts = { records: 1, bytes: 0, skipped: 0 };
  const info = sessionInfoOf(readJson(file), file);
  const flat = flatParts(storage);
  const messages: OpencodeMessageRecord[] = [];
  for (const m of jsonFiles(join(storage, 'message', info.id))) {
    counts.records++;
    const msg = readJson(m);
    if (msg === undefined || typeof msg.id !== 'string') {
      counts.skipped++;
      continue;
    }
    const parts: { part: OpencodePart; offset: number }[] = [];
    for (const f of jsonFiles(join(storage, 'part', msg.id))) {
      counts.records++;
      const p = readJson(f);
      if (p === undefined) {
        counts.skipped++;
        continue;
      }
      parts.push({ part: { ...p, id: typeof p.id === 'string' ? p.id : basename(f, '.json'), messageID: msg.id }, offset: 0 });
    }
    for (const p of flat.get(msg.id) ?? []) parts.push({ part: p, offset: 0 });
    messages.push({ info: msg as unknown as OpencodeMessageInfo, parts: sortParts(parts).parts, offset: 0, partOffsets: [] });
  }
  emitAll(info, messages, out);
  return counts;
}

/** The JSON `opencode export` prints, parsed as a stream (an export of a long session is large). */
export async function readExport(file: string, out: EmitTarget): Promise<FileReadCounts> {
  // Loaded here (before the stream flows), not with the registry: stream-chain and stream-json's streaming
  // side take ~40 ms to load, which every command would pay for a format few histories hold.
  const [{ default: chain }, { parser }, { pick }, { streamValues }] = await Promise.all([
    import('stream-chain'),
    import('stream-json'),
    import('stream-json/filters/pick.js'),
    import('stream-json/streamers/stream-values.js'),
  ]);
  const counts: FileReadCounts = { records: 0, bytes: 0, skipped: 0 };
  let info: OpencodeSessionInfo | undefined;
  const messages: OpencodeMessageRecord[] = [];
  const stream = createReadStream(file);
  stream.on('data', (c) => void (counts.bytes += c.length));
  const pipeline = chain([stream, parser(), pick({ filter: /^(info|messages\.\d+)$/ }), streamValues()]);
  try {
    for await (const item of pipeline as AsyncIterable<{ value: unknown }>) {
      counts.records++;
      const v = item.value;
      if (isObject(v) && isObject(v.info) && Array.isArray(v.parts)) {
        const m = v.info as unknown as OpencodeMessageInfo;
        if (typeof m.id !== 'string') {
          counts.skipped++;
          continue;
        }
        const parts = (v.parts as unknown[]).filter(isObject).map((p) => ({ ...p, id: String(p.id ?? ''), messageID: m.id }) as OpencodePart);
        messages.push({ info: m, parts, offset: 0, partOffsets: [] });
      } else if (isObject(v) && info === undefined) info = sessionInfoOf(v, file);
      else counts.skipped++;
    }
  } catch (e) {
    if (e instanceof SessionfoldError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new SessionfoldError(code === 'ENOENT' ? 'SESSION_NOT_FOUND' : 'PARSE_ERROR', `Cannot read OpenCode export ${file}: ${(e as Error).message}`, { agent: 'opencode', file, cause: e });
  }
  if (info === undefined) throw new SessionfoldError('PARSE_ERROR', `Not an OpenCode export (no "info"): ${file}`, { agent: 'opencode', file });
  emitAll(info, messages, out);
  return counts;
}
