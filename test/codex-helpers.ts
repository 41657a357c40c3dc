/**
 * Paths and small builders shared by the codex tests: the checked-in fixture tree (`fixtures/codex`, real
 * layout), the third-party fixtures in `../shared/fixtures/real/codex`, and rollout-line builders for the
 * inline cases.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';

export const CODEX_HOME = new URL('../fixtures/codex/', import.meta.url).pathname.replace(/\/$/, '');
export const REAL_DIR = new URL('../../shared/fixtures/real/codex/', import.meta.url).pathname;
export const EXPECTED_DIR = new URL('../fixtures/expected/codex/', import.meta.url).pathname;

export const ID_A = '01999f36-e900-7a00-8000-000000000001';
export const ID_B = '01999f37-0000-7b00-8000-00000000000b';
export const ID_C = '019bc0fd-89c0-7c00-8000-00000000000c';
export const ID_PARENT_C = '019bc0f0-0000-7000-8000-0000000000aa';
export const ID_OLD = '5973b6c0-94b8-487b-a530-2aeb6098ae0e';

export const FILE_A = join(CODEX_HOME, `sessions/2025/10/01/rollout-2025-10-01T12-00-00-${ID_A}.jsonl`);
export const FILE_B = join(CODEX_HOME, `sessions/2025/10/02/rollout-2025-10-02T10-00-00-${ID_B}.jsonl`);
export const FILE_C = join(CODEX_HOME, `sessions/2026/01/15/rollout-2026-01-15T10-30-00-${ID_C}.jsonl`);
export const FILE_OLD = join(CODEX_HOME, `archived_sessions/rollout-2025-09-20T08-00-00-${ID_OLD}.jsonl`);
export const FILE_A_ARCHIVED = join(CODEX_HOME, `archived_sessions/rollout-2025-10-01T12-00-00-${ID_A}.jsonl`);
export const LOCAL_FIXTURES = [FILE_A, FILE_B, FILE_C, FILE_OLD, FILE_A_ARCHIVED];

export const REAL_FIXTURES = [
  'agent-sessions-codex_050_legacy',
  'agent-sessions-codex_053_rate_limit',
  'agent-sessions-v0.146-sanitized',
  'ccusage-branch-history-parent',
  'ccusage-branch-history-branch',
] as const;

/** Raw Codex `TokenUsage`. */
export function tu(input: number, cached: number, output: number, reasoning: number, cacheWrite?: number): Record<string, number> {
  return {
    input_tokens: input,
    cached_input_tokens: cached,
    ...(cacheWrite !== undefined && { cache_write_input_tokens: cacheWrite }),
    output_tokens: output,
    reasoning_output_tokens: reasoning,
    total_tokens: input + output,
  };
}

export function ts(second: number): string {
  return new Date(Date.UTC(2025, 10, 5, 12, 0, second)).toISOString();
}

export function meta(id: string, second: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { timestamp: ts(second), type: 'session_meta', payload: { id, timestamp: ts(second), cwd: '/w', cli_version: '0.50.0', source: 'cli', model_provider: 'openai', ...extra } };
}

export function turn(second: number, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { timestamp: ts(second), type: 'turn_context', payload: { cwd: '/w', model, ...extra } };
}

export function count(second: number, total?: Record<string, number>, last?: Record<string, number>): Record<string, unknown> {
  const info = total === undefined && last === undefined ? null : { ...(total && { total_token_usage: total }), ...(last && { last_token_usage: last }) };
  return { timestamp: ts(second), type: 'event_msg', payload: { type: 'token_count', info } };
}

export function record(second: number, responseId: string | undefined, usage: Record<string, number>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { timestamp: ts(second), type: 'token_usage_record', payload: { ...(responseId !== undefined && { response_id: responseId }), usage, ...extra } };
}

export function item(second: number, payload: Record<string, unknown>): Record<string, unknown> {
  return { timestamp: ts(second), type: 'response_item', payload };
}

export function eventMsg(second: number, payload: Record<string, unknown>): Record<string, unknown> {
  return { timestamp: ts(second), type: 'event_msg', payload };
}

export function jsonl(rows: readonly (Record<string, unknown> | string)[]): string {
  return rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
}

/** Write `content` to a fresh temp file named `name` and return its path. */
export async function tmpRollout(content: string | Buffer, name = 'rollout-2025-11-05T12-00-00-0199a000-0000-7000-8000-000000000099.jsonl'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-codex-'));
  const f = join(dir, name);
  await writeFile(f, content);
  return f;
}

export function usages(events: readonly SessionfoldEvent[]): UsageEvent[] {
  return events.filter((e): e is UsageEvent => e.type === 'usage');
}

/** Total billed tokens of a usage event (input + cache read + cache write + output). */
export function tokens(u: UsageEvent): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens;
}

/** A fold over usage events: each dedupKey counts once (the first seen). */
export function foldTotal(events: readonly SessionfoldEvent[]): { tokens: number; keys: number } {
  const seen = new Map<string, UsageEvent>();
  for (const u of usages(events)) if (!seen.has(u.dedupKey)) seen.set(u.dedupKey, u);
  let sum = 0;
  for (const u of seen.values()) sum += tokens(u);
  return { tokens: sum, keys: seen.size };
}
