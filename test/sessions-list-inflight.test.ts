/**
 * `list()` reads at most WHOLE_READS_IN_FLIGHT files whole at once, whatever the concurrency option (the
 * bound on the main thread's garbage, src/sessions/list.ts), and the rows are the same as one read at a time.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { registerCodec } from '../src/registry.js';
import { WHOLE_READS_IN_FLIGHT } from '../src/sessions/list.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { FAKE_PRICER, makeHome, writeExportSession, type Home } from './sessions-helpers.js';

const AGENT = 'inflight-probe';
const FILES = 6;
let home: Home;
let inFlight = 0;
let maxInFlight = 0;

/** sessionfold-jsonl's reads, counted while they run (a pause per event lets reads interleave). */
async function* countedRead(path: string, options?: Parameters<Codec['read']>[1]): AsyncGenerator<SessionfoldEvent> {
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  try {
    for await (const e of sessionfoldJsonl.read(path, options)) {
      await new Promise((r) => setImmediate(r));
      yield e;
    }
  } finally {
    inFlight--;
  }
}

beforeAll(async () => {
  home = await makeHome();
  const root = join(home.dir, 'probe');
  await mkdir(root, { recursive: true });
  const filler = 'y'.repeat(4000);
  for (let i = 0; i < FILES; i++) {
    const msgs = [];
    // Larger than the peek reads whole, so every listed row needs a whole read.
    for (let k = 0; k * 2 * filler.length < FULL_PEEK_BYTES * 1.5; k++) {
      msgs.push({ role: 'user' as const, content: `q${k} ${filler}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i, 0, k)).toISOString() });
      msgs.push({ role: 'assistant' as const, content: `a${k} ${filler}`, id: `m${i}-${k}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i, 0, k, 30)).toISOString() });
    }
    await writeExportSession(root, { agent: 'x', sessionId: `probe-${i}` }, msgs);
  }
  registerCodec({ ...sessionfoldJsonl, id: AGENT, aliases: [], displayName: 'Probe', defaultRoots: () => [root], read: countedRead }, 'inflight-probe-adapter');
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe('list: whole-file reads in flight', () => {
  it('are at most WHOLE_READS_IN_FLIGHT at concurrency 8, with the rows of one read at a time', async () => {
    const wide = createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false, concurrency: 8 });
    maxInFlight = 0;
    const rows = await wide.list(AGENT, { full: true });
    expect(rows).toHaveLength(FILES);
    expect(rows.every((r) => r.exact)).toBe(true);
    expect(maxInFlight).toBe(WHOLE_READS_IN_FLIGHT);

    const narrow = createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false, concurrency: 1 });
    maxInFlight = 0;
    expect(await narrow.list(AGENT, { full: true })).toEqual(rows);
    expect(maxInFlight).toBe(1);
  });
});
