/**
 * A session file deleted between the listing that found it and its read (an agent pruning old sessions while
 * `sessions search` runs) is gone, not unreadable: left out of the rows, and not counted in
 * `sources` as a file that could not be read, as a cost scan leaves it (src/scan/streaming.ts). A probe codec
 * removes one file as its read opens it.
 */
import { mkdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { registerCodec } from '../src/registry.js';
import type { SourceReport } from '../src/scan/sources.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FAKE_PRICER, makeHome, writeExportSession, type Home } from './sessions-helpers.js';

const AGENT = 'vanish-probe';
let home: Home;
let root = '';
let doomed = '';

/** sessionfold-jsonl's read, but the doomed file is deleted first, as by another process. */
async function* vanishingRead(path: string, options?: Parameters<Codec['read']>[1]): AsyncGenerator<SessionfoldEvent> {
  if (path === doomed) await unlink(path).catch(() => undefined);
  yield* sessionfoldJsonl.read(path, options);
}

beforeAll(async () => {
  home = await makeHome();
  root = join(home.dir, 'probe');
  registerCodec({ ...sessionfoldJsonl, id: AGENT, aliases: [], displayName: 'Vanish probe', defaultRoots: () => [root], read: vanishingRead }, 'vanish-probe-adapter');
});

/** Three sessions, the second doomed: written anew for each test, which deletes it. */
beforeEach(async () => {
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const paths: string[] = [];
  for (let i = 0; i < 3; i++) {
    paths.push(
      await writeExportSession(root, { agent: 'x', sessionId: `probe-${i}` }, [
        { role: 'user', content: `find the needle ${i}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i)).toISOString() },
        { role: 'assistant', content: `needle ${i} found`, id: `m${i}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i, 0, 1)).toISOString() },
      ]),
    );
  }
  doomed = paths[1] as string;
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const unreadable = (sources: SourceReport[]) => sources.filter((s) => s.agent === AGENT).reduce((n, s) => n + s.unreadable, 0);

describe('a session file gone before its read', () => {
  it('search leaves it out, not counted unreadable', async () => {
    const sources: SourceReport[] = [];
    const rows = await createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false }).search({ text: 'needle', agent: AGENT, sources });
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['probe-0', 'probe-2']);
    expect(unreadable(sources)).toBe(0);
  });

});
