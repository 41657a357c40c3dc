/**
 * `sessionfold serve` (the command itself, src/cli/commands/serve.ts) in a child process, answering with a
 * runner whose `cost report --block <fifo>` blocks in the kernel (it opens a FIFO nobody writes), and every
 * other command with one line. Usage: node --import ./src/scan/dev-register.mjs test/helpers/serve-child.ts <socket>
 */
import { open } from 'node:fs/promises';
import serve from '../../src/cli/commands/serve.js';

const socket = process.argv[2] as string;
const code = await serve.run?.({
  positionals: [],
  values: { socket, sweep: '0' },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  runCli: async (argv, io) => {
    const at = argv.indexOf('--block');
    if (at >= 0) await (await open(argv[at + 1] as string, 'r')).close();
    io.stdout.write(`ran ${argv.join(' ')}\n`);
    return 0;
  },
});
process.exitCode = typeof code === 'number' ? code : 0;
