/**
 * The SessionManager tests' shared setup: a fixture home (test/sessions-helpers.ts `makeFixtureHome`) and a
 * manager over it, made once before the tests of a file or describe block and removed after them.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { createSessionManager, type SessionManager } from '../../src/sessions/manager.js';
import { FAKE_PRICER, makeFixtureHome, type Home } from '../sessions-helpers.js';

/** The fixture home, the ids of its Codex sessions, and a manager over it with FAKE_PRICER. */
export interface FixtureManager {
  home: Home;
  codexIds: string[];
  sm: SessionManager;
}

/**
 * Before the enclosing file's (or describe block's) tests: a fixture home, `prepare`d, and its manager, handed
 * to `ready`; after them, the home is removed.
 */
export function fixtureManager(ready: (f: FixtureManager) => void, prepare?: (home: Home) => Promise<void>): void {
  let dir: string | undefined;
  beforeAll(async () => {
    const { home, codexIds } = await makeFixtureHome();
    dir = home.dir;
    await prepare?.(home);
    ready({ home, codexIds, sm: createSessionManager({ env: home.env, pricer: FAKE_PRICER }) });
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
}
