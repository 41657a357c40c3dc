/**
 * A usage-only read of a Codex rollout takes its `session_meta` header through CODEX_HEADER_PROJECTION
 * (codecs/codex/prefilter.ts), so `takeOwner` (codecs/codex/parse.ts) sees only the fields listed there. A
 * field `takeOwner` starts to read without being listed would be missing from usage-only reads only: their
 * events would silently differ from a whole read's. This runs `takeOwner` over payloads that record every
 * key read and holds the reads to the projection.
 */
import { describe, expect, it } from 'vitest';
import { takeOwner, type CodexState } from '../codecs/codex/parse.js';
import { CODEX_HEADER_PROJECTION } from '../codecs/codex/prefilter.js';
import type { FieldProjection } from '../cursors/scan-fields.js';
import { listedFields, projected, recording } from './helpers/projection-reads.js';

type Obj = Record<string, unknown>;

function readsOf(payload: Obj): Set<string> {
  const reads = new Set<string>();
  const events: unknown[] = [];
  takeOwner({ fileId: 'rollout-file-id' } as CodexState, recording(payload, reads), '2025-11-05T12:00:00.000Z', 0, (e) => events.push(e));
  expect(events).toHaveLength(1);
  return reads;
}

const payloadProjection = CODEX_HEADER_PROJECTION.payload as FieldProjection;

// Fields left out make takeOwner read each fallback after them (`a ?? b`); objects present make it read into them.
const PAYLOADS: Obj[] = [
  {},
  { git: { branch: 'main' }, source: { subagent: { thread_spawn: { parent_thread_id: 'p' } } }, history_base: { end_ordinal_exclusive: 4 } },
  { id: 'x', forked_from_id: 'f', timestamp: '2025-11-05T12:00:00.000Z', subagent_history_start_ordinal: 2, model_provider: 'openai', cwd: '/w', cli_version: '0.1', source: 'subagent', git: {} },
];

describe('CODEX_HEADER_PROJECTION lists every field takeOwner reads', () => {
  it.each(PAYLOADS.map((p) => [JSON.stringify(p), p]))('over %s', (_name, payload) => {
    const reads = readsOf(payload as Obj);
    expect(reads.size).toBeGreaterThan(5);
    expect([...reads].filter((r) => !projected(payloadProjection, r))).toEqual([]);
  });

  it('lists no payload field takeOwner never reads', () => {
    const reads = new Set(PAYLOADS.flatMap((p) => [...readsOf(p)]));
    expect(listedFields(payloadProjection).filter((f) => !reads.has(f))).toEqual([]);
  });

  it('sees a read the projection does not list', () => {
    const reads = new Set<string>();
    const p = recording({ git: { branch: 'main', commit_hash: 'abc' } }, reads);
    void (p.git as Obj).commit_hash;
    void p.instructions;
    expect([...reads].filter((r) => !projected(payloadProjection, r))).toEqual(['git.commit_hash', 'instructions']);
  });
});
