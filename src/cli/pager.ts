/**
 * The pager `sessions show` writes to on a terminal: `$PAGER` (else `less -FRX`) run through a shell, as git
 * and man run it, so a PAGER with arguments or redirections works. The shell itself always starts, so a pager
 * that cannot start is known only by the shell's exit status: 126 (not executable) or 127 (not found). Then
 * the text goes to stdout after all, from the start: what the pager took is kept until it has taken more than
 * a pipe can hold, since a shell that never started its command never reads its stdin. A pager that ran and
 * exited with another non-zero status (PAGER=false) is reported as IO_ERROR and the command exits 1; its
 * text is not written again, as the pager may have shown part of it.
 */
import { spawn } from 'node:child_process';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { CommandContext } from './command.js';
import { writeWaiting, type Sink } from './sink.js';

/** The shell's statuses for a command it could not run. */
const NOT_STARTED = new Set([126, 127]);
/** Linux's largest pipe buffer (fs.pipe-max-size); the default one is 64 KiB. */
const REPLAY_MAX = 1 << 20;

/** A sink into the pager's stdin, or undefined when the shell cannot be spawned. */
export async function openPager(ctx: CommandContext): Promise<Sink | undefined> {
  const pager = ctx.env.PAGER || 'less -FRX';
  const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...ctx.env } });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  const stdin = child.stdin;
  if (!started || stdin === null) return undefined;
  const status = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let gone = false;
  void status.then(() => (gone = true));
  stdin.on('error', () => (gone = true));
  let kept: string[] | undefined = [];
  let keptSize = 0;
  let toStdout = false;
  let stopped = false;

  /** After the pager went: true when the text now goes to stdout (the pager never started). */
  const fellBack = async (): Promise<boolean> => {
    const code = await status;
    if (kept === undefined || code === null || !NOT_STARTED.has(code)) return false;
    ctx.stderr.write(`note: the pager "${pager}" could not start (exit status ${code}); writing to stdout\n`);
    toStdout = true;
    for (const chunk of kept) await writeWaiting(ctx.stdout, chunk);
    kept = undefined;
    return true;
  };

  return {
    closed: () => stopped,
    async write(chunk) {
      if (toStdout) return writeWaiting(ctx.stdout, chunk);
      if (gone) {
        if (await fellBack()) return writeWaiting(ctx.stdout, chunk);
        stopped = true;
        return;
      }
      if (kept !== undefined) {
        kept.push(chunk);
        keptSize += chunk.length;
        if (keptSize > REPLAY_MAX) kept = undefined;
      }
      await writeWaiting(stdin, chunk);
    },
    async done() {
      if (toStdout) return;
      if (!gone) stdin.end();
      const code = await status;
      if (code === null || code === 0 || toStdout || (await fellBack())) return;
      throw new SessionfoldError('IO_ERROR', `the pager "${pager}" exited with status ${code} (--no-pager or PAGER=cat writes to stdout)`);
    },
  };
}
