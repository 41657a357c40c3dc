/**
 * The first pass of pi's two-pass read takes its lines through PI_LINK_PROJECTION (codecs/pi/parse.ts), so
 * `takeRecord` sees only the fields listed there in that pass. A field the pass starts to read without being
 * listed would read as absent there alone (a session event, a model or a link would differ from a one-pass
 * read's only on large files). This runs `takeRecord` in the first pass over records that note every key
 * read, for every kind of line the pass treats apart, and holds the reads to the projection.
 */
import { describe, expect, it } from 'vitest';
import { createPiCore, PI_LINK_PROJECTION, takeRecord, type PiState } from '../codecs/pi/parse.js';
import { normalizeReadOptions } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { listedFields, projected, recording } from './helpers/projection-reads.js';
import { assistant, HEADER, user } from './pi-helpers.js';

type Obj = Record<string, unknown>;

const FILE = '/w/.pi/agent/sessions/--w--/2026-01-01T00-00-00-000Z_sess-1.jsonl';

/** A pi core's state for a conversation read, in its first pass (`first`) or in a one-pass read. */
function stateOf(first: boolean, rlm = false): PiState {
  const core = createPiCore({ agent: 'pi', twoPassBytes: first ? 0 : Infinity, rlm });
  const s = core.init({ file: FILE, options: normalizeReadOptions({}) });
  expect(core.twoPass?.(s, 1_000)).toBe(first);
  return s;
}

/** The keys `takeRecord` reads of each record, fed in order to one state. */
function readsOf(records: readonly Obj[], first = true, rlm = false): Set<string> {
  const s = stateOf(first, rlm);
  const reads = new Set<string>();
  const events: SessionfoldEvent[] = [];
  records.forEach((r, i) => takeRecord(s, recording(r, reads), i * 100, 100, { agent: 'pi', rlm }, (e) => events.push(e)));
  expect(events.filter((e) => e.type === 'session').length).toBeGreaterThan(0);
  return reads;
}

// Every kind of line the first pass treats apart: headers (v3, v1 with its model, omp's with a title), pi's
// and omp's model changes, omp's session_init, Kimchi's subagent entry, titles of each kind, messages with and
// without ids.
const SESSIONS: Obj[][] = [
  [HEADER, user('u1', null, 'q'), assistant('a1', 'u1', 'r')],
  [{ type: 'session', id: 'v1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w', provider: 'anthropic', modelId: 'claude-sonnet-4-5' }, { type: 'message', timestamp: '2025-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi' } }],
  [
    { type: 'title', title: 'omp title' },
    { type: 'session', version: 3, id: 'omp-1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w', title: 'omp title', parentSession: '/w/other.jsonl' },
    { type: 'session_init', id: 'i1', parentId: null, agent: 'task' },
    { type: 'model_change', id: 'm1', parentId: 'i1', model: 'anthropic/claude-opus-4-1' },
    { type: 'model_change', id: 'm2', parentId: 'm1', model: 'bare-model' },
    { type: 'model_change', id: 'm3', parentId: 'm2', provider: 'openai', modelId: 'gpt-5' },
    { type: 'session_info', id: 's1', parentId: 'm3', name: 'named' },
    { type: 'title_change', id: 't1', parentId: 's1', title: 'renamed' },
    { type: 'compaction', id: 'c1', parentId: 't1', summary: 'x', firstKeptEntryId: 'm1', tokensBefore: 10 },
  ],
  [HEADER, { type: 'custom', id: 'k1', parentId: null, customType: 'kimchi:subagent-session', data: { type: 'explore' } }, user('u1', 'k1', 'q')],
];

// Prime Agent's RLM reads (`rlm: true`): a child's header and the entry that restates its usage in the parent.
const RLM_SESSIONS: Obj[][] = [
  [
    { ...HEADER, parentSession: '/w/.prime/agent/sessions/p.jsonl', rlmDepth: 1 },
    assistant('a1', null, 'r'),
    { type: 'child_usage_attributed', id: 'c1', parentId: 'a1', targetId: 'a1', childUsage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, aggregateUsage: { input: 11, output: 6, cacheRead: 0, cacheWrite: 0 } },
  ],
];

describe('PI_LINK_PROJECTION lists every field the first pass reads', () => {
  it.each(SESSIONS.map((s, i) => [i, s]))('session %i', (_i, records) => {
    const reads = readsOf(records as Obj[]);
    expect(reads.size).toBeGreaterThan(4);
    expect([...reads].filter((r) => !projected(PI_LINK_PROJECTION, r))).toEqual([]);
  });

  it.each(RLM_SESSIONS.map((s, i) => [i, s]))('an RLM session %i', (_i, records) => {
    const reads = readsOf(records as Obj[], true, true);
    expect([...reads].filter((r) => !projected(PI_LINK_PROJECTION, r))).toEqual([]);
  });

  it('lists no field the first pass never reads', () => {
    const reads = new Set([...SESSIONS.flatMap((s) => [...readsOf(s)]), ...RLM_SESSIONS.flatMap((s) => [...readsOf(s, true, true)])]);
    expect(listedFields(PI_LINK_PROJECTION).filter((f) => !reads.has(f))).toEqual([]);
  });

  it('sees a read the projection does not list: a one-pass read takes the messages', () => {
    const reads = readsOf(SESSIONS[0] as Obj[], false);
    expect([...reads].filter((r) => !projected(PI_LINK_PROJECTION, r))).toContain('message');
  });
});
