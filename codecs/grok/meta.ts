/**
 * What the files beside a Grok Build session say of it (README "Where", "Subagents"), read by the adapter and
 * handed to the pure core: its `summary.json` (`session_kind`, `parent_session_id`), and for a workspace folder
 * named by a hash of a path too long for a name, the `.cwd` Grok writes in it. Both are a few bytes; a missing
 * or broken file says nothing, and so does one that is not a regular file (a FIFO would block the read until a
 * writer came) or is larger than `META_FILE_BYTES`.
 */
import { dirname, isAbsolute, join } from 'node:path';
import { jsonObject } from '../../cursors/core.js';
import { readRegularFileSync } from '../../cursors/read-file.js';
import type { GrokSessionMeta } from './parse.js';
import { grokWorkspace } from './paths.js';

export const SUMMARY_FILE = 'summary.json';
const CWD_FILE = '.cwd';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** Far above what Grok writes in either file: a larger one is not Grok's, and is not read into memory. */
const META_FILE_BYTES = 1 << 20;

function readText(path: string): string | undefined {
  try {
    return readRegularFileSync(path, META_FILE_BYTES);
  } catch {
    return undefined;
  }
}

/** The `summary.json` beside a session's `updates.jsonl`. */
export const grokSummaryPath = (file: string): string => join(dirname(file), SUMMARY_FILE);

/**
 * A subagent's summary: Grok names the session's kind (`subagent`, and kinds of a subagent's resume or fork,
 * all starting so) and its parent. Undefined for any other session.
 */
export function subagentOf(summaryPath: string): { parent: string | undefined } | undefined {
  const s = jsonObject(readText(summaryPath));
  const kind = str(s?.session_kind);
  return kind?.startsWith('subagent') === true ? { parent: str(s?.parent_session_id) } : undefined;
}

/** What `summary.json` gives the read, as a string: a rewrite for a new turn leaves it as it was. */
export function summaryStamp(summaryPath: string): string {
  const sub = subagentOf(summaryPath);
  return sub === undefined ? 'session' : `subagent:${sub.parent ?? ''}`;
}

/** The working folder a hash-named workspace folder's `.cwd` holds, when the folder name does not decode. */
function hashedWorkspaceCwd(file: string): string | undefined {
  if (grokWorkspace(file) !== undefined) return undefined;
  const cwd = str(readText(join(dirname(dirname(file)), CWD_FILE)));
  return cwd !== undefined && isAbsolute(cwd) ? cwd : undefined;
}

/** What the files beside `file` say of its session (none for stdin). */
export function readGrokMeta(file: string): GrokSessionMeta {
  if (file === '-') return {};
  const sub = subagentOf(grokSummaryPath(file));
  const cwd = hashedWorkspaceCwd(file);
  return { ...(sub !== undefined && { subagent: true, parent: sub.parent }), ...(cwd !== undefined && { cwd }) };
}
