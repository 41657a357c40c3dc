/**
 * Golden event files: a read's events as checked-in JSONL, rewritten first when UPDATE_GOLDEN=1. Compared as
 * values (an undefined field equals an absent one, as in the JSON); and every usage event is checked to be on
 * `blankUsageEvent()`'s one shape: all its fields, in its order (cursors/protocol/events.ts).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { blankUsageEvent, type SessionfoldEvent } from '../../cursors/protocol/events.js';

const USAGE_KEYS = Object.keys(blankUsageEvent());

export async function expectGolden(dir: string, name: string, events: readonly SessionfoldEvent[]): Promise<void> {
  const path = join(dir, `${name}.events.jsonl`);
  if (process.env.UPDATE_GOLDEN === '1') {
    await mkdir(dir, { recursive: true });
    await writeFile(path, events.map((e) => JSON.stringify(e) + '\n').join(''));
  }
  const golden = (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
  expect(events).toEqual(golden);
  expectUsageShape(events);
}

/** Every usage event of `events` has `blankUsageEvent()`'s keys, in its order (and the check is not vacuous when `some`). */
export function expectUsageShape(events: readonly SessionfoldEvent[], some = false): void {
  const usage = events.filter((e) => e.type === 'usage');
  if (some) expect(usage.length).toBeGreaterThan(0);
  const shapes = new Set(usage.map((e) => Object.keys(e).join(',')));
  expect([...shapes].filter((keys) => keys !== USAGE_KEYS.join(','))).toEqual([]);
}
