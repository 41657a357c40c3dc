/**
 * Helpers of the list summary-cache tests: probe codecs (a built-in codec under another id that records every
 * file it reads, through `read()` or its line core), a home with real fixtures and generated large sessions,
 * price overrides, and a look into the cache database.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Codec } from '../cursors/protocol/codec.js';
import type { LineCore } from '../cursors/core.js';
import { getCodec, loadCodecs, registerCodec } from '../src/registry.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import type { SessionListOptions, SessionManagerOptions, SessionSummary } from '../src/sessions/types.js';
import { writeExportSession, type Home } from './sessions-helpers.js';

// The probes copy built-in codecs' line cores, which a registered codec has only once its module is loaded.
await loadCodecs();

/** A registered copy of a codec that logs the path of every file it reads. */
export interface Probe {
  id: string;
  codec: Codec;
  /** Paths read since the last `reset()` (a path once per read or line-core start). */
  reads: string[];
  reset(): void;
}

/** Register `<base> as <id>` (again: replaces the earlier one, e.g. with another parserVersion). */
export function registerProbe(baseId: string, id: string, parserVersion?: number): Probe {
  const base = getCodec(baseId);
  const reads: string[] = [];
  const core = base.lineCore as LineCore<unknown> | undefined;
  const lineCore =
    core === undefined
      ? undefined
      : new Proxy(core, {
          get(target, key, receiver) {
            if (key === 'init') {
              return (o: { file: string }) => {
                reads.push(o.file);
                return target.init(o as Parameters<typeof target.init>[0]);
              };
            }
            const v = Reflect.get(target, key, receiver) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
  const codec: Codec = {
    id,
    aliases: [],
    displayName: `${base.displayName} (probe)`,
    parserVersion: parserVersion ?? base.parserVersion,
    capabilities: base.capabilities,
    defaultRoots: (env) => base.defaultRoots(env),
    discover: (roots) => base.discover(roots),
    getParseDependencies: (file) => base.getParseDependencies(file),
    ...(lineCore !== undefined && { lineCore }),
    read(file, options) {
      reads.push(file);
      return base.read(file, options);
    },
  };
  registerCodec(codec);
  return { id, codec, reads, reset: () => void reads.splice(0) };
}

/** A manager over `roots` for the probes, with the default pricer (price overrides under the home). */
export function manager(home: Home, roots: Record<string, string[]>, extra: SessionManagerOptions = {}): SessionManager {
  return createSessionManager({ env: home.env, roots, ...extra });
}

export function pricesPath(home: Home): string {
  return join(home.env.XDG_CONFIG_HOME as string, 'sessionfold', 'prices.json');
}

/** Write the price-override file: `rate` USD per million input and output tokens for the test models. */
export async function writePrices(home: Home, rate: number): Promise<void> {
  const p = pricesPath(home);
  await mkdir(dirname(p), { recursive: true });
  const price = { input_mtok: rate, output_mtok: rate * 5, cache_read_mtok: rate / 10, cache_write_mtok: rate * 1.25 };
  await writeFile(p, JSON.stringify({ models: { 'claude-*': price, 'gpt-*': price, 'model-*': price } }));
}

export function cachePath(home: Home): string {
  return join(home.env.XDG_CACHE_HOME as string, 'sessionfold', 'events.db');
}

/** The `summaries` rows of an agent (read-only look). */
export function summaryRows(home: Home, agent: string): { path: string; peek: string | null; usage: string | null; whole: string | null; mtime_ms: number }[] {
  const db = new Database(cachePath(home), { readonly: true });
  try {
    return db.prepare('SELECT path, peek, usage, whole, mtime_ms FROM summaries WHERE agent = ? ORDER BY path').all(agent) as ReturnType<typeof summaryRows>;
  } finally {
    db.close();
  }
}

/** `count` sessionfold-jsonl sessions of ~150 KB each (larger than a whole peek), models mixed. */
export async function writeLargeSessions(root: string, count: number, prefix = 'large'): Promise<void> {
  await mkdir(root, { recursive: true });
  const filler = 'x'.repeat(1200);
  for (let i = 0; i < count; i++) {
    const msgs = [];
    for (let k = 0; k < 60; k++) {
      const model = k % 3 === 0 ? 'gpt-5' : 'claude-sonnet-4-5';
      msgs.push({ role: 'user' as const, content: `q${k} ${filler}`, timestamp: new Date(Date.UTC(2026, 3, 1 + i, 0, k)).toISOString() });
      msgs.push({
        role: 'assistant' as const,
        content: `a${k} ${filler}`,
        id: `${prefix}${i}-${k}`,
        timestamp: new Date(Date.UTC(2026, 3, 1 + i, 0, k, 30)).toISOString(),
        model,
        usage: { model, inputTokens: 10 * i + k, outputTokens: i + 1, reasoningTokens: 0, cacheReadTokens: 100, cacheWriteTokens: 7, cacheWrite1hTokens: 0, singleRequest: true, dedupKey: `${prefix}:${i}:${k}` },
      });
    }
    await writeExportSession(root, { agent: 'x', sessionId: `${prefix}-${i}`, cwd: i % 2 === 0 ? '/work/even' : '/work/odd' }, msgs);
  }
}

/** Summaries as JSON text: equal strings mean equal values and the same key order. */
export function asJson(rows: SessionSummary[]): string {
  return JSON.stringify(rows);
}

/** The list option sets every equivalence test runs (each option of `list`, alone and combined). */
export function optionMatrix(cwd: string, model: string): SessionListOptions[] {
  return [
    {},
    { limit: 3 },
    { sortDirection: 'asc' },
    { sort: 'cost' },
    { sort: 'cost', sortDirection: 'asc', limit: 4 },
    { sort: 'turns' },
    { sort: 'turns', sortDirection: 'asc', limit: 2 },
    { model },
    { model: 'no-such-model' },
    { tags: ['tagged'] },
    { cwd },
    { since: new Date('2026-01-02T00:00:00Z') },
    { until: new Date('2026-04-03T00:00:00Z') },
    { full: true },
    { exactBytes: 400_000 },
    { subagents: true },
    { subagents: true, sort: 'turns', limit: 1000 },
    { limit: 1000, sort: 'cost', model },
  ];
}
