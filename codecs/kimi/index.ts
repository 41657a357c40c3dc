/**
 * `kimi`: the two Kimi CLIs. Kimi Code (MoonshotAI/kimi-code): each session is a folder holding `state.json`
 * (title, work dir, the agents) and one `wire.jsonl` per agent, `agents/main/wire.jsonl` and
 * `agents/agent-<n>/wire.jsonl` per subagent. The Python kimi-cli (MoonshotAI/kimi-cli): a session folder holds
 * `wire.jsonl` and `state.json`, each subagent `subagents/<id>/{wire.jsonl,meta.json}`, and its share folder's
 * `config.toml` names the model its wires do not, its `kimi.json` the work dir. Every wire is append-only JSONL,
 * read with byte-exact resume; the files that describe it are parse dependencies.
 */
import { join } from 'node:path';
import type { Codec, ReadOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../../cursors/protocol/events.js';
import { FILE, listTree } from '../../cursors/list-dir.js';
import { fromSyncListing } from '../../cursors/discovery.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import { readSmallJsonSync } from '../../cursors/read-file.js';
import { msTime } from '../../cursors/json-value.js';
import { CODEC_ID, createKimiCore, type KimiMeta } from './parse.js';
import { cliDefaultModel, cliWorkDir } from './cli-share.js';
import { CLI_CONFIG_FILE, CLI_METADATA_FILE, parseWirePath, shareFilesOf, wireSessionId, type WirePath } from './paths.js';
import type { CliSessionState, CliSubagentMeta } from './schema.js';
import { isoSeconds } from './values.js';
import { kimiDescriptor } from './descriptor.js';

export { createKimiCore, type KimiMeta } from './parse.js';
export { getKimiRoots, parseWirePath } from './paths.js';

/** state.json and meta.json are a few kilobytes at most; anything larger than this is not one. */
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
  const created = !main ? undefined : typeof st.createdAt === 'string' && !Number.isNaN(Date.parse(st.createdAt)) ? new Date(st.createdAt).toISOString() : msTime(st.createdAt);
  return {
    ...(main && typeof st.title === 'string' && st.title !== '' && { title: st.title }),
    ...(typeof st.workDir === 'string' && st.workDir !== '' && { cwd: st.workDir }),
    ...(created !== undefined && { startedAt: created }),
    ...(typeof parent === 'string' && { parentAgentId: parent }),
  };
}

/**
 * What kimi-cli's file beside a wire says: a main agent's state.json its `custom_title`; a subagent's meta.json
 * its type, when it was created and the work dir it was given, if any. `workDir` is the session's (kimi.json's,
 * by the MD5 in the folder's name): the cwd, but for a subagent given its own.
 */
export function readKimiCliMeta(path: string, agentId: string, workDir?: string): KimiMeta {
  const cwd = workDir !== undefined ? { cwd: workDir } : {};
  const j = readSmallJson(path);
  if (j === undefined) return cwd;
  if (agentId === 'main') {
    const title = (j as CliSessionState).custom_title;
    return { ...(typeof title === 'string' && title !== '' && { title }), ...cwd };
  }
  const m = j as CliSubagentMeta;
  const startedAt = isoSeconds(m.created_at);
  const own = m.launch_spec?.work_dir;
  return {
    ...(typeof m.subagent_type === 'string' && m.subagent_type !== '' && { agentType: m.subagent_type }),
    ...(startedAt !== undefined && { startedAt }),
    ...(typeof own === 'string' && own !== '' ? { cwd: own } : cwd),
  };
}

function metaOf(p: WirePath): KimiMeta {
  if (p.statePath === undefined) return {};
  if (p.layout !== 'kimi-cli') return readKimiMeta(p.statePath, p.agentId);
  const workDir = p.shareDir === undefined || p.workDirKey === undefined ? undefined : cliWorkDir(join(p.shareDir, CLI_METADATA_FILE), p.workDirKey);
  return readKimiCliMeta(p.statePath, p.agentId, workDir);
}

/** The line engine for one wire file, with the JSON file beside it and, for kimi-cli, its share folder's files. */
function coreFor(file: string) {
  const p = parseWirePath(file);
  const fallbackModel = p.shareDir === undefined ? undefined : cliDefaultModel(join(p.shareDir, CLI_CONFIG_FILE));
  return createKimiCore({ sessionId: wireSessionId(p), ...(p.agentId !== 'main' && { parentSessionId: p.sessionId }), meta: metaOf(p), imported: p.imported, fallbackModel });
}

/**
 * `Codec.dependencyStamp`: kimi-cli's config.toml stamped by the default model it names, its kimi.json by the
 * session's work dir, the two things a wire takes from them; any other file by its stat.
 */
function dependencyStamp(file: string, dependency: string): string | undefined {
  const p = parseWirePath(file);
  if (p.shareDir === undefined) return undefined;
  if (dependency === join(p.shareDir, CLI_CONFIG_FILE)) return `model:${cliDefaultModel(dependency) ?? ''}`;
  if (dependency === join(p.shareDir, CLI_METADATA_FILE)) return `cwd:${(p.workDirKey !== undefined && cliWorkDir(dependency, p.workDirKey)) || ''}`;
  return undefined;
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

/** Kimi Code and kimi-cli: `~/.kimi-code/sessions`, `~/.kimi/sessions` and `~/.kimi/imported_sessions` (`KIMI_CODE_HOME`, `KIMI_SHARE_DIR`); see its README. */
export const kimi: Codec = {
  ...kimiDescriptor,
  ...fromSyncListing(discoverSync),
  getParseDependencies(file: string): string[] {
    const p = parseWirePath(file);
    return p.statePath === undefined ? [] : [p.statePath, ...shareFilesOf(p)];
  },
  dependencyStamp,
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
