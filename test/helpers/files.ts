/** Every `.jsonl` file under a folder, sorted (fixture trees). */
import { readdir } from 'node:fs/promises';
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
