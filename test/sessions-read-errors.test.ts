/**
 * `sessions search` and `sessions list` over a file whose read throws: what the error's code says decides. A
 * file the system cannot read (an errno such as EACCES, IO_ERROR) or whose bytes cannot be read (PARSE_ERROR: a
 * corrupt `.zst`) is left out and counted in `sources`, as a scan counts it (src/scan/streaming.ts); any other
 * error (a bug, or a code that is not the file's: CACHE_ERROR) is not the file's and is thrown, not hidden as an
 * unreadable file. A file deleted between the listing that found it and its read (an agent pruning old
 * sessions) is gone, not unreadable: left out and not counted, as a scan leaves it. A probe codec's read throws
 * the error under test for one file of three, or deletes that file first; the list's probe has no line core,
 * so its peek is that read. A later whole read (`--sort turns`) that fails for the file's sake keeps the
 * peek's summary.
 */
import { mkdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { registerCodec } from '../src/registry.js';
import type { SourceReport } from '../src/scan/sources.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FAKE_PRICER, makeHome, writeExportSession, type Home } from './sessions-helpers.js';

const AGENT = 'throw-probe';
/** The same probe without a line core: `list` peeks it through `read()`. */
const WHOLE = 'throw-probe-whole';
let home: Home;
let root = '';
let failing = '';
let thrown: (() => Error) | 'vanish' = () => new Error('unset');

/** sessionfold-jsonl's read, but the failing file's read throws `thrown()`, or finds the file deleted. */
async function* throwingRead(path: string, options?: Parameters<Codec['read']>[1]): AsyncGenerator<SessionfoldEvent> {
  const fail = thrown;
  if (path === failing) {
    if (fail !== 'vanish') throw fail();
    await unlink(path);
  }
  yield* sessionfoldJsonl.read(path, options);
}

beforeAll(async () => {
  home = await makeHome();
  root = join(home.dir, 'probe');
  registerCodec({ ...sessionfoldJsonl, id: AGENT, aliases: [], displayName: 'Throw probe', defaultRoots: () => [root], read: throwingRead }, 'throw-probe-adapter');
  registerCodec({ ...sessionfoldJsonl, id: WHOLE, aliases: [], displayName: 'Throw probe, read whole', defaultRoots: () => [root], lineCore: undefined, lineCoreFor: undefined, read: throwingRead }, 'throw-probe-whole-adapter');
});

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
  failing = paths[1] as string;
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

const unreadable = (sources: SourceReport[]) => sources.filter((s) => s.agent === AGENT || s.agent === WHOLE).reduce((n, s) => n + s.unreadable, 0);
const search = (sources: SourceReport[]) =>
  createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false }).search({ text: 'needle', agent: AGENT, sources });

const errno = (code: string) => Object.assign(new Error(`${code}: cannot open`), { code });

const list = (sources: SourceReport[]) => createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false }).list(WHOLE, { sources });

for (const [op, ask] of [['search', search], ['list', list]] as const) describe(`${op}: a read that throws`, () => {
  const counted: [string, () => Error][] = [
    ['EACCES', () => errno('EACCES')],
    ['EIO', () => errno('EIO')],
    ['IO_ERROR', () => new SessionfoldError('IO_ERROR', 'cannot read')],
    ['PARSE_ERROR (bytes that do not decompress)', () => new SessionfoldError('PARSE_ERROR', 'Cannot decompress')],
  ];
  for (const [name, make] of counted) {
    it(`${name}: the file is left out and counted unreadable`, async () => {
      thrown = make;
      const sources: SourceReport[] = [];
      const rows = await ask(sources);
      expect(rows.map((r) => r.sessionId).sort()).toEqual(['probe-0', 'probe-2']);
      expect(unreadable(sources)).toBe(1);
    });
  }

  it('a file gone since its listing: left out, not counted unreadable', async () => {
    thrown = 'vanish';
    const sources: SourceReport[] = [];
    const rows = await ask(sources);
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['probe-0', 'probe-2']);
    expect(unreadable(sources)).toBe(0);
  });

  const surfaced: [string, () => Error, unknown][] = [
    ['a bug (TypeError)', () => new TypeError('x is undefined'), TypeError],
    ['CACHE_ERROR', () => new SessionfoldError('CACHE_ERROR', 'cache broken'), expect.objectContaining({ code: 'CACHE_ERROR' })],
    ['INVALID_OPTION', () => new SessionfoldError('INVALID_OPTION', 'bad option'), expect.objectContaining({ code: 'INVALID_OPTION' })],
  ];
  for (const [name, make, expected] of surfaced) {
    it(`${name}: thrown, not counted as an unreadable file`, async () => {
      thrown = make;
      const sources: SourceReport[] = [];
      const run = ask(sources);
      if (typeof expected === 'function') await expect(run).rejects.toThrow(expected as new () => Error);
      else await expect(run).rejects.toEqual(expected);
    });
  }
});

describe('list --sort turns: a whole read after the peek fails', () => {
  /** The probe files made larger than a peek reads whole, so `--sort turns` reads them again through `read()`. */
  async function bigFiles(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await writeExportSession(root, { agent: 'x', sessionId: `probe-${i}` }, [
        { role: 'user', content: `find the needle ${i} ${'hay '.repeat(50_000)}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i)).toISOString() },
        { role: 'assistant', content: `needle ${i} found`, id: `m${i}`, timestamp: new Date(Date.UTC(2026, 4, 1 + i, 0, 1)).toISOString() },
      ]);
    }
  }
  const byTurns = (sources: SourceReport[]) => createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false }).list(AGENT, { sort: 'turns', sources });

  for (const [name, make] of [['EACCES', () => errno('EACCES')], ['gone', 'vanish']] as const) {
    it(`${name}: the file keeps its peeked summary (not exact), the others are read whole`, async () => {
      await bigFiles();
      thrown = make;
      const rows = await byTurns([]);
      expect(rows.map((r) => [r.sessionId, r.exact]).sort()).toEqual([['probe-0', true], ['probe-1', false], ['probe-2', true]]);
    });
  }

  it('a bug: thrown, not a file kept with its peeked summary', async () => {
    await bigFiles();
    thrown = () => new TypeError('x is undefined');
    await expect(byTurns([])).rejects.toThrow(TypeError);
  });
});
