/**
 * The built CLI's side of the copy-tie suite (test/cost-copy-tie.test.ts): which
 * copy of a response counts must not depend on the read path, so each suite checks `cost report --group-by
 * session` cold, warm and without the cache, with the native addon and without it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type { CostSummary } from '../../src/cost/types.js';
import type { Home } from '../sessions-helpers.js';

const CLI = new URL('../../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);

/** `cost report --agent <agent> --group-by session --json` from the built CLI, which writes nothing to stderr. */
async function report(agent: string, env: NodeJS.ProcessEnv, args: string[]): Promise<CostSummary> {
  const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', agent, '--tz', 'UTC', '--group-by', 'session', '--json', ...args], { env });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as CostSummary;
}

/**
 * One test per addon setting (`SESSIONFOLD_NATIVE=0` off: the JavaScript and WebAssembly paths): `check` holds
 * the report without the cache, cold with it, then warm, each in its own cache under `home()`.
 */
export function itReportsBySession(what: string, home: () => Home, agent: string, check: (s: CostSummary) => void): void {
  for (const native of ['on', 'off'] as const) {
    it(`the CLI ${what}, cold, warm and without the cache (native addon ${native})`, async () => {
      const h = home();
      const env = { ...h.env, ...(native === 'off' && { SESSIONFOLD_NATIVE: '0' }), SESSIONFOLD_CACHE: join(h.dir, `cli-${native}.db`) };
      check(await report(agent, env, ['--no-cache']));
      check(await report(agent, env, []));
      check(await report(agent, env, []));
    });
  }
}
