/**
 * Where the Antigravity CLI (`agy`) keeps its conversations: `~/.gemini/antigravity-cli/brain/<conversation-id>/`,
 * each with its step log at `.system_generated/logs/transcript.jsonl`. `SESSIONFOLD_ANTIGRAVITY_DIR`
 * (comma-separated brain folders) replaces the default. Sources in README.md.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPathList } from '../../cursors/env-paths.js';

export const CODEC_ID = 'antigravity';
export const TRANSCRIPT = ['.system_generated', 'logs', 'transcript.jsonl'] as const;

export function getAntigravityRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = envPathList(env.SESSIONFOLD_ANTIGRAVITY_DIR);
  if (explicit.length > 0) return explicit;
  return [join(env.HOME || homedir(), '.gemini', 'antigravity-cli', 'brain')];
}

/** The conversation id of a step log: its conversation folder's name, or a lone file's name. */
export function conversationIdOf(file: string): string {
  const logs = dirname(file);
  const generated = dirname(logs);
  if (basename(file) === 'transcript.jsonl' && basename(logs) === 'logs' && basename(generated) === '.system_generated') return basename(dirname(generated));
  return basename(file).replace(/\.jsonl$/, '');
}
