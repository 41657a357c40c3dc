/**
 * The executable raises V8's tier-up budget for its scans (src/cli/jit.ts) only on the V8 it was measured on,
 * never over a budget the user set, and not with SESSIONFOLD_JIT=0; never in a server (a served report). A
 * cost report, cost blocks, a local status line or a sessions list raises it before it lists the history, a
 * warm one that reads no file too; a cost report or cost blocks over no history never.
 */
import { rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appliesTo } from '../src/cli/jit.js';
import { writeClaudeSession } from './claude-lines.js';
import { makeHome } from './sessions-helpers.js';

/** `node:v8` as cursors/builtins.ts takes it (the object whose setFlagsFromString jit.ts calls). */
const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
/** Whether the budget applies to this test process, by jit.ts's own rule: the budget tests run only where it does. */
const tunes = appliesTo(process.versions.v8, ` ${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''} `, process.env);

describe('the CLI scan budget', () => {
  it('applies on V8 11.3 (Node 20) unless the user set the budget or turned it off', () => {
    expect(appliesTo('11.3.244.8-node.38', ' ', {})).toBe(true);
    expect(appliesTo('11.3.244.8-node.38', '--max-old-space-size=4096 ', {})).toBe(true);
    expect(appliesTo('11.3.244.8-node.38', '--interrupt-budget=1000 ', {})).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' --interrupt_budget=1000', {})).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' ', { SESSIONFOLD_JIT: '0' })).toBe(false);
    expect(appliesTo('11.3.244.8-node.38', ' ', { SESSIONFOLD_JIT: '1' })).toBe(true);
    expect(appliesTo('12.4.254.21-node.33', ' ', {})).toBe(false);
    expect(appliesTo('11.8.172.17-node.15', ' ', {})).toBe(false);
  });
});

describe('the budget in a server', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it.runIf(tunes)('is not raised by a served report that reads files', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    const home = await makeHome();
    try {
      await writeClaudeSession(home.claude, '77777777-7777-4777-8777-777777777777', [{ id: 'j1', ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
      vi.resetModules(); // jit.ts's once-per-process state fresh, as in a new server
      const { computeServed } = await import('../src/cli/served-compute.js');
      const env = { ...home.env, SESSIONFOLD_CACHE: join(home.dir, 'c.db') };
      expect(await computeServed(['cost', 'report', '--json'], env)).toMatchObject({ report: { summary: { requestCount: 1 } } });
      expect(flags).not.toHaveBeenCalled();
    } finally {
      await rm(home.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('is raised on a first progress exactly where its rule applies (on any Node: elsewhere, never)', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    vi.resetModules();
    const { createProgress } = await import('../src/cli/progress.js');
    const p = createProgress(quiet, process.env);
    p.onProgress(0, 100);
    p.stop();
    expect(flags.mock.calls.length > 0).toBe(tunes);
  });

  it.runIf(tunes)('is raised in a one-shot run, on its first progress (the spy sees a tuning)', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    vi.resetModules();
    const { createProgress } = await import('../src/cli/progress.js');
    const p = createProgress(quiet, {});
    p.onProgress(0, 100);
    p.stop();
    expect(flags).toHaveBeenCalledWith(expect.stringMatching(/^--interrupt-budget=\d+$/));
  });
});

describe('the budget in a one-shot cost report', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });
  const sink = () => {
    const chunks: string[] = [];
    return { chunks, stream: { write: (c: string) => (chunks.push(c), true) } as unknown as NodeJS.WritableStream };
  };

  /** `argv` as a new process runs it (jit.ts's state fresh): whether it tuned V8, and its JSON output. */
  async function oneShot(argv: string[], env: NodeJS.ProcessEnv): Promise<{ tuned: boolean; out: unknown }> {
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    vi.resetModules();
    const { runCli } = await import('../src/cli/run.js');
    const out = sink();
    expect(await runCli(argv, { stdout: out.stream, stderr: quiet, env })).toBe(0);
    const tuned = flags.mock.calls.some(([f]) => /^--interrupt-budget=\d+$/.test(String(f)));
    flags.mockRestore();
    return { tuned, out: JSON.parse(out.chunks.join('')) as unknown };
  }

  /** `cost report --json` as a new process runs it: whether it tuned V8, and its requests. */
  async function report(env: NodeJS.ProcessEnv): Promise<{ tuned: boolean; requests: number }> {
    const r = await oneShot(['cost', 'report', '--json'], env);
    return { tuned: r.tuned, requests: (r.out as { requestCount: number }).requestCount };
  }

  /** A home with one Claude session `sid` ($0.50), its cache and no server: `test(env)`, then the home removed. */
  async function withSession(sid: string, test: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<void> {
    const home = await makeHome();
    try {
      await writeClaudeSession(home.claude, sid, [{ id: `r-${sid.slice(-4)}`, ms: Date.parse('2026-01-05T10:00:00Z'), inp: 10, out: 20, cr: 0, cw: 0, usd: 0.5 }]);
      await test({ ...home.env, SESSIONFOLD_CACHE: join(home.dir, 'c.db'), SESSIONFOLD_SOCKET: 'off' });
    } finally {
      await rm(home.dir, { recursive: true, force: true });
    }
  }

  it.runIf(tunes)('is raised by a local status line, which lists the history too', async () => {
    const sid = '77777777-7777-4777-8777-777777777779';
    await withSession(sid, async (env) => {
      const r = await oneShot(['statusline', '--agent', 'claude', '--session', sid, '--json'], env);
      expect(r.tuned).toBe(true);
      expect(r.out).toMatchObject({ session: { costUsd: 0.5 } });
    });
  }, 60_000);

  it.runIf(tunes)('is raised by a sessions list, which stats every file', async () => {
    const sid = '77777777-7777-4777-8777-77777777777a';
    await withSession(sid, async (env) => {
      const r = await oneShot(['sessions', 'list', '--json'], env);
      expect(r.tuned).toBe(true);
      expect(JSON.stringify(r.out)).toContain(sid);
    });
  }, 60_000);

  it.runIf(tunes)('is raised before a warm report lists the history, though it reads no file', async () => {
    await withSession('77777777-7777-4777-8777-777777777778', async (env) => {
      expect(await report(env)).toEqual({ tuned: true, requests: 1 }); // builds the cache
      // Nothing changed: the stored answer, no file read (no progress with a size), and still tuned first.
      expect(await report(env)).toEqual({ tuned: true, requests: 1 });
    });
  }, 60_000);

  it.runIf(tunes)('is raised by cost blocks over a history, cold and warm, and not over none (the empty report\'s rule)', async () => {
    const blocks = async (env: NodeJS.ProcessEnv) => {
      const r = await oneShot(['cost', 'blocks', '--json'], env);
      const costs = (r.out as { blocks: { isGap?: boolean; costUSD: number }[] }).blocks.filter((b) => b.isGap !== true).map((b) => b.costUSD);
      return { tuned: r.tuned, costs };
    };
    await withSession('77777777-7777-4777-8777-77777777777b', async (env) => {
      expect(await blocks(env)).toEqual({ tuned: true, costs: [0.5] }); // builds the cache
      expect(await blocks(env)).toEqual({ tuned: true, costs: [0.5] });
    });
    const home = await makeHome();
    try {
      await rm(home.exports, { recursive: true }); // a root that exists is a history to list
      expect(await blocks({ ...home.env, SESSIONFOLD_SOCKET: 'off' })).toEqual({ tuned: false, costs: [] });
      // The same history with a cache that may hold deleted files' records: a history to scan.
      const cached = { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: join(home.dir, 'c.db') };
      await writeFile(cached.SESSIONFOLD_CACHE, '');
      expect((await blocks(cached)).tuned).toBe(true);
    } finally {
      await rm(home.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(tunes)('is not raised by an empty report (no history)', async () => {
    const home = await makeHome();
    try {
      await rm(home.exports, { recursive: true }); // a root that exists is a history to list
      expect(await report({ ...home.env, SESSIONFOLD_SOCKET: 'off' })).toEqual({ tuned: false, requests: 0 });
    } finally {
      await rm(home.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
