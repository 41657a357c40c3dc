#!/usr/bin/env node
/** The sessionfold executable: runs the CLI with the process's streams. Importing it runs nothing. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runCli } from './run.js';

export { runCli } from './run.js';

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
