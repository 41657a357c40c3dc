/** Reading values out of parsed records, shared by both wires' readers (parse.ts, cli-wire.ts). */

import { msTime, rec } from '../../cursors/json-value.js';

export { rec };

export type Rec = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Epoch seconds (Python's `time.time()`) as an ISO string; undefined for anything else. */
export function isoSeconds(v: unknown): string | undefined {
  return typeof v === 'number' ? msTime(v * 1000) : undefined;
}

/** The text parts of a content array (`{type: "text", text}`), joined; a string as it is. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => rec(p))
    .filter((p): p is Rec => p !== undefined && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}
