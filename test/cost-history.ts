/**
 * A small agent history for the cost and export CLI tests, in a temp HOME:
 * - `exports/` (SESSIONFOLD_EXPORT_DIR): three sessionfold-jsonl sessions written here, with hand-picked
 *   usage: 1-hour cache writes, reasoning, a long-context single request, a span (not single) request, a
 *   recorded cost, an unpriced model, a response copied into a fork, days on both sides of midnight UTC.
 * - `.claude/projects/-work-demo/` and `.codex/sessions/…`: copies of the real fixtures, so end-to-end
 *   tests also run over whatever Claude / Codex codecs are registered.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REAL_FIXTURES = new URL('../../shared/fixtures/real/', import.meta.url).pathname;

const header = (sessionId: string, cwd: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId, cwd, ...extra });

let index = 0;
const user = (text: string, timestamp: string) => JSON.stringify({ type: 'sessionfold.message', index: index++, role: 'user', content: text, timestamp });
const reply = (id: string, timestamp: string, usage: Record<string, unknown>) =>
  JSON.stringify({ type: 'sessionfold.message', index: index++, role: 'assistant', content: `answer ${id}`, timestamp, id, usage: { singleRequest: true, ...usage } });

const A1 = { model: 'claude-sonnet-4-20250514', inputTokens: 120, outputTokens: 850, cacheReadTokens: 15_000, cacheWriteTokens: 3_000, cacheWrite1hTokens: 1_000, dedupKey: 'claude:msg_a1:req_a1' };

/** The sessionfold-jsonl sessions of the history: file name → lines. */
export function exportSessions(): Record<string, string[]> {
  index = 0;
  return {
    'proj-a/alpha.jsonl': [
      header('alpha', '/work/app', { title: 'Alpha' }),
      user('first question', '2026-01-05T09:00:00.000Z'),
      reply('a1', '2026-01-05T09:00:10.000Z', A1),
      reply('a2', '2026-01-05T23:30:00.000Z', { model: 'gpt-5', provider: 'openai', inputTokens: 4_000, outputTokens: 600, reasoningTokens: 256, cacheReadTokens: 2_048, dedupKey: 'codex:resp_a2' }),
      reply('a3', '2026-01-06T10:00:00.000Z', { model: 'mystery-model-x', inputTokens: 50, outputTokens: 20, dedupKey: 'acme:resp_a3' }),
    ],
    'proj-a/beta.jsonl': [
      header('beta', '/work/app/sub', { forkedFrom: 'alpha' }),
      reply('a1', '2026-01-05T09:00:10.000Z', A1),
      reply('b1', '2026-01-12T12:00:00.000Z', { model: 'claude-sonnet-4-5-20250929', inputTokens: 1_000, cacheReadTokens: 210_000, outputTokens: 2_000 }),
      reply('b2', '2026-02-01T08:00:00.000Z', { model: 'claude-opus-4-1-20250805', inputTokens: 10, outputTokens: 100, costUsd: 0.42 }),
    ],
    'proj-b/gamma.jsonl': [
      header('gamma', '/work/site'),
      user('build it', '2026-02-02T11:59:00.000Z'),
      reply('g1', '2026-02-02T12:00:00.000Z', { model: 'gemini-2.5-pro', inputTokens: 300_000, outputTokens: 400, singleRequest: false }),
      reply('g2', '2026-02-03T01:00:00.000Z', { model: 'gpt-5.2-codex', provider: 'openai', inputTokens: 1_500, outputTokens: 300, cacheReadTokens: 6_000 }),
    ],
  };
}

/** One more reply for append tests. */
export function extraReply(id: string, timestamp = '2026-02-04T10:00:00.000Z'): string {
  return reply(id, timestamp, { model: 'gpt-5', provider: 'openai', inputTokens: 700, outputTokens: 70 });
}

export interface History {
  home: string;
  exportsDir: string;
  env: NodeJS.ProcessEnv;
}

/** Build the history in a fresh temp HOME. `real: true` adds copies of the real Claude and Codex fixtures. */
export function makeHistory(options: { real?: boolean } = {}): History {
  const home = mkdtempSync(join(tmpdir(), 'sf-cost-home-'));
  const exportsDir = join(home, 'exports');
  for (const [name, lines] of Object.entries(exportSessions())) {
    const p = join(exportsDir, name);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, lines.join('\n') + '\n');
  }
  if (options.real) {
    const project = join(home, '.claude', 'projects', '-work-demo');
    mkdirSync(project, { recursive: true });
    cpSync(join(REAL_FIXTURES, 'claude'), project, { recursive: true });
    const day = join(home, '.codex', 'sessions', '2026', '05', '12');
    mkdirSync(day, { recursive: true });
    readdirSync(join(REAL_FIXTURES, 'codex'))
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .forEach((f, i) => cpSync(join(REAL_FIXTURES, 'codex', f), join(day, `rollout-2026-05-12T08-0${i}-00-0199a${i}00-0000-7000-8000-00000000000${i}.jsonl`)));
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    SESSIONFOLD_EXPORT_DIR: exportsDir,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CODEX_HOME: join(home, '.codex'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  return { home, exportsDir, env };
}

/** A writable stream that collects what is written. */
export function sink(): NodeJS.WritableStream & { text(): string } {
  const chunks: string[] = [];
  const s = {
    write(chunk: string | Uint8Array, ...rest: unknown[]) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const cb = rest.find((x) => typeof x === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    },
    once() {
      return s;
    },
    on() {
      return s;
    },
    end() {
      return s;
    },
    text: () => chunks.join(''),
  };
  return s as unknown as NodeJS.WritableStream & { text(): string };
}
