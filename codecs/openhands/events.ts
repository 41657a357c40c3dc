/**
 * The file side of a conversation's `events/` folder: the SDK's `EventLog` (conversation/event_store.py) writes
 * each event once, as `event-<index, 5 or more digits>-<event id>.json` (persistence_const.py `EVENT_NAME_RE`),
 * beside its lock and count marker (`.eventlog.lock`, `.eventlog-count-<n>.marker`), which are not events.
 * Files are listed in index order and read one at a time; the conversation is never held whole.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { FILE, listDir } from '../../cursors/list-dir.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import { rec, type Rec } from './schema.js';

/** persistence_const.py `EVENT_NAME_RE`. */
const EVENT_NAME = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

export interface EventFile {
  /** The event's index in the log (its offset in sessionfold's events). */
  idx: number;
  path: string;
}

/** The event files of `dir`, by index ([] when there is no folder). */
export function listEventFiles(dir: string): EventFile[] {
  const out: EventFile[] = [];
  for (const e of listDir(dir)) {
    const m = e.kind === FILE ? EVENT_NAME.exec(e.name) : null;
    if (m !== null) out.push({ idx: Number(m[1]), path: join(dir, e.name) });
  }
  // listDir sorts by name; an index past 99999 has more digits, so the order is the index's
  return out.sort((a, b) => a.idx - b.idx);
}

/** An event file's text; an Error when it cannot be read (gone since the listing, not a regular file). */
export function readEventText(f: EventFile): string | Error {
  try {
    return readRegularFileSync(f.path);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** An event file's text as an object; an Error when it is not one (a torn write, a file gone). */
export function parseEventText(text: string | Error): Rec | Error {
  if (text instanceof Error) return text;
  try {
    return rec(JSON.parse(text)) ?? new Error('an event that is not a JSON object');
  } catch (e) {
    return e as Error;
  }
}

/** The file's mtime (epoch ms), undefined when it cannot be stat'ed. */
export function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
