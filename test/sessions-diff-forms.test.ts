/**
 * `diff` in both forms: the SessionManager's `diff({agent, sessionId}, {agent, sessionId})` and the spec's
 * four-argument `diff(agentA, idA, agentB, idB)` (which threw a raw TypeError), the same in the CLI
 * (`sessions diff <agent>:<id> <agent>:<id>` and `sessions diff <agentA> <idA> <agentB> <idB>`, built CLI).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionManager } from '../src/sessions/manager.js';
import { EXPORT_IDS, type Home } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const J = 'sessionfold-jsonl';

let home: Home;
let sm: SessionManager;
fixtureManager((f) => ({ home, sm } = f));

describe('SessionManager.diff', () => {
  it('gives the same diff for the four-argument form as for two references', async () => {
    const byRefs = await sm.diff({ agent: J, sessionId: EXPORT_IDS.parent }, { agent: J, sessionId: EXPORT_IDS.fork });
    const byArgs = await sm.diff(J, EXPORT_IDS.parent, J, EXPORT_IDS.fork);
    expect(byArgs).toEqual(byRefs);
    expect(byArgs.stats.unchanged + byArgs.stats.modifications + byArgs.stats.additions + byArgs.stats.removals).toBeGreaterThan(0);
    expect(byArgs.a.unifiedId).toBe(`${J}:${EXPORT_IDS.parent}`);
  });

  it('answers other arguments with a coded error, and a missing session with SESSION_NOT_FOUND', async () => {
    const call = sm.diff as unknown as (...a: unknown[]) => Promise<unknown>;
    for (const args of [[J, EXPORT_IDS.parent], [J, EXPORT_IDS.parent, J], [{ agent: J }, { agent: J, sessionId: EXPORT_IDS.fork }], []]) {
      const err = await call(...args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSessionfoldError(err, 'INVALID_OPTION'), `${JSON.stringify(args)}: ${String(err)}`).toBe(true);
    }
    const missing = await sm.diff(J, EXPORT_IDS.parent, J, 'no-such-session').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSessionfoldError(missing, 'SESSION_NOT_FOUND')).toBe(true);
  });
});

describe('sessionfold sessions diff (built CLI)', () => {
  const cli = (args: string[]) =>
    run(process.execPath, [CLI, 'sessions', ...args], { env: home.env, maxBuffer: 64 << 20 }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );

  it('accepts <agentA> <idA> <agentB> <idB> with the same output as the unified ids', async () => {
    const four = await cli(['diff', J, EXPORT_IDS.parent, J, EXPORT_IDS.fork, '--json']);
    const two = await cli(['diff', `${J}:${EXPORT_IDS.parent}`, `${J}:${EXPORT_IDS.fork}`, '--json']);
    expect(four.code, four.stderr).toBe(0);
    expect(four.stdout).toBe(two.stdout);
    expect(JSON.parse(four.stdout)).toMatchObject({ a: { unifiedId: `${J}:${EXPORT_IDS.parent}` }, b: { unifiedId: `${J}:${EXPORT_IDS.fork}` } });
    const three = await cli(['diff', J, EXPORT_IDS.parent, J]);
    expect(three.code).toBe(1);
    expect(three.stderr).toMatch(/^error USAGE_ERROR: diff needs two sessions/);
  });
});
