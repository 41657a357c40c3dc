/**
 * A small LineCore with the hard parts of real codecs, to test the reader independently of any agent:
 * a pending event that later lines of the same key replace (like Claude streaming snapshots), finalized keys
 * remembered as exact strings in a fresh read and as (deliberately weak, configurable) hashes in a restored
 * state, and RESTART on a hash hit.
 * Lines: `{"k":"a","v":3}`; a line without `k` is ignored; malformed lines throw MALFORMED_LINE.
 */
import type { Codec } from '../../cursors/protocol/codec.js';
import { RESTART, parseJsonObject, type LineCore } from '../../cursors/core.js';
import { createJsonlRead } from '../../cursors/read-jsonl.js';
import type { UsageEvent } from '../../cursors/protocol/events.js';

interface Pending {
  k: string;
  v: number;
  offset: number;
}
interface State {
  file: string;
  pending: Pending | undefined;
  exact: Set<string>;
  hashed: Set<number>;
}

export function makeTestCore(hash: (k: string) => number): LineCore<State> {
  const usage = (p: Pending): UsageEvent => ({
    type: 'usage',
    agent: 'test',
    sessionId: 's',
    offset: p.offset,
    model: 'm',
    timestamp: '2026-01-01T00:00:00.000Z',
    inputTokens: 0,
    outputTokens: p.v,
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    singleRequest: true,
    dedupKey: p.k,
  });
  return {
    init: (ctx) => ({ file: ctx.file, pending: undefined, exact: new Set(), hashed: new Set() }),
    restore(snap, ctx) {
      const s = snap as { pending?: Pending; hashed: number[] };
      return { file: ctx.file, pending: s.pending, exact: new Set(), hashed: new Set(s.hashed) };
    },
    snapshot: (s) => ({ pending: s.pending, hashed: [...new Set([...s.hashed, ...[...s.exact].map(hash)])] }),
    line(s, line, start, emit) {
      const rec = parseJsonObject(line, start, 'test', s.file);
      if (typeof rec.k !== 'string') return;
      const v = typeof rec.v === 'number' ? rec.v : 0;
      emit({ type: 'message', agent: 'test', sessionId: 's', offset: start, role: 'user', text: `${rec.k}=${v}` });
      if (s.pending?.k === rec.k) {
        if (v > s.pending.v) s.pending = { k: rec.k, v, offset: start };
        return;
      }
      if (s.exact.has(rec.k)) return; // a genuine duplicate of a finalized key
      if (s.hashed.has(hash(rec.k))) return RESTART;
      if (s.pending) {
        emit(usage(s.pending));
        s.exact.add(s.pending.k);
      }
      s.pending = { k: rec.k, v, offset: start };
    },
    end(s, emit) {
      if (!s.pending) return {};
      emit(usage(s.pending));
      return { usage: 1 };
    },
  };
}

export function makeTestCodec(hash: (k: string) => number = (k) => k.length * 2654435761 + k.charCodeAt(0)): Codec {
  const core = makeTestCore(hash);
  return {
    id: 'test',
    aliases: [],
    displayName: 'test',
    parserVersion: 1,
    capabilities: { incremental: true, persistence: 'jsonl' },
    defaultRoots: () => [],
    async *discover() {},
    getParseDependencies: () => [],
    lineCore: core,
    read: createJsonlRead({ id: 'test', parserVersion: 1 }, core),
  };
}
