#!/usr/bin/env node
/** The sessionfold executable: runs the CLI with the process's streams. Importing it runs nothing. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runServed } from '../serve/client.js';
import { runCli } from './run.js';

export { runCli } from './run.js';

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  // `sessionfold … | head`: the reader went away; stop quietly, as other Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const argv = process.argv.slice(2);
  // A served command goes to a running `sessionfold serve` of this build when there is one (src/serve/).
  const served = await runServed(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
  process.exitCode = served ?? (await runCli(argv));
}
