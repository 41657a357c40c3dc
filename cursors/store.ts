/**
 * A durable store of cursors keyed by file (vector's file checkpointer): one versioned JSON document
 * `{version: 1, cursors: {<file>: ReadCursor}}`, saved atomically (write `<path>.tmp`, fsync, rename over
 * `<path>`), loaded temp-first so a crash between write and rename loses nothing. A save with nothing
 * changed is skipped.
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
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
  const d = doc as Partial<CursorDocument> | null;
  if (d === null || typeof d !== 'object' || d.version !== CURSOR_STORE_VERSION || typeof d.cursors !== 'object' || d.cursors === null) {
    return undefined;
  }
  return d as CursorDocument;
}

/** Write `data` to `path` atomically: temp file, fsync, rename. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
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
    if (text === this.#saved) {
      await unlink(`${this.path}.tmp`).catch(() => undefined);
      return false;
    }
    await writeFileAtomic(this.path, text);
    this.#saved = text;
    return true;
  }
}
