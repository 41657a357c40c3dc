/**
 * The CLI in a child process from the sources (no build): `node --import ./src/scan/dev-register.mjs
 * test/helpers/cli-child.ts <args…>`, for the cases a test process must not run itself (a FIFO that would
 * block it, a memory limit).
 */
import { runCli } from '../../src/cli/run.js';

process.exitCode = await runCli(process.argv.slice(2));
