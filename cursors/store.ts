/**
 * A durable store of cursors keyed by file (vector's file checkpointer): one versioned JSON document
 * `{version: 1, cursors: {<file>: ReadCursor}}`, saved atomically (write `<path>.tmp`, fsync, rename over
 * `<path>`), loaded temp-first so a crash between write and rename loses nothing. A save with nothing
 * changed is skipped. The store's path and its temp are replaced only while they hold cursor documents.
 */
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ReadCursor } from './protocol/codec.js';
import { SessionfoldError } from './protocol/errors.js';

export const CURSOR_STORE_VERSION = 1;

/** The stored document of a CursorStore: versioned, one cursor per file. */
export interface CursorDocument {
  version: typeof CURSOR_STORE_VERSION;
  cursors: Record<string, ReadCursor>;
}

async function readDoc(path: string): Promise<CursorDocument | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SessionfoldError('IO_ERROR', `Cannot read cursor store ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined; // a torn temp file: fall back to the stable one
  }
  return isCursorDocument(doc) ? doc : undefined;
}

/**
 * A store's text, of any version, or torn by a crash mid-write (a prefix of what `#serialize` writes, which
 * always begins so).
 */
function isStoreText(text: string): boolean {
  const head = '{"version":';
  return text.startsWith(head) || head.startsWith(text);
}

function isCursorDocument(doc: unknown): doc is CursorDocument {
  const d = doc as Partial<CursorDocument> | null;
  return d !== null && typeof d === 'object' && d.version === CURSOR_STORE_VERSION && typeof d.cursors === 'object' && d.cursors !== null;
}

/** A cursor of a resumable read (JSONL or SQLite), by its shape. */
export function isReadCursor(v: unknown): v is ReadCursor {
  const o = v as Record<string, unknown> | null;
  if (o === null || typeof o !== 'object' || Array.isArray(o) || o.version !== 1 || typeof o.parser !== 'string') return false;
  if (o.format === 'jsonl') return typeof o.offset === 'number' && typeof o.prefixHash === 'string';
  return o.format === 'sqlite' && typeof o.watermark === 'object' && o.watermark !== null;
}

/**
 * The text of the file at `path` that sessionfold means to replace later, when it is provably its own:
 * undefined when there is none (absent or empty); the text when `isOwn(text)`; otherwise a
 * CURSOR_INVALID naming the path, so that a path the user named (`read --cursor`) is never overwritten
 * unless it holds what sessionfold wrote there. A FIFO, a device or a folder is refused without opening it.
 */
export async function readOwnFile(path: string, what: string, isOwn: (text: string) => boolean): Promise<string | undefined> {
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new SessionfoldError('IO_ERROR', `Cannot read ${what} ${path}: ${e.message}`, { file: path, cause: e });
  });
  if (st === undefined) return undefined;
  const refuse = (why: string) => new SessionfoldError('CURSOR_INVALID', `${path} is not a sessionfold ${what} (${why}): it is left as it is; name another file`, { file: path });
  if (!st.isFile()) throw refuse('not a regular file');
  if (st.size === 0) return undefined;
  if (st.size > MAX_OWN_FILE_BYTES) throw refuse(`${st.size} bytes`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SessionfoldError('IO_ERROR', `Cannot read ${what} ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
  if (!isOwn(text)) throw refuse('not a document of its shape');
  return text;
}

/** `readOwnFile`'s test for a JSON document `shape` accepts. */
export function jsonOf(shape: (v: unknown) => boolean): (text: string) => boolean {
  return (text) => {
    try {
      return shape(JSON.parse(text));
    } catch {
      return false;
    }
  };
}

/** Larger than any cursor file sessionfold writes: such a file is not one. */
const MAX_OWN_FILE_BYTES = 64 << 20;

/** Write `data` to `path` atomically: temp file, fsync, rename. */
export async function writeFileAtomic(path: string, data: string, tmp = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // A temp name of this write alone, created exclusively: never a file that was there before.
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await rename(tmp, path);
}

/** Cursors of many files in one JSON document, saved atomically (temp file, fsync, rename). */
export class CursorStore {
  readonly path: string;
  #cursors = new Map<string, ReadCursor>();
  #saved = '';

  private constructor(path: string) {
    this.path = path;
  }

  /** Load `<path>.tmp` if it is a complete document, else `<path>`, else start empty. */
  static async open(path: string): Promise<CursorStore> {
    const store = new CursorStore(path);
    // The stable file is one the caller named: one that is not a cursor document is never overwritten.
    await readOwnFile(path, 'cursor store', isStoreText);
    const doc = (await readDoc(`${path}.tmp`)) ?? (await readDoc(path));
    if (doc) for (const [k, v] of Object.entries(doc.cursors)) store.#cursors.set(k, v);
    store.#saved = store.#serialize();
    return store;
  }

  get(file: string): ReadCursor | undefined {
    return this.#cursors.get(file);
  }

  set(file: string, cursor: ReadCursor): void {
    this.#cursors.set(file, cursor);
  }

  delete(file: string): boolean {
    return this.#cursors.delete(file);
  }

  get size(): number {
    return this.#cursors.size;
  }

  files(): string[] {
    return [...this.#cursors.keys()];
  }

  #serialize(): string {
    const cursors: Record<string, ReadCursor> = {};
    for (const k of [...this.#cursors.keys()].sort()) cursors[k] = this.#cursors.get(k) as ReadCursor;
    return JSON.stringify({ version: CURSOR_STORE_VERSION, cursors } satisfies CursorDocument);
  }

  /** Save atomically; returns false when nothing changed since the last load or save. */
  async save(): Promise<boolean> {
    const text = this.#serialize();
    // `<path>.tmp` is this store's own temp (loaded first after a crash): removed or replaced only when it
    // holds a cursor document.
    const tmp = `${this.path}.tmp`;
    await readOwnFile(tmp, 'cursor store', isStoreText);
    await unlink(tmp).catch(() => undefined);
    if (text === this.#saved) return false;
    await writeFileAtomic(this.path, text, tmp);
    this.#saved = text;
    return true;
  }
}
