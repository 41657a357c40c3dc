/**
 * Real Cursor databases for the tests, with the schemas the real files have (codecs/cursor/README.md):
 * the CLI chat store (`meta`, `blobs`: content-addressed, a tree of linking blobs over JSON messages) and the
 * IDE's `state.vscdb` (`ItemTable`, `cursorDiskKV`). Deterministic: the same bytes of content every run.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export const CHAT_ID = '0f3c2a9e-8d41-4c6b-9a57-2b1e6d0c4f88';
export const WORKSPACE_HASH = 'e4e90b7bcae743c9a1a1a045a49e1b1d';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');
/** A linking blob: `0x0A 0x20 <32-byte id>` per child, then an optional embedded JSON message. */
const link = (ids: string[], embedded?: unknown) =>
  Buffer.concat([...ids.map((id) => Buffer.concat([Buffer.from([0x0a, 0x20]), Buffer.from(id, 'hex')])), ...(embedded === undefined ? [] : [json(embedded)])]);

export const STORE_MESSAGES = {
  system: { role: 'system', content: 'You are an AI coding assistant.' },
  user: { role: 'user', content: '<user_info>OS: linux</user_info>\n\n<user_query>\nWhy does the build fail?\n</user_query>' },
  assistant: {
    id: '1',
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Read the log first.', providerOptions: { cursor: { modelName: 'claude-4.5-sonnet' } }, signature: 'c2ln' },
      { type: 'text', text: 'Let me read the build log.' },
      { type: 'tool-call', toolCallId: 'toolu_01', toolName: 'Read', args: { path: 'build.log' } },
    ],
  },
  tool: { role: 'tool', id: 'toolu_01', content: [{ type: 'tool-result', toolName: 'Read', toolCallId: 'toolu_01', result: [{ type: 'text', text: 'error: missing semicolon' }], isError: false }] },
  answer: { id: '1', role: 'assistant', content: [{ type: 'text', text: 'A semicolon is missing in main.c.' }] },
  /** Embedded after the links of the root blob (the layout's optional trailing JSON). */
  followUp: { role: 'user', content: [{ type: 'text', text: '<user_query>Fix it.</user_query>' }] },
  /** Not reachable from the root: an edit replaced it. */
  orphan: { role: 'user', content: 'an edited-away prompt' },
};

export interface StoreOptions {
  /** A linking blob names a child the table does not hold. */
  missingChild?: boolean;
  /** Leave `latestRootBlobId` out of `meta`: the reader takes every JSON blob in rowid order. */
  noRoot?: boolean;
  /** WAL mode, as cursor-agent opens it (default true). */
  wal?: boolean;
}

/** A chat store at `path`; returns the open writer connection (the agent) — close it to end the "session". */
export function writeChatStore(path: string, o: StoreOptions = {}): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (o.wal !== false) db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)');
  db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
  const put = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)');
  const add = (data: Buffer): string => {
    const id = sha(data);
    put.run(id, data);
    return id;
  };
  const m = STORE_MESSAGES;
  add(json(m.orphan));
  const ids = [m.system, m.user, m.assistant].map((x) => add(json(x)));
  const head = add(link(ids));
  const tail = [m.tool, m.answer].map((x) => add(json(x)));
  const children = [head, ...tail];
  if (o.missingChild === true) children.push(sha(Buffer.from('not stored')));
  const root = add(link(children, m.followUp));
  const meta = { agentId: CHAT_ID, latestRootBlobId: o.noRoot === true ? undefined : root, name: 'Build failure', mode: 'auto-run', createdAt: 1768862746153, lastUsedModel: 'claude-4.5-sonnet' };
  db.prepare("INSERT INTO meta (key, value) VALUES ('0', ?)").run(json(meta).toString('hex'));
  return db;
}

export const COMPOSER_A = '98251e54-8aed-4515-b2b4-08895453eedd';
export const COMPOSER_B = '5c1f7d02-3a8e-4b61-9f0c-7d2e8a4b6c13';
export const COMPOSER_EMPTY = 'fbd30712-94fd-48d3-b674-ed162dbf56ab';
export const COMPOSER_MISSING = '1a2b3c4d-0000-4000-8000-000000000001';

/** The IDE's global `state.vscdb` with four composers (a modern one, a legacy inline one, an empty one, one naming a bubble that is gone). */
export function writeStateDb(path: string, o: { wal?: boolean } = {}): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (o.wal !== false) db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.exec('CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  const kv = db.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)');
  db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('workbench.panel.width', '300');
  kv.run(`composerData:${COMPOSER_A}`, JSON.stringify({
    _v: 10,
    composerId: COMPOSER_A,
    name: 'Rate limiter',
    createdAt: 1766691308486,
    lastUpdatedAt: 1766692125731,
    modelConfig: { modelName: 'claude-4.5-opus-high-thinking', maxMode: true },
    fullConversationHeadersOnly: [
      { bubbleId: 'u1', type: 1 },
      { bubbleId: 'a1', type: 2, serverBubbleId: 's1' },
      { bubbleId: 'a2', type: 2 },
    ],
  }));
  kv.run(`bubbleId:${COMPOSER_A}:u1`, JSON.stringify({ _v: 3, type: 1, bubbleId: 'u1', text: 'Add a token-bucket limiter to the router.', createdAt: '2025-12-25T19:35:21.759Z', tokenCount: { inputTokens: 0, outputTokens: 0 } }));
  // A bubble value stored as a BLOB (as Cursor's BLOB column may hold it).
  kv.run(`bubbleId:${COMPOSER_A}:a1`, Buffer.from(JSON.stringify({
    _v: 3,
    type: 2,
    bubbleId: 'a1',
    text: 'I will add the middleware.',
    thinking: { text: 'A token bucket per route.' },
    toolFormerData: { toolCallId: 'call_1', name: 'edit_file', rawArgs: '{"target_file":"src/limiter.ts"}', result: '{"diff":"+export const limiter"}', status: 'completed' },
  })));
  kv.run(`bubbleId:${COMPOSER_A}:a2`, JSON.stringify({ _v: 3, type: 2, bubbleId: 'a2', text: '', toolFormerData: { toolCallId: 'call_2', name: 'run_terminal_cmd', params: '{"command":"npm test"}', result: '"1 failing"', status: 'error' } }));
  kv.run(`bubbleId:${COMPOSER_A}:stray`, JSON.stringify({ type: 1, text: 'a bubble no header names' }));
  kv.run(`composerData:${COMPOSER_B}`, JSON.stringify({
    _v: 2,
    composerId: COMPOSER_B,
    createdAt: 1735689600000,
    conversation: [
      { bubbleId: 'lu', type: 1, text: 'Explain the cache.' },
      { bubbleId: 'la', type: 2, text: 'It keys rows by path.' },
    ],
  }));
  kv.run(`composerData:${COMPOSER_EMPTY}`, JSON.stringify({ _v: 10, composerId: COMPOSER_EMPTY, text: '', fullConversationHeadersOnly: [], conversationMap: {}, status: 'none', createdAt: 1766538343722 }));
  kv.run(`composerData:${COMPOSER_MISSING}`, JSON.stringify({ _v: 10, composerId: COMPOSER_MISSING, createdAt: 1766538343722, fullConversationHeadersOnly: [{ bubbleId: 'gone', type: 1 }, { bubbleId: 'here', type: 2 }] }));
  kv.run(`bubbleId:${COMPOSER_MISSING}:here`, JSON.stringify({ type: 2, bubbleId: 'here', text: 'Only the answer survived.' }));
  return db;
}

/**
 * One more turn in a chat store, as cursor-agent writes it: the new message blobs, then a new root linking
 * the previous root and them, named in `meta` (returns the new blobs' count).
 */
export function appendChatTurn(db: Database.Database, messages: unknown[], title?: string): number {
  const row = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string };
  const meta = JSON.parse(Buffer.from(row.value, 'hex').toString('utf8')) as Record<string, unknown>;
  const put = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)');
  let added = 0;
  const add = (data: Buffer): string => {
    const id = sha(data);
    added += put.run(id, data).changes;
    return id;
  };
  const ids = messages.map((m) => add(json(m)));
  const root = add(link([meta.latestRootBlobId as string, ...ids]));
  const next = { ...meta, latestRootBlobId: root, ...(title !== undefined && { name: title }) };
  db.prepare("UPDATE meta SET value = ? WHERE key = '0'").run(json(next).toString('hex'));
  return added;
}

/** A new bubble in an IDE composer, as Cursor writes it: the bubble row, then the composer row rewritten with its header. */
export function appendBubble(db: Database.Database, composerId: string, bubbleId: string, bubble: Record<string, unknown>): void {
  const row = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`composerData:${composerId}`) as { value: string };
  const composer = JSON.parse(String(row.value)) as { fullConversationHeadersOnly: unknown[] };
  const kv = db.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)');
  kv.run(`bubbleId:${composerId}:${bubbleId}`, JSON.stringify({ bubbleId, ...bubble }));
  composer.fullConversationHeadersOnly.push({ bubbleId, type: bubble.type });
  kv.run(`composerData:${composerId}`, JSON.stringify(composer));
}
