/**
 * The least a correct incremental run must do before it can answer, in Node: start, list every session file
 * under the roots and stat it (an append shows only in the file's size). `node dist/bench/peers/floor.js
 * <dir>…` prints how many files it stat'ed, so the run that times it can check it saw them all.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

let files = 0;
function walk(dir: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.jsonl')) {
      statSync(p);
      files++;
    }
  }
}
for (const dir of process.argv.slice(2)) walk(dir);
process.stdout.write(`${files}\n`);
