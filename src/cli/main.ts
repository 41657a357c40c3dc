#!/usr/bin/env node
/**
 * The sessionfold executable: runs the CLI with the process's streams. Importing it runs nothing.
 *
 * `statusline` with no session flag reads Claude Code's status-line JSON on stdin and turns it into flags
 * (statusline-input.ts). A served command (`cost report`, `sessions list`, `statusline`) goes first to a
 * running `sessionfold serve` of this build (src/serve/), loading only the front (front.ts, from its bundle:
 * the client) and, while the server computes, the command's render step (served.ts); everything else, and a
 * served command nobody answers, loads
 * the CLI (run.ts, from its bundle where the build made one: `loadCli`). `runCli` itself is exported by the package (src/index.ts) and by run.ts.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Writes the code caches a CommonJS load missed (code-cache.ts), once the command is done. */
let saveCodeCache: (() => number) | undefined;

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  // `sessionfold … | head`: the reader went away; stop quietly, as other Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  let argv = process.argv.slice(2);
  let served: number | undefined;
  // statusline, cost report, sessions list: the front (its bundle) sees whether the command is served
  const front = argv[0] === 'statusline' || argv[0] === 'cost' || argv[0] === 'sessions' ? await loadFront() : undefined;
  if (front?.statusLineReadsStdin(argv) === true) {
    // Claude Code's status-line JSON becomes flags here, so the server (and the command) never read stdin.
    try {
      argv = [argv[0] as string, ...front.statusLineArgs(await readStdin()), ...argv.slice(1)];
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'IO_ERROR';
      process.stdout.write(`${front.fallbackStatusLine(code)}\n`); // a status bar never goes blank
      process.stderr.write(`error ${code}: ${(e as Error).message}\n`);
      served = 0;
    }
  }
  if (served === undefined && front?.isServed(argv) === true) {
    served = await front.runServedCommand(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
  }
  if (served === undefined) {
    // from the CLI's own modules (its bundle): importing native.js here would load the kernel's module twice
    const cli = await loadCli();
    cli.limitMallocArenasOnLoad();
    process.exitCode = await cli.runCli(argv);
    saveCodeCache?.();
  } else process.exitCode = served;
}

/**
 * All of standard input as text; empty on a terminal (nothing is piped). Read with one blocking read of fd 0,
 * which sets up no stream (process.stdin's costs a status line a few ms); a non-blocking descriptor (EAGAIN)
 * is read as a stream.
 */
async function readStdin(): Promise<string> {
  if (isatty(0)) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/**
 * The CLI: its bundle (scripts/bundle-cli.mjs, made by the build after the modules it bundles: `bundle/run.js`
 * and the chunks it imports): a cold report ~55 ms sooner than with the modules one by one (interleaved runs,
 * bench/RESULTS.md "Seventh session"); run.js itself when there is none, or when run.js is newer (a compile
 * after the last bundle).
 */
export async function loadCli(): Promise<typeof import('./run.js')> {
  return (await fromCjsBundle()) ?? fromBundle('run.js', () => import('./run.js'));
}

/**
 * The CLI from `bundle-cjs/run.cjs` with V8's code cache (code-cache.ts) when the build made it after run.js
 * and this Node can `require()` ES modules (Node 20.19+: a guard; the bundle holds the ES-module-only packages
 * it uses); undefined otherwise, or when it fails to load: the ESM bundle then runs. Interleaved runs of an
 * empty report: about 30 ms of CPU less than the ESM bundle, about 4 of it the cache's (bench/RESULTS.md,
 * startup).
 */
async function fromCjsBundle(): Promise<typeof import('./run.js') | undefined> {
  if ((process.features as { require_module?: boolean }).require_module !== true || process.env.SESSIONFOLD_CJS === '0') return undefined;
  const entry = new URL('./bundle-cjs/run.cjs', import.meta.url);
  try {
    if (statSync(entry).mtimeMs < statSync(new URL('./run.js', import.meta.url)).mtimeMs) return undefined;
  } catch {
    return undefined; // no CommonJS bundle (the sources, or a build without rolldown)
  }
  capArenasFirst();
  try {
    const { cjsBundle, codeCacheDir } = await import('./code-cache.js');
    const bundle = cjsBundle(fileURLToPath(new URL('./bundle-cjs/', import.meta.url)), process.env.SESSIONFOLD_CODE_CACHE === '0' ? undefined : codeCacheDir());
    const cli = bundle.load('run.cjs') as typeof import('./run.js');
    saveCodeCache = bundle.save;
    return cli;
  } catch {
    return undefined;
  }
}

/**
 * glibc's malloc arenas capped (cursors/native.ts MALLOC_ARENAS) before the CommonJS bundle compiles: V8
 * compiles it on background threads, and each thread that allocates takes an arena of its own, which under a
 * 1 GB address-space limit (`ulimit -v`) left V8 no room for its heap. The CLI's own cap comes only when the
 * kernel loads, later. The addon loaded here is the one the kernel loads again (Node keeps one per path).
 */
function capArenasFirst(): void {
  if (process.env.SESSIONFOLD_NATIVE === '0') return;
  const load = createRequire(import.meta.url);
  for (const rel of ['../../../build/kernel.node', '../../build/kernel.node']) {
    try {
      (load(rel) as { limitArenas?: (n: number) => boolean }).limitArenas?.(2);
      return;
    } catch {
      // not built there
    }
  }
}

/** The front (front.ts): from its bundle, as loadCli loads the CLI. */
function loadFront(): Promise<typeof import('./front.js')> {
  return fromBundle('front.js', () => import('./front.js'));
}

/** `bundle/<name>` when the build made it after `<name>`; else `modules()`, the modules one by one. */
async function fromBundle<T>(name: string, modules: () => Promise<T>): Promise<T> {
  const bundle = new URL(`./bundle/${name}`, import.meta.url);
  let fresh = false;
  try {
    fresh = statSync(bundle).mtimeMs >= statSync(new URL(`./${name}`, import.meta.url)).mtimeMs;
  } catch {
    // no bundle (the sources, or a build without rolldown)
  }
  return fresh ? ((await import(bundle.href)) as T) : modules();
}
