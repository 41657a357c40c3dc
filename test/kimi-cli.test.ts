/**
 * The Python kimi-cli's wires (`~/.kimi/sessions/<md5 of cwd>/<session>/wire.jsonl`, its subagents'
 * `subagents/<id>/wire.jsonl`, `~/.kimi/imported_sessions/<id>/wire.jsonl`) over fixtures/kimi/share, written in
 * the shapes of kimi-cli's own types (fixtures/kimi/README.md): golden events, token totals checked by a
 * deliberately simple second reader, each model call once across the parent's SubagentEvent copy, the
 * subagent's own wire and an imported copy, chunk invariance, resume at every line boundary and random cuts (also
 * over random wires, by property), bad lines skipped and counted, discovery and roots, the share folder's
 * config.toml (the default model, a fallback) and kimi.json (the work dir) with their dependency stamps, and the
 * built CLI's `cost report --agent kimi` over the tree. Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run
 * test/kimi-cli.test.ts`.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workDirsOf } from '../codecs/kimi/cli-share.js';
import { kimi } from '../codecs/kimi/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { parseSync } from '../cursors/sync.js';
import { buildIfStale } from './helpers/agent-cli.js';
import { byKind, discoverAll, expectChunkInvariant, expectResumeEqualsFull, lineBoundaries, randomCuts, readEvents } from './helpers/codec-harness.js';
import { expectGolden } from './helpers/golden.js';
import { jsonLines } from './helpers/json-lines.js';
import { codecSplitTotals, type SplitTotals } from './helpers/usage-totals.js';

type Totals = SplitTotals;

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARE = fileURLToPath(new URL('../fixtures/kimi/share/', import.meta.url));
const EXPECTED = fileURLToPath(new URL('../fixtures/expected/kimi/', import.meta.url));

const HASH = 'b1f0a357c8a5af986474de557223ffae'; // md5 of /home/dev/kimi-demo, kimi-cli's folder of that work dir
const S = '3f2a9c1e-7b4d-4e8a-9c21-5d6e7f8a9b0c';
const AGENT = 'a4f1c2d3';
const OLD = '8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const IMPORTED = '5e9b1c7a2d4f6083';

/** Each fixture wire, by its golden name, with its path under the share folder. */
const WIRES: Record<string, string> = {
  'kimi-cli-main': `sessions/${HASH}/${S}/wire.jsonl`,
  'kimi-cli-subagent': `sessions/${HASH}/${S}/subagents/${AGENT}/wire.jsonl`,
  'kimi-cli-task-tool': `sessions/${HASH}/${OLD}/wire.jsonl`,
  'kimi-cli-imported': `imported_sessions/${IMPORTED}/wire.jsonl`,
};
const NAMES = Object.keys(WIRES);
const pathOf = (name: string): string => join(SHARE, WIRES[name]!);

/**
 * The simple second reader: JSON.parse every line, take each StatusUpdate's `token_usage`, also inside
 * SubagentEvents, and count each `message_id` once across all the files it is given (a call without one each time).
 */
function naiveTotals(texts: readonly string[]): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, calls: 0 };
  const seen = new Set<string>();
  const add = (p: any): void => {
    const u = p?.token_usage;
    if (u === null || typeof u !== 'object') return;
    if (typeof p.message_id === 'string') {
      if (seen.has(p.message_id)) return;
      seen.add(p.message_id);
    }
    t.input += u.input_other ?? 0;
    t.output += u.output ?? 0;
    t.cacheRead += u.input_cache_read ?? 0;
    t.cacheWrite += u.input_cache_creation ?? 0;
    t.calls++;
  };
  const visit = (m: any): void => {
    if (m?.type === 'StatusUpdate') add(m.payload);
    else if (m?.type === 'SubagentEvent') visit(m.payload?.event);
  };
  for (const text of texts) for (const r of jsonLines(text)) visit(r?.message);
  return t;
}

/** Usage events summed once per dedup key, as the folds count them. */
const codecTotals = (events: readonly SessionfoldEvent[]): Totals => codecSplitTotals(events, true);

const usageOf = (events: readonly SessionfoldEvent[]): UsageEvent[] => events.filter((e): e is UsageEvent => e.type === 'usage');

/** The codec whose `lineCore` is the one `read()` uses for this file. */
const codecFor = (file: string): Codec => ({ ...kimi, lineCore: kimi.lineCoreFor!(file) });

const events: Record<string, SessionfoldEvent[]> = {};
beforeAll(async () => {
  for (const name of NAMES) events[name] = await readEvents(kimi, pathOf(name));
});

describe('kimi-cli golden files (fixtures/kimi/share)', () => {
  it.each(NAMES)('%s: a fresh read equals the checked-in events', async (name) => {
    expect(events[name]![0]?.type).toBe('session');
    await expectGolden(EXPECTED, name, events[name]!);
  });

  it('every model call counts once across the four wires, as a simple second reader counts them', async () => {
    const texts = await Promise.all(NAMES.map((n) => readFile(pathOf(n), 'utf8')));
    const want = naiveTotals(texts);
    expect(want.calls).toBe(7); // 2 main + 2 subagent + 2 Task-tool session (one in its subagent) + 1 without an id
    expect(codecTotals(NAMES.flatMap((n) => events[n]!))).toEqual(want);
  });

  it('reads the main session: its title from state.json, messages, tool calls, a usage event per step', () => {
    const e = events['kimi-cli-main']!;
    // the work dir from kimi.json, whose entry's MD5 names the session's folder
    expect(e[0]).toMatchObject({ type: 'session', sessionId: S, title: 'Where is the config loaded?', cwd: '/home/dev/kimi-demo', version: 'wire 1.9' });
    expect(e[0]).not.toHaveProperty('subagent');
    const k = byKind(e);
    expect(k.message.map((m: any) => [m.role, m.text, m.thinking])).toEqual([
      ['user', 'Find where the config is loaded and summarize it — 設定', undefined],
      ['assistant', '', 'I should look for config loading.'],
      ['assistant', "I'll ask a subagent to search.", undefined],
      ['assistant', 'The config is loaded in `config.py` by `load_config()`.', undefined],
    ]);
    expect(k.tool_call).toMatchObject([{ callId: 'Agent:0', name: 'Agent', input: { description: 'find config', subagent_type: 'explore' } }]);
    expect(k.tool_result).toMatchObject([{ callId: 'Agent:0', isError: false }]);
    // own steps, then the subagent's two calls in the subagent's session; the plan-mode update has no tokens
    expect(usageOf(e).map((u) => [u.sessionId, u.messageId, u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([
      [S, 'chatcmpl-main-01', 5120, 0, 240],
      [`${S}/${AGENT}`, 'chatcmpl-sub-01', 2210, 0, 180],
      [`${S}/${AGENT}`, 'chatcmpl-sub-02', 312, 2048, 95],
      [S, 'chatcmpl-main-02', 640, 5120, 120],
    ]);
    // the wire names no model: each call takes config.toml's default, marked as a fallback
    for (const u of usageOf(e)) {
      expect(u).toMatchObject({ model: 'kimi-k2-thinking-turbo', modelFallback: true, singleRequest: true, dedupKey: `kimi:msg:${u.messageId}` });
      expect(u.copied).toBeUndefined();
    }
    expect(usageOf(e)[0]!.timestamp).toBe('2026-02-13T11:50:02.425Z'); // the record's `timestamp`, seconds
  });

  it("a subagent's wire is its own session, a child of the main one, under the same keys as its parent's copies", () => {
    const sub = events['kimi-cli-subagent']!;
    expect(sub[0]).toMatchObject({ type: 'session', sessionId: `${S}/${AGENT}`, forkedFrom: S, subagent: true, agentType: 'explore', startedAt: '2026-02-13T11:50:03.025Z', cwd: '/home/dev/kimi-demo' });
    expect(sub[0]).not.toHaveProperty('title');
    const own = usageOf(sub).map((u) => [u.sessionId, u.dedupKey]);
    const copies = usageOf(events['kimi-cli-main']!).filter((u) => u.sessionId !== S).map((u) => [u.sessionId, u.dedupKey]);
    expect(own).toEqual(copies);
    const shared = [join(SHARE, 'config.toml'), join(SHARE, 'kimi.json')];
    expect(kimi.getParseDependencies(pathOf('kimi-cli-subagent'))).toEqual([join(SHARE, 'sessions', HASH, S, 'subagents', AGENT, 'meta.json'), ...shared]);
    expect(kimi.getParseDependencies(pathOf('kimi-cli-main'))).toEqual([join(SHARE, 'sessions', HASH, S, 'state.json'), ...shared]);
  });

  it("a Task-tool subagent, which wrote no wire of its own, counts in its parent's session; a call without an id keeps its line's key", () => {
    const e = events['kimi-cli-task-tool']!;
    expect(e[0]).toMatchObject({ type: 'session', sessionId: OLD, offset: 0 }); // no metadata line: the first record opens it
    expect(e[0]).not.toHaveProperty('version');
    const u = usageOf(e);
    expect(u.map((x) => [x.sessionId, x.messageId, x.dedupKey])).toEqual([
      [OLD, 'chatcmpl-leg-01', 'kimi:msg:chatcmpl-leg-01'],
      [OLD, 'chatcmpl-leg-sub-01', 'kimi:msg:chatcmpl-leg-sub-01'],
      [OLD, undefined, `kimi:${OLD}:${u[2]!.offset}`],
    ]);
    expect(byKind(e).message.map((m: any) => m.text)).toEqual(['Run the tests', 'Two tests fail.']); // the subagent's messages are not the session's
    expect(byKind(e).tool_result).toMatchObject([{ callId: 'tool_Task1', isError: true, output: '2 failed' }]);
  });

  it("an imported session is a copy: its usage is marked copied, under the origin's keys, with no model this machine's config could name", () => {
    const e = events['kimi-cli-imported']!;
    expect(e[0]).toMatchObject({ type: 'session', sessionId: IMPORTED });
    expect(e[0]).not.toHaveProperty('cwd');
    expect(usageOf(e).every((u) => u.copied === true && u.model === 'unknown' && u.modelFallback === true)).toBe(true);
    expect(kimi.getParseDependencies(pathOf('kimi-cli-imported'))).toEqual([join(SHARE, 'imported_sessions', IMPORTED, 'state.json')]);
    expect(usageOf(e).map((u) => u.dedupKey)).toEqual(usageOf(events['kimi-cli-main']!).map((u) => u.dedupKey));
  });
});

describe('kimi-cli chunking and resume', () => {
  it.each(NAMES)('%s: same events (all kinds, and usage only) whatever the chunks', async (name) => {
    const file = pathOf(name);
    const all = await expectChunkInvariant(codecFor(file), file);
    expect(all.length).toBeGreaterThan(1);
    expect(await expectChunkInvariant(codecFor(file), file, { kinds: ['usage'] })).toEqual(byKind(all).usage);
  });

  it.each(NAMES)('%s: resuming at every line boundary and random cuts equals a full read', async (name) => {
    const content = await readFile(pathOf(name));
    const cuts = [...new Set([...lineBoundaries(content), ...randomCuts(content.length, 40, content.length)])].sort((a, b) => a - b);
    const run = await expectResumeEqualsFull(kimi, content, cuts, {}, WIRES[name]);
    await expectResumeEqualsFull(kimi, content, cuts, { kinds: ['usage'] }, WIRES[name]);
    expect(run.starts.slice(1).every((s) => !s.restarted)).toBe(true);
  });
});

/** A random kimi-cli wire line, and the call it holds as the simple reader counts it (key, tokens), if any. */
interface Gen {
  line: string;
  call?: { key: string | null; t: Totals };
}
const rec = (type: string, payload: object, ts = 1770000000.5): string => JSON.stringify({ timestamp: ts, message: { type, payload } });
const statusArb = fc.record({ id: fc.option(fc.constantFrom('m1', 'm2', 'm3', 'm4'), { nil: null }), i: fc.nat(9000), o: fc.nat(900), r: fc.nat(9000), c: fc.nat(90) });
const tokens = (s: { i: number; o: number; r: number; c: number }): Totals => ({ input: s.i, output: s.o, cacheRead: s.r, cacheWrite: s.c, calls: 1 });
const lineArb: fc.Arbitrary<Gen> = fc.oneof(
  statusArb.map((s) => ({ line: rec('StatusUpdate', { context_usage: 0.1, token_usage: { input_other: s.i, output: s.o, input_cache_read: s.r, input_cache_creation: s.c }, message_id: s.id }), call: { key: s.id, t: tokens(s) } })),
  fc.tuple(statusArb, fc.constantFrom(undefined, 'a1b2c3d4')).map(([s, agent]) => ({
    line: rec('SubagentEvent', {
      ...(agent === undefined ? { task_tool_call_id: 't1' } : { parent_tool_call_id: 't1', agent_id: agent }),
      event: { type: 'StatusUpdate', payload: { token_usage: { input_other: s.i, output: s.o, input_cache_read: s.r, input_cache_creation: s.c }, message_id: s.id } },
    }),
    // a subagent's call without an id is left to the subagent's own wire
    ...(agent === undefined || s.id !== null ? { call: { key: s.id, t: tokens(s) } } : {}),
  })),
  fc.constant({ line: rec('StatusUpdate', { context_usage: 0.2, token_usage: null, message_id: null }) }),
  fc.constant({ line: rec('ContentPart', { type: 'text', text: 'StatusUpdate — ünïcödé' }) }),
  fc.constant({ line: rec('TurnBegin', { user_input: 'go' }) }),
  fc.constant({ line: '{"timestamp": 1770000001.0, "message": {"type": "Status' }),
);

/** The generated calls summed, each key once (the first), a call without a key each time. */
function expectedTotals(gens: readonly Gen[]): Totals {
  const t: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, calls: 0 };
  const seen = new Set<string>();
  for (const g of gens) {
    if (g.call === undefined) continue;
    if (g.call.key !== null) {
      if (seen.has(g.call.key)) continue;
      seen.add(g.call.key);
    }
    for (const k of Object.keys(t) as (keyof Totals)[]) t[k] += g.call.t[k];
  }
  return t;
}

describe('kimi-cli over random wires', () => {
  it('usage reads agree with the generated calls, each key once, and resume at random cuts equals a full read', async () => {
    const file = `sessions/${HASH}/${S}/wire.jsonl`;
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 16 }), fc.array(fc.nat(5000), { maxLength: 4 }), async (gens, seeds) => {
        const text = ['{"type": "metadata", "protocol_version": "1.9"}', ...gens.map((g) => g.line)].join('\n') + '\n';
        for (const kinds of [undefined, ['usage' as const]]) {
          const got = parseSync(kimi.lineCoreFor!(join(SHARE, file))!, text, { file, ...(kinds && { kinds }) });
          expect(codecTotals(got)).toEqual(expectedTotals(gens));
        }
        const content = Buffer.from(text);
        await expectResumeEqualsFull(kimi, content, seeds.map((c) => c % (content.length + 1)).sort((a, b) => a - b), { kinds: ['usage'] }, file);
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});

describe('kimi-cli bad input, discovery and roots', () => {
  it('skips and counts a malformed line, a record without a payload and one with an absurd count', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-kimi-cli-'));
    try {
      const file = join(dir, 'wire.jsonl');
      await writeFile(
        file,
        [
          '{"type": "metadata", "protocol_version": "1.9"}',
          '{"timestamp": 1770000000.0, "message": {"type": "Stat',
          '{"timestamp": 1770000000.0, "message": {"type": "StatusUpdate"}}',
          rec('StatusUpdate', { token_usage: { input_other: 1e300, output: 5 }, message_id: 'huge' }),
          rec('StatusUpdate', { token_usage: { input_other: -7, output: 1.5 }, message_id: 'neg' }),
          rec('StatusUpdate', { token_usage: { input_other: -1, output: 3, input_cache_read: 400 }, message_id: 'full-hit' }),
          rec('StatusUpdate', { token_usage: { input_other: 10, output: 2 }, message_id: 'ok' }),
          '',
        ].join('\n'),
      );
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const usage = usageOf(await readEvents(kimi, file, { info }));
      expect(info.skippedLines).toBe(4);
      // a cache hit the provider reports as input -1 is no uncached input (cursors/sane.ts uncachedInput)
      expect(usage.map((u) => [u.messageId, u.inputTokens, u.cacheReadTokens, u.outputTokens])).toEqual([
        ['full-hit', 0, 400, 3],
        ['ok', 10, 0, 2],
      ]);
      await expect(readEvents(kimi, file, { strict: true })).rejects.toMatchObject({ code: 'PARSE_ERROR' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('discovers every wire, subagents marked, imported sessions under their own ids', async () => {
    const found = await discoverAll(kimi, [join(SHARE, 'sessions'), join(SHARE, 'imported_sessions'), join(SHARE, 'missing')]);
    expect(found.map((f) => [relative(SHARE, f.path), f.sessionId, f.subagent === true]).sort()).toEqual(
      [
        [WIRES['kimi-cli-main'], S, false],
        [WIRES['kimi-cli-subagent'], `${S}/${AGENT}`, true],
        [WIRES['kimi-cli-task-tool'], OLD, false],
        [WIRES['kimi-cli-imported'], IMPORTED, false],
      ].sort(),
    );
  });

  it("takes kimi-cli's share folder from KIMI_SHARE_DIR, `~` expanded as its share.py does", () => {
    expect(kimi.defaultRoots({ HOME: '/h', KIMI_SHARE_DIR: '~/k' })).toEqual(['/h/.kimi-code/sessions', '/h/k/sessions', '/h/k/imported_sessions']);
    expect(kimi.defaultRoots({ HOME: '/h', KIMI_SHARE_DIR: ' /s ' })).toEqual(['/h/.kimi-code/sessions', '/s/sessions', '/s/imported_sessions']);
  });
});

describe("kimi-cli's config.toml: the model of the calls its wires name none for", () => {
  const MAIN = WIRES['kimi-cli-main']!;
  const DEFAULT = 'default_model = "moonshot-ai/kimi-k2-thinking-turbo"';
  let config: string;
  beforeAll(async () => {
    config = await readFile(join(SHARE, 'config.toml'), 'utf8');
    expect(config).toContain(DEFAULT);
  });

  /** A temporary share folder holding the main fixture wire and `files` (paths relative to the share folder). */
  async function withShare<T>(files: Record<string, string>, use: (share: string, wire: string) => Promise<T>): Promise<T> {
    const share = await mkdtemp(join(tmpdir(), 'sf-kimi-share-'));
    try {
      const wire = join(share, MAIN);
      await mkdir(dirname(wire), { recursive: true });
      await cp(pathOf('kimi-cli-main'), wire);
      for (const [rel, text] of Object.entries(files)) await writeFile(join(share, rel), text);
      return await use(share, wire);
    } finally {
      await rm(share, { recursive: true, force: true });
    }
  }

  it('takes models[default_model].model, the name the API took, not the entry key, marked as a fallback', async () => {
    const usage = await withShare({ 'config.toml': config }, async (_share, wire) => usageOf(await readEvents(kimi, wire)));
    expect(usage.map((u) => [u.model, u.modelFallback])).toEqual(Array(4).fill(['kimi-k2-thinking-turbo', true]));
  });

  it('reads a config written by hand: a dotted key for the default, the model as an inline table', async () => {
    const text = "default_model = 'k2' # mine\nmodels.k2 = { provider = \"p\", model = \"kimi-k2-turbo-preview\", max_context_size = 131072 }\n";
    const usage = await withShare({ 'config.toml': text }, async (_share, wire) => usageOf(await readEvents(kimi, wire)));
    expect(new Set(usage.map((u) => u.model))).toEqual(new Set(['kimi-k2-turbo-preview']));
  });

  it.each<[string, Record<string, string>]>([
    ['without a config.toml', {}],
    ['with a malformed config.toml', { 'config.toml': DEFAULT + '\n[models\n' }],
    ['with a default that names no models entry', { 'config.toml': 'default_model = "gone"\n[models.here]\nmodel = "kimi-k2.5"\n' }],
    ["with kimi-cli's first config, no default", { 'config.toml': 'default_model = ""\n[models]\n[providers]\n' }],
    ['with a default that is not a string', { 'config.toml': 'default_model = 3\n' }],
  ])('names no model %s, and still reads every call', async (_name, files) => {
    const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
    const usage = await withShare(files, async (_share, wire) => usageOf(await readEvents(kimi, wire, { info })));
    expect(usage.map((u) => [u.model, u.modelFallback])).toEqual(Array(4).fill(['unknown', true]));
    expect(info.skippedLines).toBe(0);
  });

  it('names no model when config.toml is a folder, not a file', async () => {
    const usage = await withShare({}, async (share, wire) => {
      await mkdir(join(share, 'config.toml'));
      return usageOf(await readEvents(kimi, wire));
    });
    expect(new Set(usage.map((u) => u.model))).toEqual(new Set(['unknown']));
  });

  it('stamps config.toml by the default model alone, and sees a rewrite its mtime was put back over', async () => {
    await withShare({ 'config.toml': config }, async (share, wire) => {
      const dep = join(share, 'config.toml');
      expect(kimi.getParseDependencies(wire)).toEqual([join(dirname(wire), 'state.json'), dep, join(share, 'kimi.json')]);
      const stamp = (): string | undefined => kimi.dependencyStamp!(wire, dep);
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      expect(kimi.dependencyStamp!(wire, join(dirname(wire), 'state.json'))).toBeUndefined(); // by its stat
      // settled (an hour old), so kept while its stat holds
      const past = new Date(Date.now() - 3_600_000);
      await utimes(dep, past, past);
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      await writeFile(dep, config + '\n# a comment, a new provider\n[providers.other]\ntype = "kimi"\n');
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      // the same size and mtime, another default: its ctime tells
      const same = config.replace('"moonshot-ai/kimi-k2-thinking-turbo"', '"kimi-code/kimi-for-coding"' + ' '.repeat(9));
      expect(Buffer.byteLength(same)).toBe(Buffer.byteLength(config));
      await writeFile(dep, config);
      await utimes(dep, past, past);
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      await writeFile(dep, same);
      await utimes(dep, past, past);
      expect(stamp()).toBe('model:kimi-for-coding');
      await rm(dep);
      expect(stamp()).toBe('model:');
    });
  });

  it('sees a copy put in place with the same size and mtime, and keeps nothing of a file written just now', async () => {
    await withShare({ 'config.toml': config }, async (share, wire) => {
      const dep = join(share, 'config.toml');
      const stamp = (): string | undefined => kimi.dependencyStamp!(wire, dep);
      const same = config.replace('"moonshot-ai/kimi-k2-thinking-turbo"', '"kimi-code/kimi-for-coding"' + ' '.repeat(9));
      const past = new Date(Date.now() - 3_600_000);
      await utimes(dep, past, past);
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      // `cp -p` and a rename over it: the same size and mtime, another file (its inode and ctime tell)
      const copy = join(share, 'config.toml.copy');
      await writeFile(copy, same);
      await utimes(copy, past, past);
      await rename(copy, dep);
      expect(stamp()).toBe('model:kimi-for-coding');
      // a file written now is not kept at all (it may change again within its mtime's tick): each read reads it
      await writeFile(dep, config);
      expect(stamp()).toBe('model:kimi-k2-thinking-turbo');
      await writeFile(dep, same);
      expect(stamp()).toBe('model:kimi-for-coding');
    });
  });

  it('resuming at every line boundary with the config and kimi.json beside equals a full read', async () => {
    const content = await readFile(pathOf('kimi-cli-main'));
    const beside = { 'config.toml': config, 'kimi.json': await readFile(join(SHARE, 'kimi.json'), 'utf8') };
    const run = await expectResumeEqualsFull(kimi, content, lineBoundaries(content), {}, MAIN, beside);
    await expectResumeEqualsFull(kimi, content, lineBoundaries(content), { kinds: ['usage'] }, MAIN, beside);
    expect(new Set(run.full.usage.map((u) => (u as UsageEvent).model))).toEqual(new Set(['kimi-k2-thinking-turbo']));
    expect(run.full.session).toMatchObject([{ cwd: '/home/dev/kimi-demo' }]);
  });
});

describe("kimi-cli's kimi.json: the work dir a session's folder is the MD5 of", () => {
  let metadata: string;
  beforeAll(async () => {
    metadata = await readFile(join(SHARE, 'kimi.json'), 'utf8');
  });

  it("maps each work dir to its folder: the MD5 of the path's UTF-8 bytes, `<kaos>_<md5>` off the local KAOS", () => {
    // the MD5s as Python's hashlib gives them for the paths' UTF-8 bytes
    expect([...workDirsOf(metadata)]).toEqual([
      [HASH, '/home/dev/kimi-demo'],
      ['35e15e3db827239f9b9f5c90d0cffee0', '/home/dev/设定-notes'],
      ['ssh_8d9fbf108f79c6229f0b59258b273b63', '/srv/app'],
    ]);
    // a missing kaos is the local one (`WorkDirMeta.kaos` defaults to it); an entry without a path is no work dir
    expect([...workDirsOf('{"work_dirs": [{"path": "/srv/app"}, {"kaos": "local"}, 7, null]}')]).toEqual([['8d9fbf108f79c6229f0b59258b273b63', '/srv/app']]);
  });

  it.each([
    ['not JSON', '{"work_dirs": ['],
    ['no work_dirs', '{"thinking": false}'],
    ['work_dirs not a list', '{"work_dirs": {"path": "/srv/app"}}'],
    ['a list', '[]'],
  ])('maps nothing from a kimi.json that is %s', (_name, text) => {
    expect(workDirsOf(text).size).toBe(0);
  });

  /** The main and subagent fixture wires, with the subagent's meta.json as given, under a share folder holding `files`. */
  async function sessionEvents(files: Record<string, string>, meta?: string): Promise<[SessionfoldEvent[], SessionfoldEvent[]]> {
    const share = await mkdtemp(join(tmpdir(), 'sf-kimi-share-'));
    try {
      await cp(join(SHARE, 'sessions'), join(share, 'sessions'), { recursive: true });
      if (meta !== undefined) await writeFile(join(share, WIRES['kimi-cli-subagent']!, '..', 'meta.json'), meta);
      for (const [rel, text] of Object.entries(files)) await writeFile(join(share, rel), text);
      return [await readEvents(kimi, join(share, WIRES['kimi-cli-main']!)), await readEvents(kimi, join(share, WIRES['kimi-cli-subagent']!))];
    } finally {
      await rm(share, { recursive: true, force: true });
    }
  }

  it.each<[string, Record<string, string>]>([
    ['without a kimi.json', {}],
    ['with a malformed kimi.json', { 'kimi.json': '{"work_dirs": [{"path": ' }],
    ['with a kimi.json that lacks its work dir', { 'kimi.json': '{"work_dirs": [{"path": "/elsewhere", "kaos": "local"}]}' }],
    ['with its work dir on another KAOS (another folder)', { 'kimi.json': '{"work_dirs": [{"path": "/home/dev/kimi-demo", "kaos": "ssh"}]}' }],
  ])('has no cwd %s, and reads the session all the same', async (_name, files) => {
    const [main, sub] = await sessionEvents(files);
    expect(main[0]).toMatchObject({ type: 'session', title: 'Where is the config loaded?' });
    expect(main[0]).not.toHaveProperty('cwd');
    expect(sub[0]).not.toHaveProperty('cwd');
    expect(usageOf(main)).toHaveLength(4);
  });

  it("gives a subagent the work dir its launch spec names, its session's otherwise", async () => {
    const meta = JSON.parse(await readFile(join(SHARE, WIRES['kimi-cli-subagent']!, '..', 'meta.json'), 'utf8')) as { launch_spec: { work_dir: string | null } };
    meta.launch_spec.work_dir = '/home/dev/kimi-demo/packages/core';
    const [main, sub] = await sessionEvents({ 'kimi.json': metadata }, JSON.stringify(meta, null, 2));
    expect(main[0]).toMatchObject({ cwd: '/home/dev/kimi-demo' });
    expect(sub[0]).toMatchObject({ cwd: '/home/dev/kimi-demo/packages/core', agentType: 'explore' });
    const [, own] = await sessionEvents({}, JSON.stringify(meta, null, 2)); // no kimi.json: its own still
    expect(own[0]).toMatchObject({ cwd: '/home/dev/kimi-demo/packages/core' });
  });

  it('stamps kimi.json by the work dir alone: a new session or work dir elsewhere keeps the stamp', async () => {
    const share = await mkdtemp(join(tmpdir(), 'sf-kimi-share-'));
    try {
      const wire = join(share, WIRES['kimi-cli-main']!);
      const dep = join(share, 'kimi.json');
      await writeFile(dep, metadata);
      const stamp = (): string | undefined => kimi.dependencyStamp!(wire, dep);
      expect(stamp()).toBe('cwd:/home/dev/kimi-demo');
      const more = JSON.parse(metadata) as { work_dirs: { path: string; kaos: string; last_session_id: string | null }[] };
      more.work_dirs[0]!.last_session_id = OLD;
      more.work_dirs.push({ path: '/tmp/other', kaos: 'local', last_session_id: null });
      await writeFile(dep, JSON.stringify(more, null, 2));
      expect(stamp()).toBe('cwd:/home/dev/kimi-demo');
      await writeFile(dep, JSON.stringify({ work_dirs: more.work_dirs.slice(1) }));
      expect(stamp()).toBe('cwd:');
      await rm(dep);
      expect(stamp()).toBe('cwd:');
      // an imported session has no share folder's files: none is a dependency, none is stamped
      expect(kimi.dependencyStamp!(pathOf('kimi-cli-imported'), join(SHARE, 'kimi.json'))).toBeUndefined();
    } finally {
      await rm(share, { recursive: true, force: true });
    }
  });
});

describe('sessionfold CLI over a kimi-cli share folder', () => {
  let home: string;
  beforeAll(async () => {
    await buildIfStale(['kimi']);
    home = await mkdtemp(join(tmpdir(), 'sf-kimi-cli-home-'));
    await cp(SHARE, join(home, 'kimi-share'), { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });
  const cli = async (args: string[]): Promise<string> =>
    (
      await run(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.cjs'), ...args], {
        cwd: home,
        maxBuffer: 64 << 20,
        env: { PATH: process.env.PATH, HOME: home, KIMI_SHARE_DIR: join(home, 'kimi-share'), XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' },
      })
    ).stdout;

  it('cost report --agent kimi counts each model call once, over the parent, subagent and imported copies', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--agent', 'kimi', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, Record<string, number>> };
    const want = codecTotals(NAMES.flatMap((n) => events[n]!));
    expect(report.breakdowns.kimi).toMatchObject({ inputTokens: want.input, outputTokens: want.output, cacheReadTokens: want.cacheRead, cacheWriteTokens: want.cacheWrite, requestCount: want.calls });
    // the wire names no model: config.toml's default prices it (the imported copies, unknown, are not kept)
    const byModel = JSON.parse(await cli(['cost', 'report', '--agent', 'kimi', '--json', '--group-by', 'model'])) as { unpricedCount: number; breakdowns: Record<string, { requestCount: number; totalUsd: number }> };
    expect(Object.keys(byModel.breakdowns)).toEqual(['kimi-k2-thinking-turbo']);
    expect(byModel.breakdowns['kimi-k2-thinking-turbo']).toMatchObject({ requestCount: 7, unpricedCount: 0 });
    expect(byModel.breakdowns['kimi-k2-thinking-turbo']!.totalUsd).toBeGreaterThan(0);
    expect(await cli(['cost', 'report', '--agent', 'kimi'])).toMatch(/Total +3 +7 +13,482 +875 +0 +12,288 +26,645 +\$0\.\d\d\n/);
  });

  it('takes the new default model after config.toml changes it, through the cache, and none without the file', async () => {
    const models = async (): Promise<string[]> => Object.keys((JSON.parse(await cli(['cost', 'report', '--agent', 'kimi', '--json', '--group-by', 'model'])) as { breakdowns: object }).breakdowns);
    const config = join(home, 'kimi-share', 'config.toml');
    const text = await readFile(config, 'utf8');
    try {
      expect(await models()).toEqual(['kimi-k2-thinking-turbo']);
      await writeFile(config, text.replace('default_model = "moonshot-ai/kimi-k2-thinking-turbo"', 'default_model = "kimi-code/kimi-for-coding"'));
      expect(await models()).toEqual(['kimi-for-coding']);
      await rm(config);
      expect(await models()).toEqual(['unknown']);
    } finally {
      await writeFile(config, text);
    }
    expect(await models()).toEqual(['kimi-k2-thinking-turbo']);
  });

  it('sessions list kimi lists the sessions, the title from state.json, the subagent with --subagents', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'kimi', '--json'])) as { sessionId: string; title?: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual([IMPORTED, OLD, S].sort());
    expect(rows.find((r) => r.sessionId === S)?.title).toBe('Where is the config loaded?');
    // the work dir from kimi.json; an imported session has none
    expect(rows.map((r) => [r.sessionId, r.cwd]).sort()).toEqual([[IMPORTED, undefined], [OLD, '/home/dev/kimi-demo'], [S, '/home/dev/kimi-demo']].sort());
    const all = JSON.parse(await cli(['sessions', 'list', 'kimi', '--json', '--subagents'])) as { sessionId: string }[];
    expect(all.map((r) => r.sessionId)).toContain(`${S}/${AGENT}`);
  });

  it('a session that compacted its context has usage kimi-cli did not record: listed so, and noted by cost report', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'kimi', '--json'])) as { sessionId: string; usageUnknown?: boolean }[];
    expect(rows.filter((r) => r.usageUnknown === true).map((r) => r.sessionId)).toEqual([OLD]);
    const { stderr } = await run(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.cjs'), 'cost', 'report', '--agent', 'kimi'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, KIMI_SHARE_DIR: join(home, 'kimi-share'), XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1', TZ: 'UTC' },
    });
    expect(stderr).toContain('note: kimi: 1 session has tokens the agent has not recorded');
  });
});
