/**
 * The store's view of a sessionfold-jsonl transcript (codecs/sessionfold-jsonl): a header line, then one
 * line per message, usage-only lines (`orphanUsage`) among them. The store only counts message lines, cuts
 * after the first N, and patches the header; it leaves every other line byte for byte as it was.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { HEADER_TYPE, MESSAGE_TYPE } from '../../cursors/protocol/sessionfold-jsonl.js';

function parseLine(line: string): Record<string, unknown> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A message line (a usage-only line is not one). Cheap: the type marker is looked for before parsing. */
function isMessageLine(line: string): boolean {
  if (!line.includes(MESSAGE_TYPE)) return false;
  const r = parseLine(line);
  return r !== undefined && r.type === MESSAGE_TYPE && r.orphanUsage !== true;
}

/** The header record of a transcript's first line, when it has one. */
export function headerOf(text: string): Record<string, unknown> | undefined {
  const nl = text.indexOf('\n');
  const r = parseLine(nl < 0 ? text : text.slice(0, nl));
  return r?.type === HEADER_TYPE ? r : undefined;
}

/** The transcript with `patch` merged into its header; unchanged when it has no header. */
export function setHeader(text: string, patch: Record<string, unknown>): string {
  const h = headerOf(text);
  if (h === undefined) return text;
  const nl = text.indexOf('\n');
  const next = JSON.stringify({ ...h, ...patch });
  return nl < 0 ? next : next + text.slice(nl);
}

/** How many message lines the transcript holds. */
export function countMessages(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (isMessageLine(line)) n++;
  return n;
}

/**
 * The transcript up to (not including) its message line number `keep` (0-based), or whole when `keep` is
 * undefined; with how many messages it kept and held.
 */
export function truncateMessages(text: string, keep: number | undefined): { text: string; kept: number; total: number } {
  const cut = cutMessages(Buffer.from(text, 'utf8'), keep);
  return { text: cut.kept === cut.total ? text : cut.bytes.toString('utf8'), kept: cut.kept, total: cut.total };
}

/**
 * `truncateMessages` over bytes: the exact byte prefix before message line `keep` (the whole buffer when
 * `keep` is undefined or past the end), so a fork is the source's bytes, line ends and any byte that is no
 * UTF-8 included.
 */
export function cutMessages(bytes: Buffer, keep: number | undefined): { bytes: Buffer; kept: number; total: number } {
  let total = 0;
  let cutAt = -1;
  for (let start = 0; start < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl + 1;
    if (isMessageLine(bytes.toString('utf8', start, end))) {
      if (keep !== undefined && total === keep && cutAt < 0) cutAt = start;
      total++;
    }
    start = end;
  }
  if (cutAt < 0) return { bytes, kept: total, total };
  return { bytes: bytes.subarray(0, cutAt), kept: keep as number, total };
}

/** The first 64 KiB of a file (enough for its header line), '' when it cannot be read. */
export function readHead(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
