/**
 * Sessions of any agent into the store: `importSession` (the CLI's `store save`) and `forkAgentSession`
 * (`sessions fork`). The session is read through the registry like any fold reads it, once (the manager's
 * `getWithUsage`: get() with the usage events its fold keeps, as `SessionManager.export` reads it), and
 * written as one family: transcript, meta, usage log, model changes, git metadata, and the subagents it
 * spawned, each with its lineage.
 *
 * Cost is never counted twice beside the source: the transcript is `renderJsonl` with the session's usage
 * events, so every event keeps its origin's dedup key and time. Those events, and the usage log, are the
 * session's own: a file can also hold another session's usage (a Claude transcript's copies of its
 * subagents' responses), which is that session's, stored with it when it is a subagent of the family.
 */
import { dirname, sep } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { SessionfoldError, invalidOption } from '../../cursors/protocol/errors.js';
import { getCodec } from '../registry.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';
import { fileSessionId } from '../session-file.js';
import { renderJsonl } from '../sessions/export.js';
import { resolveUnifiedId } from '../sessions/ids.js';
import { createSessionManager } from '../sessions/manager.js';
import type { Session, SessionManagerOptions } from '../sessions/types.js';
import { isWritableName, validateWriteName } from './names.js';
import type { SessionStore } from './store.js';
import { setHeader, truncateMessages } from './transcript.js';
import { STORE_RECORD_VERSION, type FamilyWrite, type ForkProvenance, type GitMetadataRecord, type ModelChangeRecord, type SubagentLineage } from './types.js';

/** How `importSession` copies a session of another agent into the store: its name, title, subagents, and whether it may replace one. */
export interface ImportOptions {
  /** The store name (default: the agent's session id, when it is a valid name). */
  name?: string;
  /** Default: the session's title. */
  title?: string;
  /** Replace a stored session of the same name. Default false (INVALID_OPTION when taken). */
  overwrite?: boolean;
  /** Store the subagents the session spawned. Default true. */
  subagents?: boolean;
  /** How to reach the agents' sessions (env, roots, …); default: the process's. */
  manager?: SessionManagerOptions;
}

/** What `importSession` stored: the name, the messages and subagents copied. */
export interface ImportResult {
  name: string;
  title: string;
  messages: number;
  usageEvents: number;
  subagents: string[];
}

/** Where the model changed between messages. */
export function modelChanges(s: Session): ModelChangeRecord[] {
  const out: ModelChangeRecord[] = [];
  let model: string | undefined;
  s.messages.forEach((m, i) => {
    if (m.role !== 'assistant' || m.model === undefined || m.model === model) return;
    if (model !== undefined) out.push({ messageIndex: i, ...(m.timestamp !== undefined && { timestamp: m.timestamp.toISOString() }), from: model, to: m.model });
    model = m.model;
  });
  return out;
}

function gitMetadata(s: Session): GitMetadataRecord | undefined {
  const value = sessionField(s, 'gitBranch');
  const branch = typeof value === 'string' ? value : undefined;
  if (branch === undefined && s.cwd === undefined) return undefined;
  return { ...(s.cwd !== undefined && { cwd: s.cwd }), ...(branch !== undefined && { branch }) };
}

/** The last value of a session-event field. */
function sessionField(s: Session, field: string): unknown {
  return s.raw?.sessionEvents.map((e) => e[field]).filter((v) => v !== undefined).pop();
}

/** A session and its own usage events, from one read of its file. */
interface Read {
  session: Session;
  events: UsageEvent[];
}

/** Read one session of `agent` with its usage events, through a manager with the caller's options. */
function sessionReader(agent: string, options: SessionManagerOptions): (id: string) => Promise<Read> {
  const manager = createSessionManager(options);
  return async (id) => {
    const { session, usageEvents } = await manager.getWithUsage(agent, id);
    return { session, events: usageEvents };
  };
}

/**
 * The subagent sessions `parent` spawned, directly or through another subagent: subagent files below the
 * parent's folder whose session names the parent (or an included subagent) as `forkedFrom`.
 */
async function findSubagents(read: (id: string) => Promise<Read>, agent: string, parent: Session, options: SessionManagerOptions): Promise<Read[]> {
  const codec = getCodec(agent);
  const file = parent.raw?.file;
  if (file === undefined) return [];
  const dir = dirname(file) + sep;
  const roots = options.roots?.[codec.id] ?? codec.defaultRoots(options.env ?? process.env);
  const files: SessionFile[] = [];
  for await (const f of codec.discover(roots)) if (f.subagent === true && f.path.startsWith(dir)) files.push(f);
  // a folder named after the session holds all its subagents (Claude Code 2.1+): read only those then
  const own = files.filter((f) => f.path.startsWith(`${dir}${parent.sessionId}${sep}`));
  const candidates: Read[] = [];
  for (const f of own.length > 0 ? own : files) {
    try {
      candidates.push(await read(fileSessionId(f)));
    } catch {
      // unreadable or vanished: not stored, as a read of it would not count it either
    }
  }
  const ids = new Set([parent.sessionId]);
  const out: Read[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of candidates) {
      const s = c.session;
      if (ids.has(s.sessionId) || s.forkedFrom === undefined || !ids.has(s.forkedFrom)) continue;
      ids.add(s.sessionId);
      out.push(c);
      grew = true;
    }
  }
  return out;
}

/** Import `<agent>:<id>` (see the file header). SESSION_NOT_FOUND, AGENT_NOT_FOUND, INVALID_OPTION. */
export async function importSession(store: SessionStore, agent: string, id: string, options: ImportOptions = {}): Promise<ImportResult> {
  const codec = getCodec(agent);
  if (codec.id === 'store') throw invalidOption('agent', 'an agent other than the store (fork a stored session instead)', agent);
  const name = options.name ?? id;
  if (options.name === undefined && !isWritableName(name)) throw invalidOption('name', `a store name (session id "${id}" cannot be one; pass --name)`, id);
  validateWriteName(name);
  const mo = options.manager ?? {};
  const read = sessionReader(codec.id, mo);
  const parent = await read(id);
  const session = parent.session;
  const family = familyOf(codec.id, parent);
  const subagents: NonNullable<FamilyWrite['subagents']>[number][] = [];
  if (options.subagents !== false) {
    for (const { session: child, events } of await findSubagents(read, codec.id, session, mo)) {
      if (!isWritableName(child.sessionId)) throw new SessionfoldError('INVALID_OPTION', `Subagent id "${child.sessionId}" of ${codec.id}:${id} cannot be a store name`);
      const lineage: SubagentLineage = {
        version: STORE_RECORD_VERSION,
        parent: name,
        child: child.sessionId,
        origin: { agent: codec.id, sessionId: child.sessionId, ...(child.raw?.file !== undefined && { file: child.raw.file }) },
        ...(child.forkedFrom !== undefined && { spawnedBy: child.forkedFrom }),
        ...(typeof sessionField(child, 'agentType') === 'string' && { agentType: sessionField(child, 'agentType') as string }),
        ...(typeof sessionField(child, 'spawnDepth') === 'number' && { spawnDepth: sessionField(child, 'spawnDepth') as number }),
      };
      subagents.push({ id: child.sessionId, transcript: familyOf(codec.id, { session: child, events }).transcript, lineage });
    }
  }
  const title = options.title ?? session.title;
  await store.saveFamily(name, { ...family, title, subagents }, { overwrite: options.overwrite === true });
  return { name, title, messages: session.messages.length, usageEvents: family.usage?.length ?? 0, subagents: subagents.map((c) => c.id) };
}

/** A session's family without a title (transcript, origin, usage log, model changes, git metadata). */
function familyOf(agent: string, { session: s, events }: Read): Omit<FamilyWrite, 'title'> {
  const changes = modelChanges(s);
  const git = gitMetadata(s);
  return {
    transcript: renderJsonl(s, events),
    origin: { agent, sessionId: s.sessionId, ...(s.raw?.file !== undefined && { file: s.raw.file }) },
    usage: events,
    ...(changes.length > 0 && { modelChanges: changes }),
    ...(git !== undefined && { git }),
  };
}

/** How `forkAgentSession` forks a session of any agent into the store: the message to cut at, the name and title. */
export interface AgentForkOptions {
  /** Keep the first N messages (default: all). */
  at?: number;
  /** Default `<id>-fork-<timestampMs>`. */
  name?: string;
  title?: string;
  /** Default now. */
  timestampMs?: number;
  manager?: SessionManagerOptions;
}

/**
 * Fork `<agent>:<id>` into the store: its first `at` messages as a new session with fork provenance
 * (`from` = the unified id). The agent's files are only read.
 */
export async function forkAgentSession(store: SessionStore, agent: string, id: string, options: AgentForkOptions = {}): Promise<ForkProvenance> {
  const codec = getCodec(agent);
  const timestampMs = options.timestampMs ?? Date.now();
  if (options.at !== undefined && (!Number.isSafeInteger(options.at) || options.at < 0)) throw invalidOption('at', 'a non-negative integer', options.at);
  const name = options.name ?? `${id}-fork-${timestampMs}`;
  validateWriteName(name, 'fork name');
  if (codec.id === 'store') {
    const from = id;
    return store.fork(from, name, options.title ?? `${(await store.loadMeta(from))?.title ?? from} (fork)`, options.at, timestampMs);
  }
  const read = await sessionReader(codec.id, options.manager ?? {})(id);
  const session = read.session;
  const family = familyOf(codec.id, read);
  const cut = truncateMessages(family.transcript, options.at);
  const from = resolveUnifiedId(codec.id, id);
  const fork: ForkProvenance = {
    version: STORE_RECORD_VERSION,
    from,
    fromArchived: false,
    ...(family.origin !== undefined && { fromOrigin: family.origin }),
    to: name,
    ...(options.at !== undefined && { truncatedAtMessage: options.at }),
    messagesKept: cut.kept,
    sourceMessages: cut.total,
    forkedAtMs: timestampMs,
  };
  const title = options.title ?? `${session.title || id} (fork)`;
  const { usage: _usage, modelChanges: _changes, ...rest } = family;
  await store.saveFamily(name, { ...rest, transcript: setHeader(cut.text, { forkedFrom: from }), title, fork });
  return fork;
}
