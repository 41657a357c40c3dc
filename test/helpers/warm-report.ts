/**
 * A cost report of one agent through the library, with the event cache under `home` or without it, and its
 * scan's counts (how many files it read again): what the tests of per-session stamps compare. `writeDb`
 * writes to an agent's database as the agent would, one statement, and closes it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { totalCost } from '../../src/cost/total.js';
import { newScanStats, type ScanStats } from '../../src/scan/types.js';

export async function agentReport(agent: string, home: string, env: NodeJS.ProcessEnv, cache: boolean): Promise<{ summary: unknown; stats: ScanStats }> {
  const stats = newScanStats();
  const summary = await totalCost({ agents: [agent], env, cache, cachePath: join(home, 'cache', 'events.db'), timeZone: 'UTC' }, { env, stats, onWarning: () => undefined });
  return { summary, stats };
}

export function writeDb(db: string, sql: string, ...args: unknown[]): void {
  const d = new Database(db);
  try {
    d.prepare(sql).run(...args);
  } finally {
    d.close();
  }
}
