/**
 * The server's socket file: `claimSocketPath` makes the path free (removing only a dead server's socket) and
 * its folder private, `OwnSocket.listen` binds the server there without ever replacing what another process
 * put at the path, and the bound socket removes itself at close and at process exit, only while it is still
 * this server's (same inode).
 */
import { chmodSync, linkSync, lstatSync, mkdirSync, rmSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { SessionfoldError } from '../../cursors/protocol/errors.js';

/** Is something answering on `path`? */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/**
 * Make `path` free for the server's socket, removing only what is provably a dead server's: a socket of this
 * user that nothing answers on. Anything else there (a file, a folder, another user's socket) is never
 * touched: a coded error names it. Then create its folder, private (0700).
 */
export async function claimSocketPath(path: string): Promise<void> {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st !== undefined) {
    if (!st.isSocket()) throw new SessionfoldError('IO_ERROR', `${path} exists and is not a socket: serve leaves it alone (give --socket another path)`, { file: path });
    if (await answers(path)) throw new SessionfoldError('IO_ERROR', `a sessionfold server already listens on ${path}`, { file: path });
    if (process.getuid !== undefined && st.uid !== process.getuid()) throw new SessionfoldError('IO_ERROR', `${path} is another user's socket: serve leaves it alone`, { file: path });
    // left by a server that died; unless it was replaced meanwhile
    if (lstatSync(path, { throwIfNoEntry: false })?.ino === st.ino) unlinkSync(path);
  }
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new SessionfoldError('IO_ERROR', `cannot create the folder of the socket ${path}: ${(e as Error).message}`, { file: path, cause: e });
  }
}

/** The socket this server bound at a path: removed at `remove()` or process exit, while still its own. */
export class OwnSocket {
  readonly path: string;
  readonly #ino: number;
  readonly #onExit = (): void => this.remove();

  private constructor(path: string, ino: number) {
    this.path = path;
    this.#ino = ino;
    // Whatever ends the process (an uncaught error, process.exit), the socket goes with it.
    process.on('exit', this.#onExit);
  }

  /**
   * Listen at `path` (claimed first): bound under a name of its own, then linked into place. A link never
   * replaces what appeared at `path` meanwhile, and libuv's unlink at close removes only that name (the
   * socket at `path` is removed by remove() only while it is still this one).
   */
  static async listen(server: Server, path: string): Promise<OwnSocket> {
    const bound = join(dirname(path), `.sf${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`);
    const old = process.umask(0o177); // the socket is the user's alone: a request carries their environment
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(bound, () => resolve());
      });
    } finally {
      process.umask(old);
    }
    try {
      chmodSync(bound, 0o600);
      linkSync(bound, path);
    } catch (e) {
      await new Promise<void>((r) => server.close(() => r()));
      throw new SessionfoldError('IO_ERROR', `cannot make the socket ${path}: ${(e as Error).message}`, { file: path, cause: e });
    } finally {
      rmSync(bound, { force: true });
    }
    return new OwnSocket(path, lstatSync(path).ino);
  }

  /** Remove the socket at the path when it is still the one this server bound. */
  remove(): void {
    const st = lstatSync(this.path, { throwIfNoEntry: false });
    if (st === undefined || !st.isSocket() || st.ino !== this.#ino) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }

  /** The server has stopped: the exit hook is no longer needed. */
  unhook(): void {
    process.off('exit', this.#onExit);
  }
}
