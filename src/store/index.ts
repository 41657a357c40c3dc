/** The session store (store.ts) and its imports from any agent (import.ts), for the public barrel. */
export { SessionStore, type SessionStoreOptions } from './store.js';
export { isValidName, validateName } from './names.js';
export { importSession, forkAgentSession, type ImportOptions, type ImportResult, type AgentForkOptions } from './import.js';
export { defaultStoreRoot } from './root.js';
export type * from './types.js';
