/**
 * `kimi`: Kimi Code CLI (MoonshotAI/kimi-cli). Each session is a folder holding `state.json` (title, work
 * dir, the agents) and one `wire.jsonl` per agent: `agents/main/wire.jsonl`, and `agents/agent-<n>/wire.jsonl`
 * per subagent. The wire is append-only JSONL, read with byte-exact resume; state.json is a parse dependency.
 */
import { join } from 'node:path';
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { FILE, listTree } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { readSmallJsonSync } from '../../cursors/read-file.js';
import { CODEC_ID, createKimiCore, isoTime, type KimiMeta } from './parse.js';
import { parseWirePath, wireSessionId } from './paths.js';
import { kimiDescriptor } from './descriptor.js';

export { createKimiCore, type KimiMeta } from './parse.js';
export { getKimiRoots, parseWirePath } from './paths.js';

/** state.json is well under a kilobyte; anything larger than this is not one. */
const MAX_STATE_BYTES = 256 * 1024;

/** One buffer for every state.json read: the read is synchronous, so no two reads share it at once. */
let stateBuf: Buffer | undefined;

function readSmallJson(path: string): Record<string, unknown> | undefined {
  const v = readSmallJsonSync(path, (stateBuf ??= Buffer.allocUnsafe(MAX_STATE_BYTES + 1)));
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * What state.json says about one agent's wire (a missing or broken state.json says nothing). Its title and
 * `createdAt` are the session's, so they are the main agent's: a subagent starts later, and its own wire's
 * `metadata.created_at` says when; the work folder is the whole session's.
 */
export function readKimiMeta(statePath: string, agentId: string): KimiMeta {
  const st = readSmallJson(statePath);
  if (st === undefined) return {};
  const agents = st.agents as Record<string, { parentAgentId?: unknown }> | undefined;
  const parent = agents?.[agentId]?.parentAgentId;
  const main = agentId === 'main';
  const created = !main ? undefined : typeof st.createdAt === 'string' && !Number.isNaN(Date.parse(st.createdAt)) ? new Date(st.createdAt).toISOString() : isoTime(st.createdAt);
  return {
    ...(main && typeof st.title === 'string' && st.title !== '' && { title: st.title }),
    ...(typeof st.workDir === 'string' && st.workDir !== '' && { cwd: st.workDir }),
    ...(created !== undefined && { startedAt: created }),
    ...(typeof parent === 'string' && { parentAgentId: parent }),
  };
}

/** The line engine for one wire file, with its session's state.json. */
function coreFor(file: string) {
  const p = parseWirePath(file);
  const meta = p.statePath === undefined ? {} : readKimiMeta(p.statePath, p.agentId);
  return createKimiCore({ sessionId: wireSessionId(p), ...(p.agentId !== 'main' && { parentSessionId: p.sessionId }), meta });
}

function* discoverSync(roots: readonly string[]): Iterable<SessionFile> {
  for (const root of roots) {
    const dirs: string[] = [root];
    for (const e of listTree(root, [], 5)) {
      dirs[e.depth + 1] = join(dirs[e.depth] as string, e.name);
      if (e.kind !== FILE || e.name !== 'wire.jsonl' || e.stat === null || e.stat === undefined) continue;
      const path = dirs[e.depth + 1] as string;
      const p = parseWirePath(path);
      yield { agent: CODEC_ID, path, root, sessionId: wireSessionId(p), ...(p.agentId !== 'main' && { subagent: true }), size: e.stat.size, mtimeMs: e.stat.mtimeMs, ino: e.stat.ino, ctimeMs: e.stat.ctimeMs };
    }
  }
}

/** Kimi Code CLI: `~/.kimi-code/sessions` and `~/.kimi/sessions` (`KIMI_CODE_HOME`, `KIMI_SHARE_DIR`); see its README. */
export const kimi: Codec = {
  ...kimiDescriptor,
  ...fromSyncListing(discoverSync),
  getParseDependencies(file: string): string[] {
    const p = parseWirePath(file).statePath;
    return p === undefined ? [] : [p];
  },
  lineCore: createKimiCore({ sessionId: 'stdin' }),
  lineCoreFor: coreFor,
  read(file: string, options?: ReadOptions): AsyncIterable<SessionfoldEvent> {
    return createJsonlRead(kimiDescriptor, coreFor(file))(file, options);
  },
  resumeCommand(nativeId: string): string[] {
    return ['kimi', '--session', nativeId.split('/')[0] as string];
  },
};
export default kimi;
