/**
 * One HOME holding the real fixtures of every agent that ccusage 20.0.24 also reads, each in the agent's own
 * layout (the one both tools look in by default), so the two can be run over the same files: the recorded
 * ccusage answers (`fixtures/peers/ccusage-20.0.24.json`, written by `bench/peers/record-ccusage.ts`) and
 * test/ccusage-recorded.test.ts use this one layout.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildHermesDb } from './hermes-db.js';
import { buildOpencodeDb } from './opencode-db.js';
import { layOutAntigravity } from './antigravity-layout.js';
import { layOutKimi } from './kimi-layout.js';
import { REAL_FIXTURES, REPO_ROOT } from './real-fixtures.js';
import { buildZcodeDb } from './zcode-db.js';

const REAL = REAL_FIXTURES;
const OWN = join(REPO_ROOT, 'fixtures');

/** The agents laid out, by their ccusage command name (which is sessionfold's codec id too). */
export const PEER_AGENTS = ['gemini', 'copilot', 'pi', 'openclaw', 'qwen', 'droid', 'kimi', 'amp', 'antigravity', 'opencode', 'hermes', 'kilo', 'grok', 'codebuff', 'zcode'] as const;
export type PeerAgent = (typeof PEER_AGENTS)[number];

function place(from: string, toDir: string, name = from.split('/').pop()!): void {
  mkdirSync(toDir, { recursive: true });
  copyFileSync(from, join(toDir, name));
}

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyTree(join(from, e.name), join(to, e.name));
    else copyFileSync(join(from, e.name), join(to, e.name));
  }
}

const files = (agent: string, ext: string) => readdirSync(join(REAL, agent)).filter((n) => n.endsWith(ext)).sort();

/**
 * The test's Hermes database, with each session's totals on its `sessions` row as Hermes keeps them beside the
 * per-model rows (`../shared/formats/sqlite-schemas.md` §1): ccusage reads the former, sessionfold the latter.
 */
function layOutHermes(path: string): void {
  buildHermesDb(path);
  const db = new Database(path);
  const sum = (c: string) => `${c} = (SELECT coalesce(sum(${c}), 0) FROM session_model_usage u WHERE u.session_id = sessions.id)`;
  db.exec(`UPDATE sessions SET ${['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'].map(sum).join(', ')}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Lay out every agent's fixtures under `home`; the environment both tools run with. */
export async function layOutPeerTree(home: string): Promise<NodeJS.ProcessEnv> {
  const chats = join(home, '.gemini', 'tmp', 'project', 'chats');
  // Gemini CLI names its chats session-<start>-<id>.json[l]; the fixtures' names are their sources'.
  for (const n of [...files('gemini', '.json'), ...files('gemini', '.jsonl')]) place(join(REAL, 'gemini', n), chats, `session-${n}`);
  const state = join(home, '.copilot', 'session-state');
  copyTree(join(REAL, 'copilot', 'agent-sessions-session-state-dir'), state);
  for (const n of files('copilot', '.jsonl')) place(join(REAL, 'copilot', n), join(state, n.replace(/\.jsonl$/, '')), 'events.jsonl');
  for (const n of files('pi', '.jsonl')) place(join(REAL, 'pi', n), join(home, '.pi', 'agent', 'sessions', '--home-dev-project--'));
  for (const n of files('openclaw', '.jsonl')) place(join(REAL, 'openclaw', n), join(home, '.openclaw', 'agents', 'main', 'sessions'));
  for (const n of files('qwen', '.jsonl')) place(join(REAL, 'qwen', n), join(home, '.qwen', 'projects', '-tmp-proj', 'chats'));
  for (const n of files('droid', '.jsonl')) place(join(REAL, 'droid', n), join(home, '.factory', 'sessions', '-tmp'));
  await layOutKimi(join(home, '.kimi-code'));
  for (const n of files('amp', '.json')) place(join(REAL, 'amp', n), join(home, '.local', 'share', 'amp', 'threads'));
  await layOutAntigravity(join(home, '.gemini', 'antigravity-cli'));
  copyTree(join(REAL, 'opencode', 'agent-sessions-storage', 'storage_v2'), join(home, '.local', 'share', 'opencode', 'storage'));
  // No real OpenCode or Kilo CLI database exists in public; these are made with OpenCode's DDL.
  buildOpencodeDb(join(home, '.local', 'share', 'opencode', 'opencode.db'));
  mkdirSync(join(home, '.local', 'share', 'kilo'), { recursive: true });
  buildOpencodeDb(join(home, '.local', 'share', 'kilo', 'kilo.db'));
  // Grok Build, Codebuff and Z Code: no real sample exists in public; the repo's fixtures are shaped from
  // their sources (each codec's README).
  copyTree(join(OWN, 'grok', 'sessions'), join(home, '.grok', 'sessions'));
  copyTree(join(OWN, 'codebuff', 'projects'), join(home, '.config', 'manicode', 'projects'));
  mkdirSync(join(home, '.zcode', 'cli', 'db'), { recursive: true });
  buildZcodeDb(join(home, '.zcode', 'cli', 'db', 'db.sqlite'));
  mkdirSync(join(home, '.hermes'), { recursive: true });
  layOutHermes(join(home, '.hermes', 'state.db'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TZ: 'UTC',
    NO_COLOR: '1',
  };
}
