/**
 * The subagent sidecar `agent-<id>.meta.json` (Claude Code 2.1+): read by the codec's `read()` before the
 * transcript, and passed to the pure core, which puts it on the session event (agentType, spawnDepth, the
 * spawning subagent as forkedFrom, the Task description as the fallback title). It is declared by
 * `getParseDependencies`, so the event cache re-reads the transcript when the sidecar changes.
 *
 * A missing, oversized or unreadable sidecar is not an error of the transcript: the read goes on without it.
 */
import { readSmallJsonSync } from '../../cursors/read-file.js';
import { isRecord, str, type SubagentMeta } from './schema.js';

/** Sidecars are ~200 bytes; anything larger than this is not one. */
export const MAX_META_BYTES = 64 * 1024;

/** The fields this codec uses from a parsed sidecar (unknown and mistyped fields are dropped). */
export function extractSubagentMeta(value: unknown): SubagentMeta | undefined {
  if (!isRecord(value)) return undefined;
  const depth = value.spawnDepth;
  const meta: SubagentMeta = {
    ...(str(value.agentType) !== undefined && { agentType: value.agentType as string }),
    ...(str(value.description) !== undefined && { description: value.description as string }),
    ...(typeof depth === 'number' && Number.isInteger(depth) && depth >= 0 && { spawnDepth: depth }),
    ...(str(value.parentAgentId) !== undefined && { parentAgentId: value.parentAgentId as string }),
  };
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** One read buffer for every sidecar (reads are synchronous, so never shared by two at once). */
const META_BUF = Buffer.allocUnsafe(MAX_META_BYTES + 1);

/**
 * Read and parse a sidecar; undefined when there is none or it cannot be used. Synchronous inside: a
 * history holds thousands of sidecars of ~200 bytes, and a promise round trip through libuv's pool per
 * open, read and close cost ~0.1 s over ~2,000 of them (one profile of a 1.8 GB history; not a benchmark).
 */
export async function readSubagentMeta(path: string): Promise<SubagentMeta | undefined> {
  return readSubagentMetaSync(path);
}

export function readSubagentMetaSync(path: string): SubagentMeta | undefined {
  return extractSubagentMeta(readSmallJsonSync(path, META_BUF));
}
