/** The built CLI in a child process, fed `stdin` (a status-line JSON), for the status-line suites. */
import { execFile } from 'node:child_process';

const CLI = new URL('../../dist/src/cli/main.cjs', import.meta.url).pathname;

/**
 * A `cli(args, stdin, env?)` whose runs take `baseEnv()` (read at each run: a HOME the suite's `beforeAll`
 * builds) with no server (SESSIONFOLD_SOCKET off) unless `env` names one; it rejects on a non-zero exit.
 */
export function cliWithStdin(baseEnv: () => NodeJS.ProcessEnv): (args: string[], stdin: string | undefined, env?: NodeJS.ProcessEnv) => Promise<{ stdout: string; stderr: string }> {
  return (args, stdin, env = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(process.execPath, [CLI, ...args], { env: { ...baseEnv(), SESSIONFOLD_SOCKET: 'off', ...env } }, (e, stdout, stderr) =>
        e === null ? resolve({ stdout, stderr }) : reject(new Error(`${args.join(' ')}: ${String(e)}\n${stderr}`)),
      );
      child.stdin?.end(stdin ?? '');
    });
}
