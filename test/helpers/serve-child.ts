/**
 * `sessionfold serve` (the command itself, src/cli/commands/serve.ts) in a child process, answering with a
 * compute step that blocks in the kernel for `cost report --block <fifo>` (it opens a FIFO nobody writes), and
 * answers every other command with `{ ran: argv }`. Usage: node --import ./src/scan/dev-register.mjs test/helpers/serve-child.ts <socket>
 */
import { open } from 'node:fs/promises';
import { serveUntilSignal } from '../../src/cli/commands/serve.js';

const socket = process.argv[2] as string;
const code = await serveUntilSignal({ positionals: [], values: { socket, sweep: '0' }, stdout: process.stdout, stderr: process.stderr, env: process.env }, async (argv) => {
  const at = argv.indexOf('--block');
  if (at >= 0) await (await open(argv[at + 1] as string, 'r')).close();
  return { ran: argv.join(' ') };
});
process.exitCode = code;
