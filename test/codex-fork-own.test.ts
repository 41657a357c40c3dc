/**
 * A Codex fork's own responses after its copied history are its own spend. They continue under the parent's
 * counter region, so a rule that marked usage `copied` by its region alone would move them out of the fork's
 * session cost (`copiedCost`) while `cost report` still counts them in the fork (codecs/codex/README.md, Known
 * gaps). Every read path must leave them unmarked.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import type { UsageEvent } from '../cursors/protocol/events.js';

const FORK = join(fileURLToPath(new URL('..', import.meta.url)), 'fixtures/codex/sessions/2025/10/02/rollout-2025-10-02T10-00-00-01999f37-0000-7b00-8000-00000000000b.jsonl');

async function usage(kinds: ('usage' | 'session' | 'message')[]): Promise<UsageEvent[]> {
  const out: UsageEvent[] = [];
  for await (const e of codex.read(FORK, { kinds })) if (e.type === 'usage') out.push(e);
  return out;
}

describe('a Codex fork keeps its own usage', () => {
  it('counts the response after its copied history as its own, on the usage-only and the full read', async () => {
    for (const kinds of [['usage'], ['session', 'message', 'usage']] as const) {
      const events = await usage([...kinds]);
      expect(events.map((e) => [e.timestamp, e.outputTokens])).toEqual([['2025-10-02T08:00:09.000Z', 300]]);
      expect(events.every((e) => e.copied !== true)).toBe(true);
    }
  });
});
