/** Every `.jsonl` file under a folder, sorted (fixture trees). */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function jsonlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await jsonlFiles(p)));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}

/** `jsonlFiles` synchronously, for a suite's top level; [] for a folder that is not there (../shared absent). */
export function jsonlFilesSync(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Every entry under a folder as `path:size:mtimeMs`, sorted: equal before and after a command that must only read. */
export async function treeListing(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    const s = await stat(p);
    out.push(`${p}:${s.size}:${s.mtimeMs}`);
  }
  return out.sort();
}

/** `treeListing` of each folder with a SHA-256 of every file's bytes beside it, sorted: a byte-for-byte check of agents' folders. */
export async function treeDigests(dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    out.push(...(await treeListing(dir)));
    for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (e.isFile()) out.push(`${join(e.parentPath, e.name)}#${createHash('sha256').update(await readFile(join(e.parentPath, e.name))).digest('hex')}`);
    }
  }
  return out.sort();
}

/** `fn` given a fresh temp folder (named from `prefix`), removed after whatever `fn` does. */
export async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
