#!/usr/bin/env node
/**
 * The sessionfold executable (package.json `bin`): runs the CLI with the process's streams. Requiring it runs
 * nothing; main.js (an ES module) runs the same for those that name it.
 *
 * A CommonJS module: Node starts an ES-module entry through its ESM loader (about 10 ms of wall more than a
 * CommonJS one for an empty file, bench/RESULTS.md "startup"), and every path below loads CommonJS from here
 * with `require()`: the front's bundle and the CLI's (through code-cache.cjs), neither through that loader.
 *
 * `statusline` with no session flag reads Claude Code's status-line JSON on stdin and turns it into flags
 * (statusline-input.ts). A served command (`cost report`, `sessions list`, `statusline`) goes first to a
 * running `sessionfold serve` of this build (src/serve/; `cost` and `sessions` only when its socket exists),
 * loading only the front (front.ts, from its bundle:
 * the client) and, while the server computes, the command's render step (served.ts); everything else, and a
 * served command nobody answers, loads the CLI (run.ts, from its bundle where the build made one: `loadCli`).
 * `runCli` itself is exported by run.ts.
 */
import fs = require('node:fs');
import path = require('node:path');

type Front = typeof import('./front.js');
type Cli = typeof import('./run.js');

/** Writes the code caches a CommonJS load missed (code-cache.cjs), once the command is done. */
let saveCodeCache: (() => number) | undefined;

/**
 * Node's streams for stdout and stderr once made, by `fdWriter` or by anything writing to `process.stdout` or
 * `process.stderr` itself (a dependency's `console.warn`, Node's warnings): on a pipe that would block, their
 * writes may be pending. `stdioUnwatched` when `watchStdio` could not see them being made.
 */
const nodeStreams = new Set<NodeJS.WriteStream>();
let stdioUnwatched = false;

/**
 * Node makes `process.stdout` and `process.stderr` on first use, through a getter on `process`: that getter is
 * wrapped to note the stream it returns, without calling it (asking for a stream would make it, which costs
 * the start-up its modules). A stream made before (by a `-r` preload) is noted when next asked for.
 */
function watchStdio(name: 'stdout' | 'stderr'): void {
  const d = Object.getOwnPropertyDescriptor(process, name);
  const get = d?.get;
  if (d === undefined || get === undefined || d.configurable !== true) {
    stdioUnwatched = true;
    return;
  }
  Object.defineProperty(process, name, {
    ...d,
    get(): NodeJS.WriteStream {
      const s = get.call(process) as NodeJS.WriteStream;
      nodeStreams.add(s);
      return s;
    },
  });
}

/** Whether nothing written to stdout or stderr through a Node stream is still buffered in it. */
function nothingBuffered(): boolean {
  if (stdioUnwatched) return false;
  for (const s of nodeStreams) if (s.writableLength !== 0) return false;
  return true;
}

/**
 * Commands whose work is done when `runCli` returns (every file written and closed, every transaction of the
 * cache committed), so the process may end at once: a process that ends by itself then still tears down V8's
 * heap, page by page, and its environment (about 15 ms of CPU of a cold `cost report` at scale 0.02, a `perf`
 * profile: bench/RESULTS.md "Start-up of a cold report"). Only when nothing written is still buffered in a
 * Node stream, ours or one anything else wrote to (`nothingBuffered`; on Linux they write files, terminals
 * and pipes synchronously, unless a pipe would block). A cache connection of theirs that wrote is left to
 * that exit, not closed (`LEAVE_OPEN_AT_EXIT`, src/cache/db.ts: SQLite's close checkpoints the WAL, with fsyncs).
 */
const EXIT_WHEN_DONE: ReadonlySet<string> = new Set(['cost']);

/** The command line run with this process's streams; its exit code set on the process. */
async function main(): Promise<void> {
  watchStdio('stdout');
  watchStdio('stderr');
  const stdout = fdWriter(1, () => process.stdout);
  const stderr = fdWriter(2, () => process.stderr);
  let argv = process.argv.slice(2);
  let served: number | undefined;
  // statusline, cost report, sessions list: the front (its bundle) sees whether the command is served; the
  // last two only where a server may listen (most runs have none: then the front is not loaded)
  const front = argv[0] === 'statusline' || ((argv[0] === 'cost' || argv[0] === 'sessions') && serverMayListen()) ? await loadFront() : undefined;
  if (front?.statusLineReadsStdin(argv) === true) {
    // Claude Code's status-line JSON becomes flags here, so the server (and the command) never read stdin.
    try {
      argv = [argv[0] as string, ...front.statusLineArgs(await readStdin()), ...argv.slice(1)];
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'IO_ERROR';
      stdout.write(`${front.fallbackStatusLine(code)}\n`); // a status bar never goes blank
      stderr.write(`error ${code}: ${(e as Error).message}\n`);
      served = 0;
    }
  }
  if (served === undefined && front?.isServed(argv) === true) {
    served = await front.runServedCommand(argv, { stdout, stderr, env: process.env, cwd: process.cwd() });
  }
  if (served === undefined) {
    const cli = await loadCli();
    cli.limitMallocArenasOnLoad();
    if (EXIT_WHEN_DONE.has(argv[0] as string)) (globalThis as Record<symbol, unknown>)[Symbol.for('sessionfold.cacheLeftOpenAtExit')] = true;
    process.exitCode = await cli.runCli(argv, { stdout, stderr, env: process.env });
    saveCodeCache?.();
    if (EXIT_WHEN_DONE.has(argv[0] as string) && nothingBuffered()) process.exit();
  } else process.exitCode = served;
}

/**
 * Whether a `sessionfold serve` may listen: its socket exists, by the client's own rule (src/serve/socket-path.ts,
 * which the build writes as `bundle-cjs/socket-path.cjs`). When none does, a served command runs locally
 * without loading the front (2.7 M instructions of an empty report's start, bench/RESULTS.md "startup"). True
 * where that file is missing or stale: the front then asks, as before.
 */
function serverMayListen(): boolean {
  if (!cjsOn() || !fresh('bundle-cjs/socket-path.cjs', '../serve/socket-path.js')) return true;
  const socket = (require('./bundle-cjs/socket-path.cjs') as typeof import('../serve/socket-path.js')).getSocketPath(process.env);
  return socket !== undefined && fs.existsSync(socket);
}

/** `sessionfold … | head`: the reader went away; stop quietly, as other Unix tools do. */
function onStreamError(e: NodeJS.ErrnoException): void {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
}

/**
 * fd 1 or 2 for the CLI to write to. A pipe or a file is written with `fs.writeSync`, as Node writes its
 * own stdio there (synchronously, on Linux): `process.stdout` on a pipe is a `net.Socket`, and making it
 * loads `net` and the stream modules, a few ms of an empty report's start (bench/RESULTS.md, startup). A
 * terminal or anything else, and anything asked of the writer but `write` (or `isTTY`, which is false
 * there), goes to Node's own stream, made then: so does the rest of the output once a write meets a
 * descriptor that is not blocking (EAGAIN). A reader gone away (EPIPE) ends the process quietly either way.
 */
function fdWriter(fd: 1 | 2, make: () => NodeJS.WriteStream): NodeJS.WriteStream {
  let node: NodeJS.WriteStream | undefined;
  const stream = (): NodeJS.WriteStream => {
    if (node === undefined) {
      node = make();
      nodeStreams.add(node);
      node.on('error', onStreamError);
    }
    return node;
  };
  let direct = false;
  try {
    const st = fs.fstatSync(fd);
    direct = st.isFIFO() || st.isFile();
  } catch {
    // a closed descriptor: Node's stream says what it says
  }
  if (!direct) return stream();
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    if (!direct) return (stream().write as (...a: unknown[]) => boolean)(chunk, ...rest);
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8') : chunk;
    let done = 0;
    try {
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') onStreamError(e as NodeJS.ErrnoException);
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      direct = false;
      return (stream().write as (...a: unknown[]) => boolean)(bytes.subarray(done), ...rest.filter((r) => typeof r === 'function'));
    }
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (cb !== undefined) process.nextTick(cb);
    return true;
  };
  return new Proxy({} as NodeJS.WriteStream, {
    get(_, key) {
      if (key === 'write') return write;
      if (direct && (key === 'isTTY' || key === 'columns' || key === 'rows')) return key === 'isTTY' ? false : undefined; // not a terminal
      const value = Reflect.get(stream(), key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(stream()) : value;
    },
  });
}

/**
 * All of standard input as text; empty on a terminal (nothing is piped). Read with one blocking read of fd 0,
 * which sets up no stream (process.stdin's costs a status line a few ms); a non-blocking descriptor (EAGAIN)
 * is read as a stream. A terminal is told by fstat (a character device, which `/dev/null` is too and which
 * reads as empty anyway), not by `node:tty`, which loads `net`.
 */
async function readStdin(): Promise<string> {
  if (fs.fstatSync(0).isCharacterDevice()) return '';
  try {
    return fs.readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Whether this Node runs the CommonJS bundles (`SESSIONFOLD_CJS=0` turns them off: the ESM ones run). */
const cjsOn = (): boolean => process.env.SESSIONFOLD_CJS !== '0';

/** Whether `bundled` (a file the build bundled from `source`, both beside this module) exists and is not older. */
function fresh(bundled: string, source: string): boolean {
  try {
    return fs.statSync(path.join(__dirname, bundled)).mtimeMs >= fs.statSync(path.join(__dirname, source)).mtimeMs;
  } catch {
    return false; // no bundle (the sources, or a build without rolldown)
  }
}

/**
 * The front (front.ts): `bundle-cjs/front.cjs` and its render chunks, taken by `require()` (they need no
 * `require()` of ES modules, so any Node runs them); the ESM bundle `bundle/front.js` with
 * `SESSIONFOLD_CJS=0` or where the CommonJS one is missing or older than front.js; front.js itself when
 * neither bundle is fresh.
 */
async function loadFront(): Promise<Front> {
  if (cjsOn() && fresh('bundle-cjs/front.cjs', 'front.js')) return require('./bundle-cjs/front.cjs') as Front;
  return fromBundle('front.js', () => import('./front.js'));
}

/**
 * The CLI: its CommonJS bundle with V8's code cache (`fromCjsBundle`); else its ESM bundle (scripts/bundle-cli.mjs
 * made by the build after the modules it bundles: `bundle/run.js` and the chunks it imports), a cold report
 * sooner than with the modules one by one (Node 20 loads those along the import chain); run.js itself when
 * there is none, or when run.js is newer (a compile after the last bundle).
 */
async function loadCli(): Promise<Cli> {
  return fromCjsBundle() ?? fromBundle('run.js', () => import('./run.js'));
}

/**
 * The CLI from `bundle-cjs/run.cjs` with V8's code cache (code-cache.cjs) when the build made it after run.js
 * and this Node can `require()` ES modules (Node 20.19+: a guard; the bundle holds the ES-module-only packages
 * it uses); undefined otherwise, or when it fails to load (said on stderr): the ESM bundle then runs. Interleaved runs of an
 * empty report: about 30 ms of CPU less than the ESM bundle, about 4 of it the cache's (bench/RESULTS.md,
 * startup).
 *
 * The bundle's `native.cjs` (cursors/native.ts, the same module instance the CLI's chunks use) caps glibc's
 * malloc arenas before `run.cjs` compiles where the address space is limited (`limitMallocArenasAtStart`:
 * V8 compiles on background threads, each taking an arena), else when the kernel loads.
 */
function fromCjsBundle(): Cli | undefined {
  if ((process.features as { require_module?: boolean }).require_module !== true || !cjsOn() || !fresh('bundle-cjs/run.cjs', 'run.js')) return undefined;
  try {
    const { cjsBundle, codeCacheDir } = require('./code-cache.cjs') as typeof import('./code-cache.cjs');
    const bundle = cjsBundle(path.join(__dirname, 'bundle-cjs'), process.env.SESSIONFOLD_CODE_CACHE === '0' ? undefined : codeCacheDir());
    (bundle.load('native.cjs') as typeof import('../../cursors/native.js')).limitMallocArenasAtStart();
    const cli = bundle.load('run.cjs') as Cli;
    saveCodeCache = bundle.save;
    // jit.ts (in the bundle) changes V8's flags: the code caches pending are written before that (code-cache.cts).
    (globalThis as Record<symbol, unknown>)[Symbol.for('sessionfold.beforeV8Flags')] = bundle.beforeFlagsChange;
    // A package the build put in the bundle (better-sqlite3's JavaScript: cursors/sqlite.ts), by its version.
    (globalThis as Record<symbol, unknown>)[Symbol.for('sessionfold.bundledPackage')] = (name: string, version: string): unknown => bundledPackage(bundle, name, version);
    return cli;
  } catch (e) {
    // Past the guards above nothing should fail here: say so, so a bug in the bundle is not hidden behind the
    // ESM bundle's answer (which is the same), then run that.
    process.stderr.write(`sessionfold: the CommonJS bundle did not load (${(e as Error).message}); running the ES module bundle\n`);
    return undefined;
  }
}

/**
 * `bundle-cjs/<name>-<version>.cjs`, a package's JavaScript the build bundled (scripts/bundle-cli.mjs), run
 * through the bundle's loader; undefined when the bundle holds no such version (or it fails to load: the
 * caller then requires the package).
 */
function bundledPackage(bundle: { load(name: string): unknown }, name: string, version: string): unknown {
  if (!/^[a-z0-9-]+$/.test(name) || !/^[0-9A-Za-z.+-]+$/.test(version)) return undefined;
  try {
    return bundle.load(`${name}-${version}.cjs`);
  } catch {
    return undefined;
  }
}

/** `bundle/<name>` when the build made it after `<name>`; else `modules()`, the modules one by one. */
async function fromBundle<T>(name: string, modules: () => Promise<T>): Promise<T> {
  return fresh(`bundle/${name}`, name) ? ((await import(`./bundle/${name}`)) as T) : modules();
}

if (require.main === module) void main();

export = { main, loadCli };
