#!/usr/bin/env node
/** The sessionfold executable: runs the CLI with the process's streams. Importing it runs nothing. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
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
  process.exitCode = await runCli(process.argv.slice(2));
}
