/**
 * Where `sessionfold serve` listens (protocol.ts has the protocol): `$SESSIONFOLD_SOCKET` (`off`: nowhere,
 * the client is off), else `$XDG_RUNTIME_DIR/sessionfold.sock`, else `<cache dir>/sessionfold/server.sock`.
 * A module of its own, which the build also writes as `bundle-cjs/socket-path.cjs` (scripts/bundle-cli.mjs):
 * the executable (main.cjs) asks it whether a server may listen before it loads the client for `cost` and
 * `sessions`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The socket a client or server of this environment uses; undefined when `SESSIONFOLD_SOCKET=off`. */
export function getSocketPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.SESSIONFOLD_SOCKET;
  if (explicit !== undefined && explicit !== '') return explicit === 'off' ? undefined : explicit;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'sessionfold.sock');
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'sessionfold', 'server.sock');
}
