/**
 * Where Antigravity keeps its conversations. A data folder (`~/.gemini/antigravity-cli` for the CLI, the
 * IDE's `~/.gemini/antigravity*` and `~/.config/antigravity`) holds `brain/<conversation-id>/` (the CLI's step
 * log at `.system_generated/logs/transcript.jsonl`) and `conversations/<conversation-id>.db` (the token
 * database). `SESSIONFOLD_ANTIGRAVITY_DIR`, else `ANTIGRAVITY_DATA_DIR` (ccusage's variable), each
 * comma-separated, replaces the default folders. Sources in README.md.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'antigravity';
export const TRANSCRIPT = ['.system_generated', 'logs', 'transcript.jsonl'] as const;
export const BRAIN = 'brain';
export const CONVERSATIONS = 'conversations';
export const DB_SUFFIX = '.db';

/** The data folders: the variables' (see the header), else the CLI's and the IDE's defaults. */
export function getAntigravityRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_ANTIGRAVITY_DIR);
  if (explicit.length > 0) return explicit;
  const data = envPathList(env.ANTIGRAVITY_DATA_DIR);
  if (data.length > 0) return data;
  const home = env.HOME || homedir();
  return [
    join(home, '.gemini', 'antigravity-cli'),
    join(home, '.gemini', 'antigravity'),
    join(home, '.gemini', 'antigravity-ide'),
    join(home, '.gemini', 'antigravity-backup'),
    join(home, '.config', 'antigravity'),
  ];
}

/** True for a conversation's step log in its conversation folder (`…/<id>/.system_generated/logs/transcript.jsonl`). */
function isFiledStepLog(file: string): boolean {
  const logs = dirname(file);
  return basename(file) === TRANSCRIPT[2] && basename(logs) === TRANSCRIPT[1] && basename(dirname(logs)) === TRANSCRIPT[0];
}

/** The conversation id of a step log (its conversation folder's name, or a lone file's name) or of a database (its name). */
export function conversationIdOf(file: string): string {
  if (isFiledStepLog(file)) return basename(dirname(dirname(dirname(file))));
  return basename(file).replace(/\.(?:jsonl|db)$/, '');
}

/** True when `file` is a conversation database rather than a step log. */
export function isConversationDb(file: string): boolean {
  return file.endsWith(DB_SUFFIX);
}

/**
 * The database a filed step log's conversation has, by path: `<data>/conversations/<id>.db` beside the
 * `<data>/brain` folder it is in; undefined for a step log outside that layout.
 */
export function conversationDbOf(stepLog: string): string | undefined {
  if (!isFiledStepLog(stepLog)) return undefined;
  const conversation = dirname(dirname(dirname(stepLog)));
  return join(dirname(dirname(conversation)), CONVERSATIONS, `${basename(conversation)}${DB_SUFFIX}`);
}
