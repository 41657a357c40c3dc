/**
 * Paths and small builders shared by the pi-family tests: the third-party fixtures in
 * `../shared/fixtures/real/{pi,openclaw}` (read in place), the golden files, and entry-line builders.
 */
import { createHash } from 'node:crypto';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';

export const REAL_PI = new URL('../../shared/fixtures/real/pi/', import.meta.url).pathname;
export const REAL_OPENCLAW = new URL('../../shared/fixtures/real/openclaw/', import.meta.url).pathname;
export const EXPECTED_DIR = new URL('../fixtures/expected/', import.meta.url).pathname;

export const PI_V3 = `${REAL_PI}agent-sessions-v3-tree.jsonl`;
export const PI_V1 = `${REAL_PI}pi-mono-large-session-legacy-v1-real.jsonl`;
/** One AssistantMessage object (pretty-printed JSON, not a session file). */
export const PI_MESSAGE_JSON = `${REAL_PI}pi-mono-assistant-message-with-thinking-code.json`;
export const PI_SESSIONS = ['agent-sessions-v3-tree', 'pi-mono-large-session-legacy-v1-real'] as const;
export const OPENCLAW_SESSIONS = ['agent-sessions-large', 'agent-sessions-schema_drift', 'agent-sessions-small'] as const;

export function usages(events: readonly SessionfoldEvent[]): UsageEvent[] {
  return events.filter((e): e is UsageEvent => e.type === 'usage');
}

/**
 * An event as the golden files keep it: every string longer than 160 characters replaced by its length and
 * a sha256 prefix, so the file stays small and a changed text still changes it.
 */
export function goldenForm(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 160 ? `<${value.length} chars sha256:${createHash('sha256').update(value).digest('hex').slice(0, 16)}>` : value;
  if (Array.isArray(value)) return value.map(goldenForm);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, goldenForm(v)]));
  return value;
}

/** A JSONL file from records. */
export function jsonl(records: readonly unknown[]): Buffer {
  return Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

export const HEADER = { type: 'session', version: 3, id: 'sess-1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w/app' };

let clock = Date.parse('2026-01-01T00:00:00.000Z');
function tick(): number {
  clock += 1000;
  return clock;
}

/** A user message entry. */
export function user(id: string, parentId: string | null, text: string): Record<string, unknown> {
  const t = tick();
  return { type: 'message', id, parentId, timestamp: new Date(t).toISOString(), message: { role: 'user', content: [{ type: 'text', text }], timestamp: t } };
}

/** An assistant message entry with usage (and cost when given). */
export function assistant(id: string, parentId: string | null, text: string, input = 10, output = 5, cost = 0): Record<string, unknown> {
  const t = tick();
  return {
    type: 'message',
    id,
    parentId,
    timestamp: new Date(t).toISOString(),
    message: {
      role: 'assistant',
      content: [{ type: 'text', text }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } },
      stopReason: 'stop',
      timestamp: t,
    },
  };
}
