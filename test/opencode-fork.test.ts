/**
 * OpenCode's fork (`Session.fork`, packages/opencode/src/session/index.ts) copies every message before the fork
 * point into a new session under new ids, each message's `info` spread as it was: its times, model, tokens and
 * cost. Those copies are the forked session's conversation, but their spend was the source session's: a reply
 * made before the session that holds it is a copy, its usage counted where it was made (codecs/opencode/README.md
 * "Forks of a session"). Over a real database with OpenCode's tables, and a storage tree, through the codec
 * and the built CLI.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencode } from '../codecs/opencode/index.js';
import type { MessageEvent, UsageEvent } from '../cursors/protocol/events.js';
import { recordPath } from '../cursors/sqlite.js';
import { readEvents } from './helpers/codec-harness.js';
import { buildOpencodeDb, exchange, INSERT_MESSAGE, INSERT_PART, INSERT_SESSION, sessionRow, writeDb } from './helpers/opencode-db.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const T0 = 1767000000000;

let home: string;
let db: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-oc-fork-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  db = join(home, '.local', 'share', 'opencode', 'opencode.db');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/**
 * `ses_fork`, forked from ses_main after its third exchange, as `Session.fork` writes it: created then, the
 * messages of exchanges 1 and 2 copied under new ids with their data as it was, then a reply of its own.
 */
function fork(): { own: string } {
  writeDb(db, (d) => {
    d.prepare(INSERT_SESSION).run(...sessionRow('ses_fork', 3).slice(0, 8), T0 + 40_000, T0 + 40_000);
    for (const n of [1, 2]) {
      const x = exchange('ses_main', n);
      const ids = new Map(x.messages.map((m, i) => [m[0] as string, `msg_fork_${n}_${i}`]));
      for (const m of x.messages) d.prepare(INSERT_MESSAGE).run(ids.get(m[0] as string), 'ses_fork', T0 + 40_001, T0 + 40_001, m[4]);
      for (const p of x.parts) d.prepare(INSERT_PART).run(`${p[0] as string}_fork`, ids.get(p[1] as string), 'ses_fork', T0 + 40_001, T0 + 40_001, p[5]);
    }
    const own = exchange('ses_fork', 5);
    for (const m of own.messages) d.prepare(INSERT_MESSAGE).run(...m);
    for (const p of own.parts) d.prepare(INSERT_PART).run(...p);
  });
  return { own: exchange('ses_fork', 5).ids.asst };
}

describe('opencode: a fork’s copied replies', () => {
  it('are the fork’s conversation, and the source session’s spend: one usage event each, where it was made', async () => {
    buildOpencodeDb(db, 3);
    const { own } = fork();
    const forked = await readEvents(opencode, recordPath(db, 'ses_fork'));
    const replies = forked.filter((e): e is MessageEvent => e.type === 'message' && e.role === 'assistant').map((e) => e.text);
    expect(replies).toEqual(['answer 1', 'answer 2', 'answer 5']);
    expect(forked.filter((e): e is UsageEvent => e.type === 'usage').map((e) => e.messageId)).toEqual([own]);
    const all = (await readEvents(opencode, db)).filter((e): e is UsageEvent => e.type === 'usage');
    expect(all.map((e) => e.sessionId).sort()).toEqual(['ses_child', 'ses_child', 'ses_child', 'ses_fork', 'ses_main', 'ses_main', 'ses_main']);
  });

  it('a cost report counts each reply once, with the cache and without', async () => {
    buildOpencodeDb(db, 3);
    const env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), TZ: 'UTC' };
    const report = async (...extra: string[]) => JSON.parse((await run(process.execPath, [CLI, 'cost', 'report', '--json', '--agent', 'opencode', ...extra], { env })).stdout) as { requestCount: number; outputTokens: number };
    const before = await report();
    fork();
    // exchange n's reply: output 40 + n, reasoning 7 (a database reply's output excludes it)
    const grown = { requestCount: before.requestCount + 1, outputTokens: before.outputTokens + 45 + 7 };
    for (const cache of [['--no-cache'], []]) expect(await report(...cache)).toMatchObject(grown);
  }, 60_000);

  it('a storage tree: a reply older than its session is a copy too', async () => {
    const storage = join(home, 'storage');
    const tokens = { input: 10, output: 50, reasoning: 20, cache: { read: 1, write: 2 } };
    mkdirSync(join(storage, 'session', 'p'), { recursive: true });
    mkdirSync(join(storage, 'message', 'ses_t'), { recursive: true });
    writeFileSync(join(storage, 'session', 'p', 'ses_t.json'), JSON.stringify({ id: 'ses_t', directory: '/t', title: 't (fork #1)', time: { created: T0 + 100 } }));
    writeFileSync(join(storage, 'message', 'ses_t', 'msg_a.json'), JSON.stringify({ id: 'msg_a', sessionID: 'ses_t', role: 'assistant', time: { created: T0 + 50, completed: T0 + 60 }, modelID: 'o3', tokens }));
    writeFileSync(join(storage, 'message', 'ses_t', 'msg_b.json'), JSON.stringify({ id: 'msg_b', sessionID: 'ses_t', role: 'assistant', time: { created: T0 + 150, completed: T0 + 160 }, modelID: 'o3', tokens }));
    const usage = (await readEvents(opencode, join(storage, 'session', 'p', 'ses_t.json'))).filter((e): e is UsageEvent => e.type === 'usage');
    expect(usage.map((e) => e.messageId)).toEqual(['msg_b']);
  });
});
