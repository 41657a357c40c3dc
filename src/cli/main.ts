#!/usr/bin/env node
/**
 * The executable as an ES module, for those that name it (`node dist/src/cli/main.js`): it runs main.cjs,
 * package.json's `bin`, which holds the executable's code (main.cts), and exports its `loadCli`. Importing it
 * runs nothing. Started this way a command pays for Node's ESM loader on top: the `bin` does not.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const cjs = createRequire(import.meta.url)('./main.cjs') as typeof import('./main.cjs');

/** The CLI as the executable loads it (main.cts `loadCli`). */
export const loadCli = cjs.loadCli;

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) await cjs.main();
