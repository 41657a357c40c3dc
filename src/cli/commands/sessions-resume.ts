/**
 * `sessionfold sessions resume <agent> <id>`: print the agent's own command to resume a session (e.g.
 * `cd '/work/app' && claude --resume <id>`); `--exec` runs it in the session's directory with inherited
 * stdio and exits with its status. sessionfold itself never writes the session.
 */
import { spawn } from 'node:child_process';
import { bool, defineCommand, type CommandContext } from '../command.js';
import { SessionfoldError } from '../../../cursors/protocol/errors.js';
import { makeManager, sessionTarget, shellQuote } from './sessions-common.js';

export default defineCommand({
  name: 'resume',
  description: "Print the agent's own command to resume a session; --exec runs it.",
  usage: '<agent> <session-id> | <agent>:<session-id>',
  options: {
    exec: { type: 'boolean', description: 'Run the command (in the session directory, inherited stdio)' },
  },
  async run(ctx: CommandContext) {
    const { agent, id } = await sessionTarget(ctx);
    const r = await makeManager(ctx).resumeCommand(agent, id);
    const command = r.argv.map(shellQuote).join(' ');
    if (!bool(ctx, 'exec')) {
      ctx.stdout.write(`${r.cwd !== undefined ? `cd ${shellQuote(r.cwd)} && ` : ''}${command}\n`);
      return 0;
    }
    const [cmd, ...args] = r.argv;
    if (cmd === undefined) throw new SessionfoldError('USAGE_ERROR', `${agent} gave an empty resume command`);
    return new Promise<number>((resolve, reject) => {
      const child = spawn(cmd, args, { stdio: 'inherit', env: ctx.env, ...(r.cwd !== undefined && { cwd: r.cwd }) });
      child.on('error', (e) =>
        reject(new SessionfoldError('IO_ERROR', `cannot run "${command}"${r.cwd !== undefined ? ` in ${r.cwd}` : ''}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, { cause: e })),
      );
      child.on('close', (code, signal) => resolve(code ?? (signal !== null ? 128 : 1)));
    });
  },
});
