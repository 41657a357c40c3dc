/**
 * Lines that hold several JSON values glued together (`{…}{…}`): some agents (Qwen Code) append a record
 * without the line feed before it after a crash or a concurrent write. The splitter finds where each
 * top-level object or array ends by bytes alone (structural characters are ASCII, so UTF-8 needs no decoding),
 * and a core parses each piece at its own byte offset.
 */
import { countOrZero } from './sane.js';

/** One top-level value inside a line: `[start, end)` byte indexes into the line. */
export interface GluedPiece {
  start: number;
  end: number;
}

const SPACE = new Set([0x20, 0x09, 0x0d, 0x0a]);

/** Where the value starting at `i` (a `{` or `[`) ends, or -1 when the line ends first. */
function valueEnd(line: Uint8Array, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < line.length; j++) {
    const c = line[j]!;
    if (inString) {
      if (c === 0x5c) j++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * The top-level values of a line, in order. Anything that is not an object or array (or an unterminated
 * one) becomes the last piece as it is, so that parsing it fails and the caller counts it as malformed.
 */
export function splitGluedJson(line: Uint8Array): GluedPiece[] {
  const out: GluedPiece[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && SPACE.has(line[i]!)) i++;
    if (i >= line.length) break;
    const c = line[i]!;
    const end = c === 0x7b || c === 0x5b ? valueEnd(line, i) : -1;
    if (end === -1) {
      out.push({ start: i, end: line.length });
      break;
    }
    out.push({ start: i, end });
    i = end;
  }
  return out;
}

/** A sane token count (sane.ts): anything else (a string, -1, 1.5, NaN) is 0. */
export const tokenCount = countOrZero;

/** The value when it is a string that parses as a date (ISO-8601 as agents write it), else undefined. */
export function dateString(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && !Number.isNaN(Date.parse(v)) ? v : undefined;
}
