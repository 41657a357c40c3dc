/**
 * A child process for test/store-faults.test.ts: one store mutation, `saveFamily(name, family, options)` or
 * `save(name, title, transcript)` from a JSON argument, killed (SIGKILL) at its `at`th rename
 * (helpers/fs-faults.ts). Prints `done <renames>` when it ran to the end.
 */
import { SessionStore } from '../../src/store/store.js';
import { injectRenameFault } from './fs-faults.js';

const [root, atText, opText] = process.argv.slice(2) as [string, string, string];
const op = JSON.parse(opText) as { saveFamily?: Parameters<SessionStore['saveFamily']>; save?: Parameters<SessionStore['save']> };
const store = SessionStore.at(root);
const fault = injectRenameFault(Number(atText), 'kill');
if (op.saveFamily !== undefined) await store.saveFamily(...op.saveFamily);
if (op.save !== undefined) await store.save(...op.save);
console.log(`done ${fault.renames()}`);
