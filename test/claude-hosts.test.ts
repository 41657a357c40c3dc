/**
 * The agents that run Claude Code (Cowork, Cherry Studio's Claude runtime) read its transcripts by Claude's own
 * read (codecs/claude/read-as.ts `claudeReadAs`): on every real Claude fixture and the Cowork fixture, each
 * host gives Claude's events with the agent renamed, for every read option, by chunk, in read chunks of every
 * size and resumed at every line; and it takes Claude's paths, shown by their markers rather than by equal
 * output alone: events by chunk (`EventChunks`), the native engine (`scanUsage`, and the cost scan's native
 * reads), the native line source's read count, or the WebAssembly walk's calls, whichever the process runs
 * (this file runs under `SESSIONFOLD_NATIVE=0` too). A cursor an older build wrote (Claude's state, the events
 * in it named `claude`) resumes to events under the host's name.
 */
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cherryStudio } from '../codecs/cherry-studio/index.js';
import { claude } from '../codecs/claude/index.js';
import { cowork } from '../codecs/cowork/index.js';
import { nativeKernel, wasmKernel } from '../cursors/native.js';
import { nativeLineReads } from '../cursors/native-lines.js';
import { getParserString, type Codec, type JsonlCursor, type ReadCursor, type ReadOptions } from '../cursors/protocol/codec.js';
import { eventChunks } from '../cursors/protocol/chunks.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { generateCorpus } from '../fixtures/generate/index.js';
import { scanUsageBatches } from '../src/scan/index.js';
import { newScanStats, type UsageRecord } from '../src/scan/types.js';
import { expectChunkInvariant, lineBoundaries, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { jsonlFilesSync } from './helpers/files.js';

const REAL = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const COWORK = fileURLToPath(new URL('../fixtures/cowork/', import.meta.url));
const FILES = [...jsonlFilesSync(REAL), ...jsonlFilesSync(COWORK)];
const HOSTS: [string, Codec][] = [
  ['cowork', cowork],
  ['cherry-studio', cherryStudio],
];
const READS: [string, ReadOptions][] = [
  ['all kinds', {}],
  ['the cost scan\'s read', { kinds: ['session', 'usage'], titles: false }],
  ['sessions and usage with titles', { kinds: ['session', 'usage'] }],
  ['usage only', { kinds: ['usage'] }],
  ['messages only', { kinds: ['message'] }],
];
const USAGE_READ: ReadOptions = { kinds: ['session', 'usage'], titles: false };

const renamed = <E extends SessionfoldEvent>(events: readonly E[], agent: string): E[] => events.map((e) => ({ ...e, agent }));
const nameOf = (file: string) => (file.startsWith(REAL) ? file.slice(REAL.length) : `cowork/${basename(file)}`);

async function byChunk(codec: Codec, file: string, options: ReadOptions): Promise<SessionfoldEvent[]> {
  const chunks = eventChunks(codec.read(file, options));
  expect(chunks, 'the read offers its events by chunk').toBeDefined();
  const out: SessionfoldEvent[] = [];
  for await (const c of chunks!) out.push(...c);
  return out;
}

/** Which of Claude's line paths this process takes: the N-API kernel, the WebAssembly kernel, or JavaScript alone. */
const LINE_PATH = nativeKernel() !== undefined ? 'native' : wasmKernel() !== undefined ? 'wasm' : 'js';

/** How often Claude's fast line path ran during `read`: native line reads, or WebAssembly walks. */
async function fastPathRuns<T>(read: () => Promise<T>): Promise<{ result: T; runs: number }> {
  if (LINE_PATH === 'native') {
    const before = nativeLineReads.count;
    const result = await read();
    return { result, runs: nativeLineReads.count - before };
  }
  const w = wasmKernel();
  if (w === undefined) return { result: await read(), runs: 0 };
  const spy = vi.spyOn(w, 'walk');
  try {
    const result = await read();
    return { result, runs: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe('the fixtures', () => {
  it('cover a subagent transcript with its sidecar and the Cowork fixture', () => {
    expect(FILES.some((f) => f.includes('/subagents/agent-'))).toBe(true);
    expect(FILES.filter((f) => f.startsWith(COWORK)).length).toBe(2);
    expect(FILES.length).toBeGreaterThan(6);
  });
});

describe.each(HOSTS)('%s reads Claude Code transcripts by Claude\'s read', (agent, host) => {
  let fastRuns = 0;
  it('has Claude\'s native engine (scanUsage) and core (markers, walk)', () => {
    expect(host.scanUsage).toBeTypeOf('function');
    const core = host.lineCore!;
    for (const k of ['markers', 'walk', 'lineWalked', 'init', 'restore', 'snapshot'] as const) expect(core[k], k).toBeTypeOf('function');
  });

  describe.each(FILES.map((f) => [nameOf(f), f]))('%s', (_name, file) => {
    it.each(READS)('%s: Claude\'s events renamed, one by one and by chunk', async (_label, options) => {
      const want = renamed(await readEvents(claude, file, options), agent);
      const got = await readEvents(host, file, options);
      expect(got).toEqual(want);
      expect(await byChunk(host, file, options)).toEqual(want);
    });

    it('the same events in read chunks of every size, through its core and its file read', async () => {
      const events = await expectChunkInvariant(host, file);
      expect(events).toEqual(renamed(await readEvents(claude, file), agent));
    });

    it('resumed at every line: Claude\'s kept events renamed, under the host\'s cursors', async () => {
      const content = await readFile(file);
      const cuts = lineBoundaries(content);
      for (const options of [{}, USAGE_READ]) {
        const got = await resumeAcrossCuts(host, content, cuts, options, basename(file));
        const want = await resumeAcrossCuts(claude, content, cuts, options, basename(file));
        for (const [kind, events] of Object.entries(want.kept)) expect(got.kept[kind as keyof typeof want.kept], kind).toEqual(renamed(events, agent));
        expect(got.kept).toEqual(got.full);
        expect(got.cursors.every((c) => (c as JsonlCursor).parser === getParserString(host))).toBe(true);
      }
    });

    it(`takes Claude's line path (${LINE_PATH}) as often as Claude does`, async () => {
      const own = await fastPathRuns(() => readEvents(claude, file, USAGE_READ));
      const as = await fastPathRuns(() => readEvents(host, file, USAGE_READ));
      expect(as.result).toEqual(renamed(own.result, agent));
      expect(as.runs).toBe(own.runs);
      if (LINE_PATH === 'native') expect(as.runs).toBe(1);
      fastRuns += as.runs;
    });

    it.runIf(nativeKernel() !== undefined)('its native engine reads as Claude\'s, under its name', async () => {
      const [own, as] = await Promise.all([claude.scanUsage!([file]), host.scanUsage!([file])]);
      expect(own).toBeDefined();
      const [o, a] = [own![0], as![0]];
      if (o === undefined || o === false) return expect(a).toBe(o);
      if (a === undefined || a === false) throw new Error('the host left to read() what Claude\'s engine read');
      expect(a.events).toEqual(renamed(o.events, agent));
      expect([a.cwd, a.info]).toEqual([o.cwd, o.info]);
      // what the engine gives is what the host's read gives
      const read = (await readEvents(host, file, USAGE_READ)).filter((e) => e.type === 'usage');
      const plain = (events: readonly SessionfoldEvent[]) => JSON.parse(JSON.stringify(events)) as unknown; // without the fold hints (symbols)
      expect(plain(a.events)).toEqual(plain(read));
    });
  });

  it.runIf(LINE_PATH !== 'js')(`took the ${LINE_PATH} line path on the fixtures`, () => {
    expect(fastRuns).toBeGreaterThan(LINE_PATH === 'native' ? FILES.length - 1 : 0);
  });

  it('a cursor an older build wrote (events in its state named claude) resumes under the host\'s name', async () => {
    const file = FILES.find((f) => f.endsWith('agent-sessions-v2.1-sanitized-hooks-attachments.jsonl')) ?? FILES[0]!;
    const content = await readFile(file);
    const cuts = lineBoundaries(content);
    const dir = await mkdtemp(join(tmpdir(), 'sf-claude-hosts-'));
    try {
      const path = join(dir, basename(file));
      // The first cut after which a response is still open (the cursor holds its usage event) and the session is out.
      let cursor: ReadCursor | undefined;
      for (const cut of cuts.slice(1)) {
        await writeFile(path, content.subarray(0, cut));
        let c: JsonlCursor | undefined;
        await readEvents(claude, path, { resume: { onCursor: (u) => (c = u.cursor as JsonlCursor) } });
        const state = (c!.state as { core: { pending: unknown[]; session: unknown } }).core;
        if (state.pending.length > 0 && state.session !== null) {
          cursor = { ...JSON.parse(JSON.stringify(c)), parser: getParserString(host) } as ReadCursor;
          await appendFile(path, content.subarray(cut));
          break;
        }
      }
      expect(cursor, 'a cut with an open response').toBeDefined();
      const resumed = await readEvents(host, path, { resume: { from: cursor, onStart: (s) => expect(s.restarted).toBe(false) } });
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed.filter((e) => e.agent !== agent)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the cost scan of a generated history under each host', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sf-claude-hosts-scan-'));
    generateCorpus({ out: dir, seed: 'claude-hosts', scale: 0.004, agents: ['claude'] });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function scan(agent: string, root: string): Promise<{ records: string[]; nativeReads: number; fullReads: number }> {
    const stats = newScanStats();
    const out: UsageRecord[] = [];
    for await (const b of scanUsageBatches({ agents: [agent], roots: { [agent]: [root] }, cache: false, workers: 0, stats })) out.push(...b);
    const records = out.map((r) => JSON.stringify({ ...r, agent: 'any' }, Object.keys(r).sort())).sort();
    return { records, nativeReads: stats.nativeReads, fullReads: stats.fullReads };
  }

  it.each([
    ['cowork', (d: string) => join(d, 'claude')],
    ['cherry-studio', (d: string) => join(d, 'claude', 'projects')],
  ])('%s: Claude\'s records, read by the native engine as often as Claude\'s', async (agent, rootOf) => {
    const own = await scan('claude', join(dir, 'claude'));
    const as = await scan(agent, rootOf(dir));
    expect(own.records.length).toBeGreaterThan(50);
    expect(as.records).toEqual(own.records);
    expect([as.fullReads, as.nativeReads]).toEqual([own.fullReads, own.nativeReads]);
    if (nativeKernel() !== undefined) expect(as.nativeReads).toBeGreaterThan(as.fullReads / 2);
  });
});
