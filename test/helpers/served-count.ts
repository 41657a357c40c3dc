/**
 * Waiting for a server's count of answers. The server counts an answer (`stats.served` and `failed`, its
 * "served" log line, `serve --status`) once the answer's last bytes are written, which can be after its client
 * has read them and exited; a child server's log line reaches the test later still. A test that asserts the
 * count right after its client returns polls it until it equals the exact tally.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** `expect.poll`'s options for a count of answers: long enough for a loaded machine, short enough to fail. */
export const COUNTED = { timeout: 10_000, interval: 20 };

/** What `<cli> serve --status` says the server on `socket` has served. */
export async function statusServed(cli: string, socket: string, env: NodeJS.ProcessEnv): Promise<number> {
  const r = await exec(process.execPath, [cli, 'serve', '--status', '--socket', socket], { env });
  return (JSON.parse(r.stdout) as { served: number }).served;
}
