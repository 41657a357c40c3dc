/**
 * What the executable (main.cts) runs before the CLI, in one module: Claude Code's status-line JSON turned into
 * flags (statusline-input.ts) and a served command asked of a running `sessionfold serve` (served.ts). The
 * build bundles it into `bundle-cjs/front.cjs`, which main.cjs requires, and `bundle/front.js`, the ESM
 * fallback (scripts/bundle-cli.mjs): a served status line then loads one file of ours before it connects,
 * instead of seven one after another, and its render step as a chunk while the server computes.
 */
export { isServed } from '../serve/protocol.js';
export { runServedCommand } from './served.js';
export { fallbackStatusLine, statusLineArgs, statusLineReadsStdin } from './statusline-input.js';
