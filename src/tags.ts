/**
 * Session tags. Agents do not record tags, so sessionfold keeps them in a user file:
 * `$SESSIONFOLD_TAGS` or `$XDG_CONFIG_HOME/sessionfold/tags.json` (default `~/.config/sessionfold/tags.json`),
 * a JSON object mapping a unified id (`<agent>:<sessionId>`) or a cwd prefix (`cwd:/path`) to tag lists:
 *
 *   { "claude:0a1b…": ["billing"], "cwd:/home/me/work": ["work"] }
 */
import { readRegularFileSync } from '../cursors/read-file.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SessionfoldError } from '../cursors/protocol/errors.js';

export interface TagIndex {
  /** Tags of a session (by unified id, plus every `cwd:` prefix its cwd starts with). */
  tagsFor(agent: string, sessionId: string, cwd?: string): string[];
  readonly empty: boolean;
  /** Equal for indexes that tag every session alike (results that depend on tags are cached under it). */
  readonly fingerprint?: string;
}

export function getTagsPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SESSIONFOLD_TAGS) return env.SESSIONFOLD_TAGS;
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(config, 'sessionfold', 'tags.json');
}

export function loadTags(env: NodeJS.ProcessEnv = process.env): TagIndex {
  const path = getTagsPath(env);
  let raw: unknown = {};
  try {
    raw = JSON.parse(readRegularFileSync(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SessionfoldError('INVALID_OPTION', `Invalid tags file ${path}: ${(e as Error).message}`, { file: path });
    }
  }
  const byId = new Map<string, string[]>();
  const byCwd: [string, string[]][] = [];
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      const tags = Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
      if (k.startsWith('cwd:')) byCwd.push([k.slice(4), tags]);
      else byId.set(k, tags);
    }
  }
  return {
    empty: byId.size === 0 && byCwd.length === 0,
    fingerprint: JSON.stringify([[...byId].sort((a, b) => (a[0] < b[0] ? -1 : 1)), byCwd]),
    tagsFor(agent, sessionId, cwd) {
      const out = new Set(byId.get(`${agent}:${sessionId}`) ?? []);
      if (cwd !== undefined) for (const [prefix, tags] of byCwd) if (cwd === prefix || cwd.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) for (const t of tags) out.add(t);
      return [...out].sort();
    },
  };
}
