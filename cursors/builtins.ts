/**
 * Node builtins taken on first use instead of at import. An `import` of a builtin loads it before the
 * importing module runs, whether or not the call that needs it is ever made: `node:crypto` alone is some
 * twenty of Node's internal modules, `node:net` and `node:worker_threads` a dozen more, all on the path of a
 * run that hashes nothing, connects nowhere and starts no worker (an empty `cost report`). Each is loaded
 * once, by the first call that needs it.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let crypto: typeof import('node:crypto') | undefined;
let net: typeof import('node:net') | undefined;
let workers: typeof import('node:worker_threads') | undefined;
let v8: typeof import('node:v8') | undefined;

/** `node:crypto`. */
export function nodeCrypto(): typeof import('node:crypto') {
  return (crypto ??= require('node:crypto') as typeof import('node:crypto'));
}

/** `node:net`. */
export function nodeNet(): typeof import('node:net') {
  return (net ??= require('node:net') as typeof import('node:net'));
}

/** `node:worker_threads`. */
export function nodeWorkerThreads(): typeof import('node:worker_threads') {
  return (workers ??= require('node:worker_threads') as typeof import('node:worker_threads'));
}

/** `node:v8`. */
export function nodeV8(): typeof import('node:v8') {
  return (v8 ??= require('node:v8') as typeof import('node:v8'));
}
