/**
 * Fixtures for the SessionManager tests: an isolated agent home (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
 * SESSIONFOLD_EXPORT_DIR, tags and prices all under one temp dir), copies of the real Claude and Codex
 * fixtures laid out as the agents lay them out, and sessionfold-jsonl sessions written from records.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportHeader, ExportMessage } from '../cursors/protocol/sessionfold-jsonl.js';
import { findCodec } from '../src/registry.js';
import type { UsagePricer } from '../src/sessions/types.js';

export const REAL = new URL('../../shared/fixtures/real/', import.meta.url).pathname;

export interface Home {
  dir: string;
  env: NodeJS.ProcessEnv;
  exports: string;
  claude: string;
  codex: string;
}

/** A fresh isolated home; nothing of the real user's is visible through `env`. */
export async function makeHome(): Promise<Home> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-sessions-'));
  const exports = join(dir, 'exports');
  const claude = join(dir, '.claude');
  const codex = join(dir, '.codex');
  await mkdir(exports, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: dir,
    PATH: process.env.PATH,
    CLAUDE_CONFIG_DIR: claude,
    CODEX_HOME: codex,
    SESSIONFOLD_EXPORT_DIR: exports,
    SESSIONFOLD_TAGS: join(dir, 'tags.json'),
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  return { dir, env, exports, claude, codex };
}

/** A deterministic pricer: $1 per million input, $2 per million output tokens; models starting `free-` unpriced. */
export const FAKE_PRICER: UsagePricer = {
  price(u) {
    if (u.model.startsWith('free-')) return { usd: undefined, unpriced: true };
    if (u.costUsd !== undefined) return { usd: u.costUsd };
    return { usd: (u.inputTokens + 2 * u.outputTokens) / 1e6 };
  },
};

type Msg = Omit<ExportMessage, 'type' | 'index'> & { index?: number };

/** Write a sessionfold-jsonl session `<exports>/<id>.jsonl`; returns its path. */
export async function writeExportSession(root: string, header: Omit<ExportHeader, 'type' | 'version'>, messages: Msg[], mtime?: Date): Promise<string> {
  const lines = [JSON.stringify({ type: 'sessionfold.session', version: 1, ...header })];
  messages.forEach((m, i) => lines.push(JSON.stringify({ type: 'sessionfold.message', index: i, ...m })));
  const path = join(root, `${header.sessionId}.jsonl`);
  await writeFile(path, lines.join('\n') + '\n');
  if (mtime !== undefined) await utimes(path, mtime, mtime);
  return path;
}

/** Real Claude fixtures copied under `<claude>/projects/-tmp-proj/<uuid>.jsonl` (plus the subagent layout). */
export const CLAUDE_COPIES: Record<string, string> = {
  'vibecodingtracker-real-session-v1.0.95-zh.jsonl': '11111111-1111-4111-8111-111111111111',
  'agent-sessions-v2.1-sanitized-hooks-attachments.jsonl': '22222222-2222-4222-8222-222222222222',
  'agent-sessions-schema-drift-legacy.jsonl': '33333333-3333-4333-8333-333333333333',
  'ccusage-project-alpha-usage-cache.jsonl': '44444444-4444-4444-8444-444444444444',
};
export const CLAUDE_SUBAGENT_PARENT = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';

export async function copyClaudeFixtures(home: Home): Promise<void> {
  const proj = join(home.claude, 'projects', '-tmp-proj');
  await mkdir(proj, { recursive: true });
  for (const [name, id] of Object.entries(CLAUDE_COPIES)) await cp(join(REAL, 'claude', name), join(proj, `${id}.jsonl`));
  await cp(join(REAL, 'claude', 'agent-sessions-subagent'), proj, { recursive: true });
}

/** Real Codex fixtures copied as `<codex>/sessions/2026/08/03/rollout-…-<uuid>.jsonl`; returns their ids. */
export async function copyCodexFixtures(home: Home): Promise<string[]> {
  const day = join(home.codex, 'sessions', '2026', '08', '03');
  await mkdir(day, { recursive: true });
  const ids: string[] = [];
  let n = 0;
  for (const name of (await readdir(join(REAL, 'codex'))).sort()) {
    const text = await readFile(join(REAL, 'codex', name), 'utf8');
    const meta = /"type":"session_meta","payload":\{"id":"([0-9a-f-]{36})"/.exec(text);
    const id = meta?.[1] ?? `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    ids.push(id);
    await cp(join(REAL, 'codex', name), join(day, `rollout-2026-08-03T10-00-0${ids.length}-${id}.jsonl`));
  }
  return ids;
}

/** Which real-fixture agents have a registered codec now (codecs land in parallel). */
export const HAS_CLAUDE = findCodec('claude') !== undefined;
export const HAS_CODEX = findCodec('codex') !== undefined;

/** sha256 and mtime of every file under `dir`. */
export async function snapshotTree(dir: string): Promise<Map<string, { sha: string; mtimeMs: number; size: number }>> {
  const out = new Map<string, { sha: string; mtimeMs: number; size: number }>();
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else {
        const s = await stat(p);
        out.set(p, { sha: createHash('sha256').update(await readFile(p)).digest('hex'), mtimeMs: s.mtimeMs, size: s.size });
      }
    }
  };
  await walk(dir);
  return out;
}

/** A writable stream that collects what is written. */
export function sink(): NodeJS.WritableStream & { text(): string } {
  const chunks: string[] = [];
  return {
    write(chunk: string | Uint8Array) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    },
    once() {
      return this;
    },
    text: () => chunks.join(''),
  } as unknown as NodeJS.WritableStream & { text(): string };
}

const U = (model: string, inputTokens: number, outputTokens: number, dedupKey: string) => ({
  model,
  inputTokens,
  outputTokens,
  reasoningTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  singleRequest: true,
  dedupKey,
});

/** Messages shared by the parent and its fork. */
const SHARED = [
  { role: 'user' as const, content: 'Refactor the auth middleware', timestamp: '2026-01-01T10:00:00.000Z' },
  {
    role: 'assistant' as const,
    content: "I'll start with the token check.",
    timestamp: '2026-01-01T10:00:05.000Z',
    model: 'claude-sonnet-4-5',
    id: 'msg_a1',
    thinking: 'Look at verifyToken first.',
    toolCalls: [{ toolCallId: 'call_1', toolName: 'Bash', input: { command: 'ls src/auth' } }],
    usage: U('claude-sonnet-4-5', 1000, 500, 'k:a1'),
  },
  { role: 'tool' as const, content: 'auth.ts\nmiddleware.ts', timestamp: '2026-01-01T10:00:06.000Z', toolResult: { toolCallId: 'call_1', toolName: 'Bash', output: 'auth.ts\nmiddleware.ts' } },
  { role: 'assistant' as const, content: 'Done: extracted verifyToken().', timestamp: '2026-01-01T10:00:09.000Z', model: 'claude-sonnet-4-5', id: 'msg_a2', usage: U('claude-sonnet-4-5', 2000, 300, 'k:a2') },
];

/** The shared messages as the fork holds them: its copies of the parent's responses are marked `copied`, as an export of a Claude `/branch` fork writes them. */
const SHARED_COPIED: Msg[] = SHARED.map((m: Msg) => (m.usage !== undefined ? { ...m, usage: { ...m.usage, copied: true } } : m));

/** Ids of the sessionfold-jsonl fixtures `buildExportFixtures` writes. */
export const EXPORT_IDS = { parent: 'parent-1', fork: 'fork-1', big: 'big-1', escaped: 'escaped-1', broken: 'broken-1', other: 'other-1' } as const;

/**
 * sessionfold-jsonl sessions: a parent and its fork (for diff), a large session (head/tail peek), one whose
 * text hides a word behind JSON `\u` escapes, one with a cheap model, and a file with no valid line.
 */
export async function buildExportFixtures(root: string): Promise<void> {
  await writeExportSession(
    root,
    { agent: 'claude', sessionId: EXPORT_IDS.parent, title: 'Refactor the auth middleware', createdAt: '2026-01-01T10:00:00.000Z', cwd: '/work/app' },
    [...SHARED, { role: 'user', content: 'Now add tests', timestamp: '2026-01-01T10:01:00.000Z' }, { role: 'assistant', content: 'Added 3 tests.', timestamp: '2026-01-01T10:01:30.000Z', model: 'claude-sonnet-4-5', id: 'msg_a3', usage: U('claude-sonnet-4-5', 3000, 100, 'k:a3') }],
    new Date('2026-01-01T10:01:30.000Z'),
  );
  await writeExportSession(
    root,
    { agent: 'claude', sessionId: EXPORT_IDS.fork, title: 'Refactor the auth middleware', createdAt: '2026-01-02T09:00:00.000Z', cwd: '/work/app/sub', forkedFrom: EXPORT_IDS.parent },
    [
      ...SHARED_COPIED,
      { role: 'user', content: 'Now add docs', timestamp: '2026-01-02T09:01:00.000Z' },
      { role: 'assistant', content: 'Wrote docs/auth.md.', timestamp: '2026-01-02T09:01:20.000Z', model: 'claude-opus-4-1', id: 'msg_b3', usage: U('claude-opus-4-1', 5000, 900, 'k:b3') },
      { role: 'user', content: 'thanks', timestamp: '2026-01-02T09:02:00.000Z' },
      { role: 'assistant', content: "You're welcome.", timestamp: '2026-01-02T09:02:05.000Z', model: 'claude-opus-4-1', id: 'msg_b4', usage: U('claude-opus-4-1', 6000, 20, 'k:b4') },
    ],
    new Date('2026-01-02T09:02:05.000Z'),
  );
  const big: Msg[] = [];
  const filler = 'lorem ipsum dolor sit amet '.repeat(20);
  for (let i = 0; i < 300; i++) {
    const t = new Date(Date.UTC(2026, 0, 3, 8, 0, i * 2)).toISOString();
    big.push({ role: 'user', content: `Question ${i}: ${filler}`, timestamp: t });
    big.push({ role: 'assistant', content: `Answer ${i}: ${filler}`, timestamp: t, model: i < 150 ? 'model-early' : 'model-late', id: `big_${i}`, usage: U(i < 150 ? 'model-early' : 'model-late', 100, 10, `k:big:${i}`) });
  }
  await writeExportSession(root, { agent: 'codex', sessionId: EXPORT_IDS.big, createdAt: '2026-01-03T08:00:00.000Z', cwd: '/work/big' }, big, new Date('2026-01-03T08:10:00.000Z'));
  await writeExportSession(
    root,
    { agent: 'gemini', sessionId: EXPORT_IDS.other, createdAt: '2026-01-04T12:00:00.000Z', cwd: '/elsewhere' },
    [{ role: 'user', content: 'Plan a migration of the billing tables', timestamp: '2026-01-04T12:00:00.000Z' }, { role: 'assistant', content: 'Step 1: snapshot.', timestamp: '2026-01-04T12:00:10.000Z', model: 'free-model', id: 'o1', usage: U('free-model', 10, 10, 'k:o1') }],
    new Date('2026-01-04T12:00:10.000Z'),
  );
  // "quokka" only behind a \u escape of an ASCII letter: the raw bytes never hold the word.
  const escapedLines = [
    JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: EXPORT_IDS.escaped, createdAt: '2026-01-05T00:00:00.000Z' }),
    JSON.stringify({ type: 'sessionfold.message', index: 0, role: 'user', content: 'Where does the QUXKKA live?', timestamp: '2026-01-05T00:00:00.000Z' }).replace('QUXKKA', 'qu\\u006fkka'),
    JSON.stringify({ type: 'sessionfold.message', index: 1, role: 'assistant', content: 'On Rottnest Island.', timestamp: '2026-01-05T00:00:01.000Z' }),
  ];
  await writeFile(join(root, `${EXPORT_IDS.escaped}.jsonl`), escapedLines.join('\n') + '\n');
  await utimes(join(root, `${EXPORT_IDS.escaped}.jsonl`), new Date('2026-01-05T00:00:01.000Z'), new Date('2026-01-05T00:00:01.000Z'));
  await writeFile(join(root, `${EXPORT_IDS.broken}.jsonl`), 'this is not json\n{"type": broken\n[1, 2, 3]\n');
}

/** A temp HOME with the export fixtures, copies of the real Claude fixtures and the Codex ones (their ids). */
export async function makeFixtureHome(): Promise<{ home: Home; codexIds: string[] }> {
  const home = await makeHome();
  await buildExportFixtures(home.exports);
  await copyClaudeFixtures(home);
  const codexIds = await copyCodexFixtures(home);
  return { home, codexIds };
}
