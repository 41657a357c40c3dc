/**
 * Where OpenClaw keeps transcripts (openclaw/openclaw `src/config/sessions/paths.ts`):
 *   <state dir>/agents/<agentId>/sessions/sessions.json                the index: session key -> entry
 *   <state dir>/agents/<agentId>/sessions/<sessionId>.jsonl            a transcript (pi's format)
 *   <state dir>/agents/<agentId>/sessions/<sessionId>-topic-<id>.jsonl a Telegram topic's transcript
 *   …/<transcript>.jsonl.reset.<ISO time, ':' as '-'>                  a transcript archived by a reset
 *   <state dir>/agents/<agentId>/agent/openclaw-agent.sqlite          since the SQLite switch: every transcript (db.ts)
 * `<state dir>` is `$OPENCLAW_STATE_DIR` (or `$CLAWDBOT_STATE_DIR`), else each of `~/.openclaw` and the
 * legacy `~/.clawdbot`, `~/.moldbot`, `~/.moltbot` (descriptor.ts). Archives of deleted sessions
 * (`.deleted.`) and backups (`.bak.`) are not read: a backup repeats a live transcript, and a deletion was
 * the user's.
 */
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, listDir } from '../../cursors/list-dir.js';
import { recordPath } from '../../cursors/record-path.js';
import { listedFile } from '../pi/index.js';
import { CODEC_ID } from './descriptor.js';

export { CODEC_ID, getOpenclawRoots } from './descriptor.js';

/** The per-agent database, `<agents>/<agentId>/agent/openclaw-agent.sqlite`. */
export const AGENT_DB_NAME = 'openclaw-agent.sqlite';

/** A session the agent database holds rows of (db.ts `listAgentDbSessions`). */
export interface AgentDbListed {
  id: string;
  size: number;
  mtimeMs: number;
  subagent?: boolean;
}


/** `.reset.` followed by the archive time OpenClaw writes (`formatSessionArchiveTimestamp`). */
const RESET_RE = /\.jsonl\.reset\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$/;

/** True for a live transcript or a reset archive. */
export function isTranscriptName(name: string): boolean {
  return (name.endsWith('.jsonl') && !name.includes('.deleted.') && !name.includes('.bak.')) || RESET_RE.test(name);
}

/** True for a transcript archived by a reset. */
export function isResetArchive(file: string): boolean {
  return RESET_RE.test(basename(file));
}

/** The session id a transcript's name gives: the name without `.jsonl` and without a reset suffix. */
export function openclawSessionId(file: string): string {
  return basename(file).replace(RESET_RE, '').replace(/\.jsonl$/, '');
}

/** The `sessions.json` beside a transcript. */
export function indexPathFor(file: string): string {
  return join(dirname(file), 'sessions.json');
}

/** The sessions of an agent's database as record paths; one that cannot be read gives none this time. */
function* databaseSessions(db: string, root: string, listDb: (db: string) => AgentDbListed[]): Generator<SessionFile> {
  let sessions: AgentDbListed[] = [];
  try {
    sessions = listDb(db);
  } catch {
    // being replaced, or not OpenClaw's: no sessions from it this time
  }
  for (const s of sessions) {
    const f: SessionFile = { agent: CODEC_ID, path: recordPath(db, s.id), root, sessionId: s.id, size: s.size, mtimeMs: s.mtimeMs };
    if (s.subagent === true) f.subagent = true;
    yield f;
  }
}

/**
 * Every session under `<root>/agents/<agentId>/`, agent by agent: the agent database's sessions (`listDb`),
 * then the transcripts of `sessions/`, sorted by name; `isSubagent` (the index's answer, meta.ts) marks
 * subagent sessions, which lists leave out unless asked. A transcript whose session the agent's database
 * holds is left out (README.md "The agent database": a transcript restored beside the rows OpenClaw imported
 * from it). A database or transcript an earlier root already gave at the same `agents/<agentId>/…` is left
 * out: a legacy state dir that mirrors `~/.openclaw` through links, or a copy of it made by hand, holds the
 * same sessions, and the first root is the one OpenClaw writes to while it exists (`resolveStateDir`).
 */
export function* discoverOpenclaw(roots: readonly string[], isSubagent?: (file: string) => boolean, listDb?: (db: string) => AgentDbListed[]): Generator<SessionFile> {
  const seen = new Set<string>();
  const inDb = new Map<string, Set<string>>();
  for (const root of roots) {
    const agents = join(root, 'agents');
    for (const a of listDir(agents)) {
      if (a.kind !== DIR) continue;
      const ids = inDb.get(a.name) ?? inDb.set(a.name, new Set()).get(a.name) as Set<string>;
      const db = join(agents, a.name, 'agent', AGENT_DB_NAME);
      const dbInRoot = `${a.name}/agent/${AGENT_DB_NAME}`;
      if (listDb !== undefined && !seen.has(dbInRoot) && listDir(dirname(db)).some((e) => e.kind === FILE && e.name === AGENT_DB_NAME)) {
        seen.add(dbInRoot);
        for (const f of databaseSessions(db, root, listDb)) {
          ids.add(f.sessionId as string);
          yield f;
        }
      }
      const dir = join(agents, a.name, 'sessions');
      for (const e of listDir(dir)) {
        if (e.kind !== FILE || !isTranscriptName(e.name)) continue;
        const inRoot = `${a.name}/${e.name}`;
        if (seen.has(inRoot) || ids.has(openclawSessionId(e.name))) continue;
        const f = listedFile(CODEC_ID, dir, e, root, openclawSessionId(e.name));
        if (f === undefined) continue;
        seen.add(inRoot);
        if (isSubagent?.(f.path) === true) f.subagent = true;
        yield f;
      }
    }
  }
}
