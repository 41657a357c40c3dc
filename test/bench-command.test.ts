/**
 * `sessionfold bench`: measures the user's own history per agent, falls back to the bundled demo history
 * (saying so), honours --agent and --roots. No timing assertions: the checks are on what was read.
 * The subprocess case spawns the built CLI (`npx tsc -p .` first).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus, type ExpectedDocument, type Manifest } from '../fixtures/generate/index.js';
import { nativeKernelState, type BenchReport } from '../src/cli/commands/bench.js';
import { runCli } from '../src/cli/run.js';

const root = new URL('../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'sf-bench-cmd-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function sink(): NodeJS.WritableStream & { text(): string } {
  const chunks: string[] = [];
  const s = {
    write(chunk: string | Uint8Array, ...rest: unknown[]) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (rest.find((x) => typeof x === 'function') as (() => void) | undefined)?.();
      return true;
    },
    once: () => s,
    on: () => s,
    text: () => chunks.join(''),
  };
  return s as unknown as NodeJS.WritableStream & { text(): string };
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** This process's choice of kernel (cursors/native.ts), for a child whose kernel must be the one this process loaded. */
function kernelEnv(): NodeJS.ProcessEnv {
  const { SESSIONFOLD_NATIVE, SESSIONFOLD_WASM } = process.env;
  return { ...(SESSIONFOLD_NATIVE !== undefined && { SESSIONFOLD_NATIVE }), ...(SESSIONFOLD_WASM !== undefined && { SESSIONFOLD_WASM }) };
}

function demoDocs(): { expected: ExpectedDocument; manifest: Manifest } {
  const dir = join(root, 'fixtures', 'demo');
  return {
    expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as ExpectedDocument,
    manifest: JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest,
  };
}

describe('sessionfold bench', () => {
  it('measures the bundled demo history when the user has none, and says so (built CLI, subprocess)', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const r = await promisify(execFile)(process.execPath, [join(root, 'dist/src/cli/main.cjs'), 'bench', '--json'], {
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200', ...kernelEnv() },
      cwd: home,
    });
    expect(r.stderr).toContain('bundled demo history');
    const report = JSON.parse(r.stdout) as BenchReport;
    expect(report.source).toBe('demo');
    // the child ran with the kernel this process loaded, if any
    expect(report.machine.nativeKernel).toBe(nativeKernelState());
    const { expected, manifest } = demoDocs();
    expect(report.agents.map((a) => a.agent).sort()).toEqual(['claude', 'codex']);
    for (const a of report.agents) {
      const files = manifest.files.filter((f) => f.agent === a.agent);
      expect(a.files).toBe(files.length);
      expect(a.bytes).toBe(files.reduce((n, f) => n + f.bytes, 0));
      expect(a.reads.map((x) => `${x.mode}/${x.phase}/${x.via}`)).toEqual(['full/cold/codec', 'full/warm/codec', 'usage/cold/codec', 'usage/warm/event-cache']);
      for (const x of a.reads) {
        expect(x.usageEvents).toBe(expected.agents[a.agent]!.totals.events);
        expect(x.mbPerSec).toBeGreaterThan(0);
      }
      const [fullCold, fullWarm, usageCold, usageWarm] = a.reads;
      expect(fullWarm!.events).toBe(fullCold!.events);
      expect(fullCold!.events).toBeGreaterThan(usageCold!.events);
      expect(usageWarm!.events).toBe(usageCold!.events);
    }
  });

  it('reads only the agents and roots it is given, as a table', async () => {
    const g = generateCorpus({ out: join(scratch, 'corpus'), seed: 'bench-cmd', scale: 0.002, agents: ['claude'] });
    const r = await cli(['bench', '--agent', 'claude', '--roots', join(g.roots.claude, 'projects')], { HOME: join(scratch, 'nohome'), TZ: 'UTC' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('claude'));
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(new RegExp(`^claude\\s+${g.expected.agents.claude!.files}\\s`));
    expect(r.stdout).toContain('usage-only');
    expect(r.stdout).toContain('warm (event-cache)');
    expect(r.stdout).not.toMatch(/^codex/m);
    expect(r.stdout).toContain({ avx2: 'the native kernel (AVX2)', plain: 'the native kernel (plain C)', wasm: 'the WebAssembly kernel (SIMD128)', off: 'no native kernel (JavaScript loops)' }[nativeKernelState()]);
  });

  it('says when the native kernel is turned off (SESSIONFOLD_NATIVE=0: the WebAssembly one; SESSIONFOLD_WASM=0 too: none)', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const kernel = async (env: Record<string, string>) => {
      const r = await promisify(execFile)(process.execPath, [join(root, 'dist/src/cli/main.cjs'), 'bench', '--json'], {
        env: { PATH: process.env.PATH, HOME: home, TZ: 'UTC', SESSIONFOLD_NATIVE: '0', ...env },
        cwd: home,
      });
      return (JSON.parse(r.stdout) as BenchReport).machine.nativeKernel;
    };
    expect(await kernel({})).toBe('wasm');
    expect(await kernel({ SESSIONFOLD_WASM: '0' })).toBe('off');
  });

  it('rejects a bare --roots path when several agents are selected', async () => {
    const r = await cli(['bench', '--roots', scratch], { HOME: join(scratch, 'nohome') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('USAGE_ERROR');
  });
});
