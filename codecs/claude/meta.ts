/**
 * The subagent sidecar `agent-<id>.meta.json` (Claude Code 2.1+): read by the codec's `read()` before the
 * transcript, and passed to the pure core, which puts it on the session event (agentType, spawnDepth, the
 * spawning subagent as forkedFrom, the Task description as the fallback title). It is declared by
 * `getParseDependencies`, so the event cache re-reads the transcript when the sidecar changes.
 *
 * A missing, oversized or unreadable sidecar is not an error of the transcript: the read goes on without it.
 */
import { open } from 'node:fs/promises';
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

/** Read and parse a sidecar; undefined when there is none or it cannot be used. */
export async function readSubagentMeta(path: string): Promise<SubagentMeta | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.allocUnsafe(MAX_META_BYTES + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > MAX_META_BYTES) return undefined;
    return extractSubagentMeta(JSON.parse(buf.toString('utf8', 0, n)));
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}
