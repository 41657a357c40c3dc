/**
 * What start-up leaves off the path of small work (bench/startup.bench.ts measures it): the local zone told
 * without Intl when it is UTC (and then the same name Intl gives), an empty report that creates no cache and
 * loads neither SQLite nor the price data, and the same answer once a cache exists.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressSpaceLimited } from '../cursors/native.js';
import { localTimeZone } from '../src/cost/calendar.js';
import type { CostSummary } from '../src/cost/types.js';
import { claudeLine, writeClaudeSession } from './claude-lines.js';
import { startServeProcess, type ServeProcess } from './helpers/serve-process.js';
import { COUNTED } from './helpers/served-count.js';
import { makeHome, type Home } from './sessions-helpers.js';
import { priceMemoPath } from '../src/cost/price-memo.js';
import { getCachePath } from '../src/cache/paths.js';

const exec = promisify(execFile);
const RUN = new URL('../dist/src/cli/run.js', import.meta.url).href;

let home: Home;
beforeAll(async () => {
  home = await makeHome();
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe('the local zone', () => {
  it('is the name Intl gives, with or without Intl', () => {
    const was = process.env.TZ;
    try {
      for (const tz of ['UTC', 'GMT', 'Etc/UTC', 'Etc/GMT', 'Etc/UCT', 'Universal', 'Zulu', 'GMT0', ':UTC', 'Europe/Paris', 'America/New_York', 'utc']) {
        process.env.TZ = tz;
        expect(localTimeZone(), tz).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
      }
    } finally {
      if (was === undefined) delete process.env.TZ;
      else process.env.TZ = was;
    }
  });
});

describe('an empty cost report (built CLI)', () => {
  /** Runs the CLI in a fresh process and says which packages it loaded. */
  async function report(): Promise<{ summary: CostSummary; loaded: string[] }> {
    const script = `const m = await import(${JSON.stringify(RUN)});
let out = '';
const stdout = { write: (s) => ((out += s), true) };
const code = await m.runCli(['cost', 'report', '--json'], { stdout, stderr: process.stderr, env: process.env });
const { createRequire } = await import('node:module');
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /better-sqlite3|genai-prices/.test(k)).map((k) => k.includes('sqlite') ? 'better-sqlite3' : 'genai-prices');
process.stdout.write(JSON.stringify({ code, out, loaded: [...new Set(loaded)] }));`;
    const r = await exec(process.execPath, ['--input-type=module', '-e', script], { env: { ...home.env, SESSIONFOLD_SOCKET: 'off' } });
    const j = JSON.parse(r.stdout) as { code: number; out: string; loaded: string[] };
    expect(j.code).toBe(0);
    return { summary: JSON.parse(j.out) as CostSummary, loaded: j.loaded };
  }

  it('creates no cache and loads neither SQLite nor the price data when no agent has history', async () => {
    const cache = join(home.env.XDG_CACHE_HOME as string, 'sessionfold', 'events.db');
    const { summary, loaded } = await report();
    expect(summary).toMatchObject({ totalUsd: 0, requestCount: 0, sessionCount: 0, unpriced: [] });
    expect(existsSync(cache)).toBe(false);
    expect(loaded).toEqual([]);
  }, 60_000);

  it('still reads an existing cache when no file is left: it holds the usage of deleted files', async () => {
    await writeClaudeSession(home.claude, '66666666-6666-4666-8666-666666666666', [{ id: 'd1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 1.25 }]);
    const before = await report();
    expect(before.summary).toMatchObject({ totalUsd: 1.25, requestCount: 1 });
    await rm(join(home.claude, 'projects'), { recursive: true, force: true });
    const after = await report();
    expect(after.summary).toMatchObject({ totalUsd: 1.25, requestCount: 1 });
    expect(after.loaded).toContain('better-sqlite3');
  }, 60_000);
});

describe('an empty cost report loads no codec (built CLI, bundle and modules one by one)', () => {
  // Node's module loader reports every module it loads, ours and packages', to this hook (it runs before the
  // CLI's first import): the evidence is what was loaded, not how long it took.
  const HOOK = `data:text/javascript,${encodeURIComponent("import { writeSync } from 'node:fs'; export async function load(url, context, next) { writeSync(2, 'LOADED ' + url + '\\n'); return next(url, context); }")}`;
  const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOK)});`)}`;
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  const MAIN = join(ROOT, 'dist/src/cli/main.cjs');
  // A home of its own with no agent folder at all (makeHome's holds an empty export folder).
  let bare: Home;
  beforeAll(async () => {
    bare = await makeHome();
    await rm(bare.exports, { recursive: true, force: true });
  });
  afterAll(async () => {
    await rm(bare.dir, { recursive: true, force: true });
  });

  async function loadedBy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; files: string[] }> {
    const r = await exec(process.execPath, ['--import', REGISTER, ...args], { env: { ...bare.env, SESSIONFOLD_SOCKET: 'off', ...env } });
    const files = [...r.stderr.matchAll(/^LOADED (file:\S+)$/gm)].map((m) => relative(ROOT, fileURLToPath(m[1]!)).split('\\').join('/'));
    expect(files.length).toBeGreaterThan(3);
    return { stdout: r.stdout, files };
  }

  /** The modules of ours a loaded file holds: itself, or for a bundle chunk the modules rolldown put in it. */
  function modulesOf(file: string): string[] {
    if (!file.startsWith('dist/src/cli/bundle/')) return [file];
    return [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!);
  }

  // A codec's descriptor and roots are all an empty report needs of it; parsers, SQLite, prices and stream-json load with files.
  const codecCode = (f: string) => /^dist\/codecs\/[^/]+\/(?!descriptor\.js$|paths\.js$)[^/]+$/.test(f);
  const packages = /node_modules\/(better-sqlite3|@pydantic\/genai-prices|stream-json|stream-chain)\//;
  // Nor the scan, the event cache, the fold or the pricer: with no root there, src/cost/empty-report.ts answers.
  const foldCode = (f: string) => /^dist\/src\/(scan\/(index|discover|pool|runner)|cost\/(fold|incremental|pricing|report|filter)|cache\/(?!paths\.js$)[^/]+)\.js$/.test(f);

  it('from its ESM bundle: no codec module, no parser package, no price data', async () => {
    const { stdout, files } = await loadedBy([MAIN, 'cost', 'report', '--json'], { SESSIONFOLD_CJS: '0' });
    expect(JSON.parse(stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
    expect(files.some((f) => f.startsWith('dist/src/cli/bundle/'))).toBe(true);
    const ours = files.flatMap(modulesOf);
    expect(ours).toContain('dist/src/registry.js');
    expect(ours.some((f) => /^dist\/codecs\/claude\/(descriptor|paths)\.js$/.test(f))).toBe(true);
    expect(ours.filter(codecCode)).toEqual([]);
    expect(ours.filter(foldCode)).toEqual([]);
    expect(files.filter((f) => packages.test(f))).toEqual([]);
  }, 60_000);

  // The CommonJS bundle's chunks are compiled by vm.Script (src/cli/code-cache.cts) and packages taken by
  // require(): this preload reports both, as the ESM hook reports imports.
  const CJS_HOOK = `data:text/javascript,${encodeURIComponent(
    "import { writeSync } from 'node:fs'; import M, { syncBuiltinESMExports } from 'node:module'; import { pathToFileURL } from 'node:url'; import vm from 'node:vm'; const S = vm.Script;" +
      " vm.Script = new Proxy(S, { construct(t, a) { if (a[1]?.filename) writeSync(2, 'LOADED ' + pathToFileURL(a[1].filename).href + '\\n'); return Reflect.construct(t, a); } });" +
      " const load = M._load; M._load = function (id, parent, ...r) { const m = load.call(this, id, parent, ...r); if (!id.startsWith('node:')) try { writeSync(2, 'LOADED ' + pathToFileURL(M._resolveFilename(id, parent)).href + '\\n'); } catch {} return m; }; syncBuiltinESMExports();",
  )}`;

  it('from its CommonJS bundle (with the code cache, and without one): the same', async () => {
    for (const cache of ['0', '1', '1']) {
      const { stdout, files } = await loadedBy(['--import', CJS_HOOK, MAIN, 'cost', 'report', '--json'], { SESSIONFOLD_CODE_CACHE: cache });
      expect(JSON.parse(stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
      expect(files).toContain('dist/src/cli/bundle-cjs/run.cjs');
      // no server's socket: the front (the served client) is not loaded, only asked where the socket would be
      expect(files).toContain('dist/src/cli/bundle-cjs/socket-path.cjs');
      expect(files).not.toContain('dist/src/cli/bundle-cjs/front.cjs');
      expect(files.filter((f) => f.startsWith('dist/src/cli/bundle/') && !f.startsWith('dist/src/cli/bundle/front'))).toEqual([]); // the front (its own ESM bundle) only
      const ours = files.flatMap((f) => (f.startsWith('dist/src/cli/bundle-cjs/') ? [...readFileSync(join(ROOT, f), 'utf8').matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!) : [f]));
      expect(ours).toContain('dist/src/registry.js');
      expect(ours.some((f) => /^dist\/codecs\/claude\/(descriptor|paths)\.js$/.test(f))).toBe(true);
      expect(ours.filter(codecCode)).toEqual([]);
      expect(ours.filter(foldCode)).toEqual([]);
      expect(files.filter((f) => packages.test(f))).toEqual([]);
      // stream-json and stream-chain are bundled into the CommonJS chunks: a chunk names each module it holds
      const held = files.filter((f) => f.startsWith('dist/src/cli/bundle-cjs/')).flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/^\/\/ (\S+\.js)$/gm)].map((m) => m[1]!));
      expect(held.filter((f) => packages.test(f))).toEqual([]);
    }
    // the cache is sessionfold's own folder, one file per chunk run
    const cached = readdirSync(join(bare.dir, '.cache', 'sessionfold', 'code-cache'));
    expect(cached.some((f) => f.startsWith('run.cjs-') && f.endsWith(`-${process.version}-${process.arch}.cache`))).toBe(true);
  }, 60_000);

  it('from the modules one by one: the same', async () => {
    const { stdout, files } = await loadedBy(['--input-type=module', '-e', `const m = await import(${JSON.stringify(RUN)}); process.exitCode = await m.runCli(['cost', 'report', '--json']);`]);
    expect(JSON.parse(stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
    expect(files).toContain('dist/codecs/claude/descriptor.js');
    expect(files.filter(codecCode)).toEqual([]);
    expect(files.filter(foldCode)).toEqual([]);
    expect(files).toContain('dist/src/cost/empty-report.js');
    expect(files.filter((f) => packages.test(f))).toEqual([]);
  }, 60_000);

  // The kernels load on first use: the addon through process.dlopen, xxhash-wasm and the WebAssembly kernel
  // through WebAssembly's compile; this preload reports each call (the evidence is the call, not its time).
  const KERNELS = `data:text/javascript,${encodeURIComponent(
    "import { writeSync } from 'node:fs'; const dl = process.dlopen; process.dlopen = function (m, f, ...r) { writeSync(2, 'DLOPEN ' + f + '\\n'); return dl.call(this, m, f, ...r); };" +
      " const WA = globalThis.WebAssembly; const M = WA.Module; globalThis.WebAssembly = Object.assign(Object.create(WA), WA, { Module: new Proxy(M, { construct(t, a) { writeSync(2, 'WASM compile\\n'); return Reflect.construct(t, a); } }), instantiate: (...a) => { writeSync(2, 'WASM instantiate\\n'); return WA.instantiate(...a); } });",
  )}`;
  async function kernelsLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; loads: string[] }> {
    const r = await exec(process.execPath, ['--import', KERNELS, ...args], { env: { ...bare.env, SESSIONFOLD_SOCKET: 'off', ...env } });
    return { stdout: r.stdout, loads: [...r.stderr.matchAll(/^(DLOPEN .*kernel\.node|WASM \w+)$/gm)].map((m) => m[1]!) };
  }

  it('starts no kernel and no xxhash-wasm, which a run with files does (the addon, or with SESSIONFOLD_NATIVE=0 WebAssembly)', async () => {
    for (const native of ['1', '0']) {
      const empty = await kernelsLoadedBy([MAIN, 'cost', 'report', '--json'], { SESSIONFOLD_NATIVE: native });
      expect(JSON.parse(empty.stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
      // No WebAssembly module; the addon is opened for its malloc-arena cap only under an address-space
      // limit (cursors/native.ts limitMallocArenasAtStart), which this process's children inherit.
      expect(empty.loads.filter((l) => !l.startsWith('DLOPEN'))).toEqual([]);
      if (native === '0' || !addressSpaceLimited()) expect(empty.loads).toEqual([]);
    }
    const env = { CLAUDE_CONFIG_DIR: join(bare.dir, 'kernels-claude') };
    await writeClaudeSession(env.CLAUDE_CONFIG_DIR, '77777777-7777-4777-8777-777777777778', [{ id: 'k1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
    const withFiles = await kernelsLoadedBy([MAIN, 'cost', 'report', '--json', '--no-cache'], { ...env, SESSIONFOLD_NATIVE: '0' });
    expect(JSON.parse(withFiles.stdout)).toMatchObject({ totalUsd: 0.5, requestCount: 1 });
    expect(withFiles.loads.filter((l) => l.startsWith('WASM')).length).toBeGreaterThan(0);
    if (existsSync(join(ROOT, 'build', 'kernel.node'))) {
      const native = await kernelsLoadedBy([MAIN, 'cost', 'report', '--json', '--no-cache'], env);
      expect(JSON.parse(native.stdout)).toMatchObject({ totalUsd: 0.5, requestCount: 1 });
      expect(native.loads.some((l) => l.startsWith('DLOPEN'))).toBe(true);
    }
  }, 60_000);

  it('a warm report with nothing changed, answered from beside the cache, loads no codec module and no SQLite', async () => {
    const env = { CLAUDE_CONFIG_DIR: join(bare.dir, 'warm-claude') };
    const cache = join(bare.dir, 'warm-cache', 'events.db');
    await writeClaudeSession(env.CLAUDE_CONFIG_DIR, '77777777-7777-4777-8777-777777777779', [{ id: 'w1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.75 }]);
    // CJS_HOOK reports require() too: better-sqlite3 and the price data are required, not imported.
    const run = () => loadedBy(['--import', CJS_HOOK, '--input-type=module', '-e', `const m = await import(${JSON.stringify(RUN)}); process.exitCode = await m.runCli(['cost', 'report', '--json', '--cache', ${JSON.stringify(cache)}]);`], env);
    const built = await run(); // folds and stores the snapshot
    await run(); // nothing changed: the snapshot answers
    const past = new Date(Date.now() - 60_000); // the cache was written a while ago (src/cache/answer-memo.ts, RACY_MS)
    for (const f of [cache, `${cache}-wal`]) if (existsSync(f)) utimesSync(f, past, past);
    const viaSqlite = await run(); // answers through SQLite and keeps the answer beside the cache
    expect(viaSqlite.files.some((f) => packages.test(f))).toBe(true);
    const warm = await run();
    expect(JSON.parse(warm.stdout)).toMatchObject({ totalUsd: 0.75, requestCount: 1 });
    expect(warm.stdout).toBe(built.stdout);
    expect(warm.files.filter(codecCode)).toEqual([]);
    expect(warm.files.filter((f) => packages.test(f))).toEqual([]);
  }, 60_000);

  it('loads the codec of an agent with files, and that one only', async () => {
    const env = { CLAUDE_CONFIG_DIR: join(bare.dir, 'only-claude') };
    await writeClaudeSession(join(env.CLAUDE_CONFIG_DIR), '77777777-7777-4777-8777-777777777777', [{ id: 'o1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
    const { stdout, files } = await loadedBy(['--input-type=module', '-e', `const m = await import(${JSON.stringify(RUN)}); process.exitCode = await m.runCli(['cost', 'report', '--json', '--no-cache']);`], env);
    expect(JSON.parse(stdout)).toMatchObject({ totalUsd: 0.5, requestCount: 1 });
    const codecs = new Set(files.filter(codecCode).map((f) => f.split('/')[2]));
    expect([...codecs]).toEqual(['claude']);
  }, 60_000);
});

describe('a warm local statusline (built CLI)', () => {
  let own: Home;
  beforeAll(async () => {
    own = await makeHome();
  });
  afterAll(async () => {
    await rm(own.dir, { recursive: true, force: true });
  });

  /** A status line in a fresh process: its data, and whether it loaded the price data. */
  async function statusline(extra: Record<string, string> = {}): Promise<{ data: { session: { costUsd: number }; today: { costUsd: number } }; prices: boolean }> {
    const script = `const m = await import(${JSON.stringify(RUN)});
let out = '';
const stdout = { write: (s) => ((out += s), true) };
const code = await m.runCli(['statusline', '--agent', 'claude', '--session', '88888888-8888-4888-8888-888888888888', '--json'], { stdout, stderr: process.stderr, env: process.env });
const { createRequire } = await import('node:module');
const prices = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('genai-prices'));
process.stdout.write(JSON.stringify({ code, out, prices }));`;
    const r = await exec(process.execPath, ['--input-type=module', '-e', script], { env: { ...own.env, SESSIONFOLD_SOCKET: 'off', ...extra } });
    const j = JSON.parse(r.stdout) as { code: number; out: string; prices: boolean };
    expect(j.code).toBe(0);
    return { data: JSON.parse(j.out), prices: j.prices };
  }

  it('prices the models it resolved before without loading the price data, to the same cents', async () => {
    const now = Date.now();
    // Claude Code records no cost: the status line prices every response.
    const lines = [
      { id: 's1', ms: now - 120_000, inp: 1000, out: 2000, cr: 30_000, cw: 500, usd: 0 },
      { id: 's2', ms: now - 60_000, inp: 100, out: 400, cr: 31_000, cw: 0, usd: 0 },
    ].map((r) => {
      const o = JSON.parse(claudeLine('88888888-8888-4888-8888-888888888888', r)) as Record<string, unknown>;
      delete o.costUSD;
      return JSON.stringify(o);
    });
    await mkdir(join(own.claude, 'projects', '-w'), { recursive: true });
    await writeFile(join(own.claude, 'projects', '-w', '88888888-8888-4888-8888-888888888888.jsonl'), lines.join('\n') + '\n');
    // without the build's price table (src/cost/price-data.ts) the first run loads the package
    const noTable = { SESSIONFOLD_PRICE_TABLE: '0' };
    const cold = await statusline(noTable);
    expect(cold.prices).toBe(true);
    const memo = priceMemoPath(getCachePath(own.env));
    expect(existsSync(memo)).toBe(true);
    const warm = await statusline(noTable);
    expect(warm.prices).toBe(false);
    expect(warm.data.session.costUsd).toBeGreaterThan(0);
    expect(warm.data.session.costUsd).toBe(cold.data.session.costUsd);
    expect(warm.data.today.costUsd).toBe(cold.data.today.costUsd);
    // with it, a run without the resolutions resolves from the table, to the same cents
    await rm(memo);
    const table = await statusline();
    expect(table.prices).toBe(false);
    expect(table.data.session.costUsd).toBe(cold.data.session.costUsd);
    expect(table.data.today.costUsd).toBe(cold.data.today.costUsd);
  }, 60_000);
});

describe('the address-space limit that makes the executable cap its malloc arenas at once', () => {
  const limits = (v: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax data size             unlimited            unlimited            bytes\nMax address space         ${v}            ${v}            bytes\n`;
  it.runIf(process.platform === 'linux')('is read from /proc/self/limits', () => {
    expect(addressSpaceLimited(limits('unlimited'))).toBe(false);
    expect(addressSpaceLimited(limits('1073741824'))).toBe(true);
    expect(addressSpaceLimited('nothing here')).toBe(true); // cannot tell: cap
    expect(addressSpaceLimited()).toBe(/^Max address space\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] !== 'unlimited');
  });
});

describe('the executable (package.json bin, CommonJS) starts no ESM loader', () => {
  // Node's ESM loader (its translators and module jobs) starts for an ES-module entry and for each import();
  // the bin's paths take everything by require(). A preload (-r, which itself starts no ESM loader) prints the
  // process's own record of the internal modules it loaded: the evidence is the record, not a time.
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.sessionfold!);
  const SID = '99999999-9999-4999-8999-999999999999';
  const NOW = '2026-01-05T12:00:00.000Z';
  const ESM = /^NativeModule internal\/modules\/esm\/(translators|module_job)$/;
  let own: Home;
  let probe: string;
  let server: ServeProcess;
  let socket: string;
  beforeAll(async () => {
    own = await makeHome();
    probe = join(own.dir, 'modules.cjs');
    await writeFile(probe, "process.on('exit', () => require('node:fs').writeSync(2, '\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n");
    await writeClaudeSession(own.claude, SID, [{ id: 'm1', ms: Date.parse(NOW) - 60_000, inp: 10, out: 20, cr: 0, cw: 0, usd: 0.25 }]);
    socket = join(own.dir, 'sf.sock');
    server = await startServeProcess(BIN, socket, { ...own.env, SESSIONFOLD_SOCKET: 'off' });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(own.dir, { recursive: true, force: true });
  });

  async function internals(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; modules: string[] }> {
    const r = await exec(process.execPath, ['-r', probe, BIN, ...args], { env: { ...own.env, SESSIONFOLD_SOCKET: 'off', ...env } });
    const m = /^MODULES (.*)$/m.exec(r.stderr);
    expect(m).not.toBeNull();
    return { stdout: r.stdout, modules: JSON.parse(m![1]!) as string[] };
  }

  it('is main.cjs', () => {
    expect(BIN.endsWith('dist/src/cli/main.cjs')).toBe(true);
  });

  it('for an empty report, and for a served status line', async () => {
    const empty = await internals(['cost', 'report', '--json'], { HOME: join(own.dir, 'nobody'), CLAUDE_CONFIG_DIR: join(own.dir, 'nobody', '.claude'), CODEX_HOME: join(own.dir, 'nobody', '.codex') });
    expect(JSON.parse(empty.stdout)).toMatchObject({ totalUsd: 0, requestCount: 0 });
    expect(empty.modules.filter((m) => ESM.test(m))).toEqual([]);
    const args = ['statusline', '--agent', 'claude', '--session', SID, '--json', '--now', NOW];
    const local = await internals(args, {});
    const served = await internals(args, { SESSIONFOLD_SOCKET: socket });
    expect(JSON.parse(served.stdout)).toMatchObject({ session: { costUsd: 0.25 } });
    expect(served.stdout).toBe(local.stdout);
    expect(served.modules.filter((m) => ESM.test(m))).toEqual([]);
    await expect.poll(server.served, COUNTED).toBe(1); // the server answered it
    // the probe tells the ESM loader apart: the same status line through the ES-module front does start it
    const esm = await internals(args, { SESSIONFOLD_SOCKET: socket, SESSIONFOLD_CJS: '0' });
    expect(esm.stdout).toBe(local.stdout);
    expect(esm.modules.filter((m) => ESM.test(m)).length).toBeGreaterThan(0);
  }, 60_000);

  it('loads node:v8 (the scan budget, src/cli/jit.ts) only for a report that lists a history', async () => {
    const V8 = 'NativeModule v8';
    // No root of any agent (the exports folder is one) and no cache: the empty report, which lists nothing.
    const nobody = { HOME: join(own.dir, 'nobody'), CLAUDE_CONFIG_DIR: join(own.dir, 'nobody', '.claude'), CODEX_HOME: join(own.dir, 'nobody', '.codex'), SESSIONFOLD_EXPORT_DIR: join(own.dir, 'nobody', 'exports'), SESSIONFOLD_CACHE: join(own.dir, 'nobody', 'events.db') };
    expect((await internals(['cost', 'report', '--json'], nobody)).modules).not.toContain(V8);
    const read = await internals(['cost', 'report', '--json', '--no-cache'], {});
    expect(JSON.parse(read.stdout)).toMatchObject({ totalUsd: 0.25 });
    expect(read.modules.includes(V8)).toBe(process.versions.v8.startsWith('11.3.'));
    const off = await internals(['cost', 'report', '--json', '--no-cache'], { SESSIONFOLD_JIT: '0' });
    expect(off.stdout).toBe(read.stdout);
    expect(off.modules).not.toContain(V8);
  }, 60_000);

  it('on a Node without require() of ES modules, runs the CLI from its ESM bundle, with the same answer', async () => {
    const nobody = { HOME: join(own.dir, 'nobody'), CLAUDE_CONFIG_DIR: join(own.dir, 'nobody', '.claude'), CODEX_HOME: join(own.dir, 'nobody', '.codex') };
    const cjs = await internals(['cost', 'report', '--json'], nobody);
    // a preload that makes this Node say what Node 20 before 20.19 says
    const older = join(own.dir, 'no-require-module.cjs');
    await writeFile(older, "Object.defineProperty(process.features, 'require_module', { value: false });\n");
    const r = await exec(process.execPath, ['-r', older, '-r', probe, BIN, 'cost', 'report', '--json'], { env: { ...own.env, SESSIONFOLD_SOCKET: 'off', ...nobody } });
    expect(r.stdout).toBe(cjs.stdout);
    const modules = JSON.parse(/^MODULES (.*)$/m.exec(r.stderr)![1]!) as string[];
    expect(modules.filter((m) => ESM.test(m)).length).toBeGreaterThan(0); // the ESM bundle, through import()
  }, 60_000);
});

/**
 * The modules a module loads at run time (static imports and re-exports, type-only ones left out), followed
 * through the sources: what Node loads before the module's code runs.
 */
function staticGraph(entry: string): string[] {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?'(\.[^']+)\.js';/gms)) walk(resolve(dirname(file), `${m[1]}.ts`));
  };
  walk(join(root, entry));
  return [...seen].map((f) => relative(root, f)).sort();
}

describe('the served client (main.ts asks a running serve, then renders)', () => {
  // A served status line pays for Node, these modules and the round trip: never the registry, the codecs,
  // the folds, the price data or SQLite, which only the server (and a local run) needs.
  const heavy = /^src\/(registry|builtin-codecs)\.ts$|^codecs\/|^src\/(cost|sessions)\/(fold|pricing|price-table|filter|export|list|listing|manager)\.ts$|^cursors\/(sqlite|native|read-jsonl)\.ts$/;
  for (const entry of ['src/cli/front.ts', 'src/cli/served.ts', 'src/cli/statusline-input.ts', 'src/cli/render/statusline.ts', 'src/cli/render/cost-report.ts', 'src/cli/render/sessions-list.ts']) {
    it(`${entry} loads none of the registry, codecs, folds, prices or SQLite`, () => {
      const graph = staticGraph(entry);
      expect(graph).toContain(entry);
      expect(graph.filter((f) => heavy.test(f))).toEqual([]);
      expect(graph.length).toBeLessThan(12);
    });
  }
});
