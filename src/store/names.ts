/**
 * Session names and subagent ids of the store. Each becomes a file stem in one folder, so a name is checked
 * (the rule: cursors/protocol/session-store.ts `storeNameProblem`) before any I/O: nothing a caller passes
 * can reach a path outside the store's root, or a path another session's family owns.
 */
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { storeNameProblem, storeWriteNameProblem } from '../../cursors/protocol/session-store.js';

/** True when `name` may name a session or a subagent. */
export function isValidName(name: unknown): name is string {
  return storeNameProblem(name) === undefined;
}

/** True when `name` may be written as a session name or subagent id (portable, unmistakable). */
export function isWritableName(name: unknown): name is string {
  return storeWriteNameProblem(name) === undefined;
}

/** Throw INVALID_OPTION unless `name` may name a session (or, with `what`, a subagent id). */
export function validateName(name: unknown, what = 'session name'): asserts name is string {
  refuse(name, what, storeNameProblem(name));
}

/** Throw INVALID_OPTION unless `name` may be written as a session name (or, with `what`, a subagent id). */
export function validateWriteName(name: unknown, what = 'session name'): asserts name is string {
  refuse(name, what, storeWriteNameProblem(name));
}

function refuse(name: unknown, what: string, problem: string | undefined): void {
  if (problem === undefined) return;
  let shown: string;
  try {
    shown = JSON.stringify(name) ?? String(name);
  } catch {
    shown = String(name);
  }
  throw new SessionfoldError('INVALID_OPTION', `Invalid ${what} ${shown.slice(0, 200)}: ${problem}`);
}
