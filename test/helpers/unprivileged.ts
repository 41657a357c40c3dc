/**
 * The CLI as a user that folder modes bind. Permissions do not bind root, so as root it runs the built CLI
 * (`dist/`) in a child process as `nobody` (uid 65534), owner of the home, with every folder on the way to it
 * searchable; otherwise in process.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lchownSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run.js';
import { sink } from '../sessions-helpers.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli/main.cjs', import.meta.url));

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A runner of the CLI under `env` as an unprivileged user that owns `home` (see the module header). */
export function asUnprivileged(home: string, env: NodeJS.ProcessEnv): (args: string[]) => Promise<CliRun> {
  const full = { ...env, SESSIONFOLD_SOCKET: 'off' };
  if (process.getuid?.() !== 0) {
    return async (args) => {
      const out = sink();
      const err = sink();
      const code = await runCli(args, { stdout: out, stderr: err, env: full });
      return { code, out: out.text(), err: err.text() };
    };
  }
  searchable(tmpdir());
  chownTree(home, 65534, 65534);
  return async (args) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: full, uid: 65534, gid: 65534, encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
}

/** Let others search the folder (the test run's temp root; /tmp already lets them, and keeps its own mode). */
function searchable(dir: string): void {
  if ((statSync(dir).mode & 0o005) !== 0o005) chmodSync(dir, 0o755);
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    if (e.isDirectory()) chownTree(join(path, e.name), uid, gid);
    else lchownSync(join(path, e.name), uid, gid);
  }
}
