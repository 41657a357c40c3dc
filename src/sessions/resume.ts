/**
 * The agent's own command to resume a session (`codec.resumeCommand`), plus the directory to run it in:
 * Claude Code only finds a session from the project directory it ran in, so the session's cwd (read from
 * the head of its file, not a full parse) comes with the command.
 */
import { stat } from 'node:fs/promises';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { getCodec, loadCodec } from '../registry.js';
import type { ManagerContext } from './context.js';
import { locateSession } from './get.js';
import { peekFile } from './peek.js';

/** The agent's own command to resume a session, and the folder to run it in. */
export interface ResumeCommand {
  agent: string;
  sessionId: string;
  /** argv, e.g. `['claude', '--resume', id]`. */
  argv: string[];
  /** Where to run it (the session's cwd), when the session records one. */
  cwd?: string;
  /** The session's file. */
  file: string;
}

/** AGENT_NOT_FOUND, SESSION_NOT_FOUND, or USAGE_ERROR when the agent has no resume command. */
export async function getResumeCommand(ctx: ManagerContext, agent: string, id: string): Promise<ResumeCommand> {
  const codec = await loadCodec(getCodec(agent));
  if (codec.resumeCommand === undefined) throw new SessionfoldError('USAGE_ERROR', `${codec.displayName} (${codec.id}) has no resume command`, { agent: codec.id });
  const file = await locateSession(ctx, codec, id);
  let cwd: string | undefined;
  try {
    const size = file.size ?? (await stat(file.path)).size;
    cwd = (await peekFile(codec, file, size, undefined)).fold.cwd;
  } catch {
    cwd = undefined; // the command still works from the current directory for most agents
  }
  return { agent: codec.id, sessionId: id, argv: codec.resumeCommand(id, file), ...(cwd !== undefined && { cwd }), file: file.path };
}
