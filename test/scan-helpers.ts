/**
 * Helpers of the scan and cache tests: sessionfold-jsonl session trees in temp dirs, and record collection
 * in a canonical order (the scan's cross-file order is not deterministic).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { scanUsage } from '../src/scan/index.js';
import { expect } from 'vitest';
import { eventTime } from '../src/cost/filter.js';
import { hashKey } from '../src/key-table.js';
import { KEY_HI, KEY_LO, KEY_OF, TIME_MS, TIME_OF, type ScanOptions, type UsageRecord } from '../src/scan/types.js';

export const AGENT = 'sessionfold-jsonl';

export async function tempDir(prefix = 'sf-scan-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function header(sessionId: string, cwd?: string): string {
  return JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId, ...(cwd !== undefined && { cwd }), model: 'claude-sonnet-4-5' });
}

let counter = 0;
/** A message line with usage; `id` makes the dedup key. */
export function usageLine(sessionId: string, id: string, output: number, extra: Record<string, unknown> = {}): string {
  counter++;
  return JSON.stringify({
    type: 'sessionfold.message',
    index: counter,
    role: 'assistant',
    content: `réponse ${id} — 世界 🙂`,
    timestamp: `2026-01-0${1 + (output % 9)}T10:00:00.000Z`,
    model: 'claude-sonnet-4-5',
    id,
    usage: { inputTokens: 10 + output, outputTokens: output, cacheReadTokens: 3, cacheWriteTokens: 2, cacheWrite1hTokens: 1, singleRequest: true, ...extra },
  });
}

export function userLine(text: string): string {
  counter++;
  return JSON.stringify({ type: 'sessionfold.message', index: counter, role: 'user', content: text, timestamp: '2026-01-01T09:00:00.000Z' });
}

/** A session file body: header + `n` usage lines (ids `${sid}-${i}`). */
export function sessionBody(sid: string, n: number, cwd = `/work/${sid}`): string {
  const lines = [header(sid, cwd)];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) lines.push(userLine(`question ${i}`));
    lines.push(usageLine(sid, `${sid}-${i}`, i + 1));
  }
  return `${lines.join('\n')}\n`;
}

export async function put(path: string, content: string | Buffer): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  return path;
}

/** A tree of `files` sessions of various sizes under `<dir>/exports`. */
export async function makeTree(dir: string, files = 6, perFile = (i: number) => 5 + i * 7): Promise<{ root: string; paths: string[] }> {
  const root = join(dir, 'exports');
  const paths: string[] = [];
  for (let i = 0; i < files; i++) paths.push(await put(join(root, `p${i % 2}`, `s${i}.jsonl`), sessionBody(`s${i}`, perFile(i))));
  return { root, paths };
}

/**
 * Records in one order, without the fold hints a native engine adds (src/scan/types.ts FoldHints: a record of
 * the cache's or a worker's read has none; test/native-scan.test.ts checks the engines' against the fold's).
 */
export function canonical(records: readonly UsageRecord[]): UsageRecord[] {
  const key = (r: UsageRecord) => `${r.file}\0${String(r.retained === true)}\0${String(r.offset).padStart(16, '0')}\0${r.dedupKey}`;
  const plain = records.map(({ [KEY_HI]: _hi, [KEY_LO]: _lo, [KEY_OF]: _k, [TIME_MS]: _t, [TIME_OF]: _ts, ...r }) => {
    // A hint a record carries is what the fold would compute itself (test/native-scan.test.ts checks each).
    if (_hi !== undefined && !Number.isNaN(_hi)) expect([_hi, _lo]).toEqual(hashKey(r.dedupKey));
    if (_t !== undefined && !Number.isNaN(_t)) expect(_t).toBe(eventTime(r.timestamp));
    return r as UsageRecord;
  });
  return plain.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export async function collect(options: ScanOptions): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  for await (const r of scanUsage(options)) out.push(r);
  return canonical(out);
}

/** Options for a scan of `root` only, with an isolated env. */
export function opts(dir: string, root: string, extra: ScanOptions = {}): ScanOptions {
  return {
    agents: [AGENT],
    roots: { [AGENT]: [root] },
    env: { HOME: dir },
    cachePath: join(dir, 'cache', 'events.db'),
    onWarning: () => undefined,
    ...extra,
  };
}

/** Dedup by key, first wins: what a fold counts. */
export function dedup(records: readonly UsageRecord[]): Map<string, UsageRecord> {
  const m = new Map<string, UsageRecord>();
  for (const r of records) if (!m.has(r.dedupKey)) m.set(r.dedupKey, r);
  return m;
}
