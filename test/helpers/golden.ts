/** Golden event files: a read's events as checked-in JSONL, rewritten first when UPDATE_GOLDEN=1. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';

export async function expectGolden(dir: string, name: string, events: readonly SessionfoldEvent[]): Promise<void> {
  const path = join(dir, `${name}.events.jsonl`);
  if (process.env.UPDATE_GOLDEN === '1') {
    await mkdir(dir, { recursive: true });
    await writeFile(path, events.map((e) => JSON.stringify(e) + '\n').join(''));
  }
  const golden = (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
  expect(events).toEqual(golden);
}
