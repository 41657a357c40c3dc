#!/usr/bin/env node
/**
 * Build the optional native kernel (native/*.c → build/kernel.node) with the system's C compiler and
 * Node's own headers. Never fails the install or the build: without a compiler or headers it says so in one
 * line and sessionfold runs its JavaScript loops (cursors/native.ts). `SESSIONFOLD_NATIVE_BUILD=0` skips it;
 * `CC` picks the compiler. Up to date (built from the same source and flags, by its recorded sha256): nothing to do.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Every C file and header of native/ (sorted: the stamp's hash does not depend on the listing order), so a
// file added there is built, and a header changed there rebuilds.
const nativeFiles = (ext) => {
  try {
    return readdirSync(join(root, 'native')).filter((f) => f.endsWith(ext)).sort().map((f) => join(root, 'native', f));
  } catch {
    return [];
  }
};
const sources = nativeFiles('.c');
const ownHeaders = nativeFiles('.h');
const out = join(root, 'build', 'kernel.node');
const stamp = join(root, 'build', 'kernel.sha256');
const say = (m) => process.stderr.write(`sessionfold: ${m}\n`);

function headers() {
  const prefixes = [process.env.npm_config_nodedir, process.config.variables?.node_prefix, join(dirname(process.execPath), '..')];
  for (const p of prefixes) {
    if (p && existsSync(join(p, 'include', 'node', 'node_api.h'))) return join(p, 'include', 'node');
  }
  return undefined;
}

function main() {
  if (process.env.SESSIONFOLD_NATIVE_BUILD === '0' || sources.length === 0) return;
  if (process.platform === 'win32') return say('native kernel not built on Windows; the JavaScript loops run');
  const inc = headers();
  if (inc === undefined) return say('native kernel not built (no Node headers found); the JavaScript loops run');
  const cc = process.env.CC ?? 'cc';
  const tmp = `${out}.${process.pid}.tmp`;
  const flags = ['-O2', '-std=gnu11', '-fPIC', '-shared', '-pthread', '-fvisibility=hidden', `-I${inc}`];
  if (process.platform === 'darwin') flags.push('-undefined', 'dynamic_lookup');
  const hash = createHash('sha256');
  for (const f of [...sources, ...ownHeaders]) hash.update(readFileSync(f));
  const digest = hash.update(JSON.stringify([cc, flags, process.platform, process.arch])).digest('hex');
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  mkdirSync(dirname(out), { recursive: true });
  const args = [...flags, ...sources, '-o', tmp];
  const r = spawnSync(cc, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { force: true });
    const lines = (r.stderr ?? '').trim().split('\n').filter((l) => l !== '');
    const why = r.error?.message ?? lines.find((l) => l.includes('error')) ?? lines[0] ?? `${cc} exited with ${r.status}`;
    return say(`native kernel not built (${why}); the JavaScript loops run`);
  }
  renameSync(tmp, out);
  writeFileSync(stamp, digest);
}

try {
  main();
} catch (e) {
  // An unwritable package folder, say: never fail the install for an optional speed-up.
  say(`native kernel not built (${e instanceof Error ? e.message : String(e)}); the JavaScript loops run`);
}
