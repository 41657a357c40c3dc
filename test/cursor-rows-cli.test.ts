/**
 * Cursor's databases through the built CLI with the event cache: after new turns in a chat store and new
 * bubbles in the IDE database, a run whose cache holds the previous read (a resumed RowCursor read) answers
 * what a run with an empty cache answers, and shows the new messages.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { appendBubble, appendChatTurn, CHAT_ID, COMPOSER_A, WORKSPACE_HASH, writeChatStore, writeStateDb } from './cursor-helpers.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'sf-cursor-rows-cli-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

let fresh = 0;
async function cli(args: string[], warmCache: boolean): Promise<unknown> {
  const cache = warmCache ? join(home, '.cache') : join(home, `fresh-${fresh++}`);
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: cache, TZ: 'UTC', NO_COLOR: '1', SESSIONFOLD_SOCKET: 'off' };
  const { stdout } = await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

const COMMANDS = [
  ['sessions', 'list', 'cursor', '--json'],
  ['sessions', 'show', 'cursor', CHAT_ID, '--format', 'json'],
  ['sessions', 'show', 'cursor', COMPOSER_A, '--format', 'json'],
];

describe('cursor databases: a warm cache after appends answers as a cold run', () => {
  it('sessions list and show, before and after new turns', async () => {
    const store = join(home, '.cursor', 'chats', WORKSPACE_HASH, CHAT_ID, 'store.db');
    const state = join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');
    writeChatStore(store, { wal: false }).close();
    writeStateDb(state, { wal: false }).close();
    for (const args of COMMANDS) expect(await cli(args, true)).toEqual(await cli(args, false));
    const db = new Database(store);
    appendChatTurn(db, [{ role: 'user', content: 'And the tests?' }, { id: '1', role: 'assistant', content: 'They pass now.' }], 'Build fixed');
    db.close();
    const ide = new Database(state);
    appendBubble(ide, COMPOSER_A, 'late', { type: 2, text: 'The limiter is in place.' });
    ide.close();
    for (const args of COMMANDS) {
      const warm = await cli(args, true);
      expect(warm).toEqual(await cli(args, false));
      const text = JSON.stringify(warm);
      if (args.includes(CHAT_ID)) expect(text).toContain('They pass now.');
      if (args.includes(COMPOSER_A)) expect(text).toContain('The limiter is in place.');
      if (args[1] === 'list') expect(text).toContain('Build fixed');
    }
  });
});
