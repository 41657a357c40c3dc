/**
 * Mistral Vibe (`~/.vibe/logs/session/<prefix>_<time>_<short id>/{meta.json,messages.jsonl}`) over the
 * session folders of fixtures/vibe, shaped as codecs/vibe/README.md documents them (an older release's stats
 * without cached tokens, a newer one's with them, a session without a model call): golden events, token
 * totals checked by a deliberately simple second reader (the stats summed in plain code), skipped records
 * counted, discovery and roots, and the folders left as they were.
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run test/vibe.test.ts`.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getVibeRoots, parseVibeSession, vibe } from '../codecs/vibe/index.js';
import { newReadInfo, type SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecUsageTotals, type UsageTotals } from './helpers/usage-totals.js';

const FIXTURE = new URL('../fixtures/vibe/logs/session/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/vibe/', import.meta.url).pathname;

/** The simple second reader: every `meta.json`'s stats summed; prompt tokens hold the cached ones. */
function naiveTotals(): UsageTotals {
  const t = { input: 0, cached: 0, output: 0, reasoning: 0, responses: 0 };
  for (const d of readdirSync(FIXTURE)) {
    let meta: { stats?: Record<string, number> };
    try {
      meta = JSON.parse(readFileSync(join(FIXTURE, d, 'meta.json'), 'utf8')) as typeof meta;
    } catch {
      continue;
    }
    const s = meta.stats ?? {};
    const prompt = s.session_prompt_tokens ?? 0;
    const output = s.session_completion_tokens ?? 0;
    if (prompt + output === 0) continue;
    t.input += prompt;
    t.cached += s.session_cached_tokens ?? 0;
    t.output += output;
    t.responses++;
  }
  return t;
}

let home: string;
let root: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sf-vibe-'));
  root = join(home, '.vibe', 'logs', 'session');
  cpSync(FIXTURE, root, { recursive: true });
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const discovered = (roots: readonly string[]): Promise<SessionFile[]> => discoverAll(vibe, roots);

describe('vibe golden events', () => {
  it('each session folder reads to the checked-in events, with the totals of the simple reader; nothing changes on disk', async () => {
    const before = await treeListing(join(home, '.vibe'));
    const all: SessionfoldEvent[] = [];
    for (const f of await discovered([root])) {
      const events = await readEvents(vibe, f.path);
      await expectGolden(EXPECTED_DIR, basename(dirname(f.path)), events);
      all.push(...events);
    }
    expect(codecUsageTotals(all)).toEqual(naiveTotals());
    expect(await treeListing(join(home, '.vibe'))).toEqual(before);
  });

  it('the simple reader sees real usage (the comparison is not vacuous)', () => {
    expect(naiveTotals()).toEqual({ input: 64500, cached: 30000, output: 2220, reasoning: 0, responses: 2 });
  });

  it('books cached prompt tokens apart, carries Vibe\'s own cost estimate, and resolves the model alias', async () => {
    const files = await discovered([root]);
    const usage = (await Promise.all(files.map((f) => readEvents(vibe, f.path, { kinds: ['usage'] })))).flat() as UsageEvent[];
    expect(usage.map((u) => [u.sessionId, u.model, u.provider, u.inputTokens, u.cacheReadTokens, u.outputTokens, u.costUsd, u.timestamp])).toEqual([
      ['019e1e27-6f8e-73cb-b0eb-78da684e5111', 'mistral-vibe-cli-latest', 'mistral', 24500, 0, 1320, 0.01244, '2026-01-05T09:06:10.500Z'],
      ['7a3b9c2d-1e2f-4a5b-8c6d-9e0f1a2b3c4d', 'devstral-small-latest', 'mistral', 10000, 30000, 900, 0.00157, '2026-01-06T14:21:30.000Z'],
    ]);
  });

  it('skips and counts a torn messages line and absurd stats, and reads the rest', async () => {
    const info = newReadInfo();
    const b = join(root, 'session_20260106_141500_7a3b9c2d', 'meta.json');
    const events = await readEvents(vibe, b, { info });
    expect(info.skippedLines, 'the torn last line').toBe(1);
    const skips: unknown[] = [];
    await readEvents(vibe, b, { onSkip: (e) => skips.push(e) });
    expect(skips, 'onSkip hears of it').toHaveLength(1);
    await expect(readEvents(vibe, b, { strict: true }), 'a strict read refuses it').rejects.toMatchObject({ code: 'PARSE_ERROR' });
    expect(byKind(events).message).toHaveLength(3);
    expect(byKind(events).message[2]).toMatchObject({ role: 'user', subtype: 'injected' });
    const meta = JSON.parse(readFileSync(b, 'utf8')) as { stats: Record<string, unknown> };
    meta.stats.session_cached_tokens = 90000; // more cached than prompted
    const text = JSON.stringify(meta);
    const got = parseVibeSession(text, readFileSync(join(dirname(b), 'messages.jsonl'), 'utf8'), 'x');
    expect(got.skipped).toBe(2);
    expect(got.events.filter((e) => e.type === 'usage')).toEqual([]);
    meta.stats.session_cached_tokens = 0;
    meta.stats.session_prompt_tokens = -5;
    expect(parseVibeSession(JSON.stringify(meta), undefined, 'x').skipped).toBe(1);
    const torn = parseVibeSession('{"session_id": "s", "sta', '{"role":"user","content":"hi"}\n', 'session_x');
    expect(torn.skipped).toBe(1);
    expect(torn.events.map((e) => [e.type, e.sessionId])).toEqual([['session', 'session_x'], ['message', 'session_x']]);
  });

  it('a usage or session read takes meta.json alone: messages.jsonl is neither parsed nor needed', async () => {
    const b = join(root, 'session_20260106_141500_7a3b9c2d', 'meta.json');
    const full = (await readEvents(vibe, b)).filter((e) => e.type !== 'message' && e.type !== 'tool_call' && e.type !== 'tool_result');
    const info = newReadInfo();
    const only = await readEvents(vibe, b, { kinds: ['session', 'usage'], info });
    expect(only).toEqual(full);
    expect(only.map((e) => e.type)).toEqual(['session', 'usage']);
    expect(info.skippedLines, 'the torn messages line is not read').toBe(0);
    // a messages.jsonl that cannot be read at all does not stop the cost scan
    const dir = join(home, 'unreadable', 'session_20260106_141500_7a3b9c2d');
    cpSync(dirname(b), dir, { recursive: true });
    rmSync(join(dir, 'messages.jsonl'));
    mkdirSync(join(dir, 'messages.jsonl'));
    expect(await readEvents(vibe, join(dir, 'meta.json'), { kinds: ['usage'] })).toEqual(full.filter((e) => e.type === 'usage'));
  });
});

describe('vibe sessions', () => {
  it('finds each session folder with a meta.json, nothing else', async () => {
    expect((await discovered(getVibeRoots({ HOME: home }))).map((f) => basename(dirname(f.path)))).toEqual([
      'session_20260105_090000_019e1e27',
      'session_20260106_141500_7a3b9c2d',
      'session_20260107_080000_5c5c5c5c',
    ]);
  });

  it('the session event says where, when, what and whose sub-session it is', async () => {
    const [s] = await readEvents(vibe, join(root, 'session_20260106_141500_7a3b9c2d', 'meta.json'), { kinds: ['session'] });
    expect(s).toMatchObject({ sessionId: '7a3b9c2d-1e2f-4a5b-8c6d-9e0f1a2b3c4d', cwd: '/home/lea/api', startedAt: '2026-01-06T14:15:00.000Z', title: 'Write tests for pagination', forkedFrom: '019e1e27-6f8e-73cb-b0eb-78da684e5111', model: 'devstral-small-latest' });
  });

  it('locates a session by its id, reading only the folder its short id names', async () => {
    const f = await vibe.locate!(getVibeRoots({ HOME: home }), '7a3b9c2d-1e2f-4a5b-8c6d-9e0f1a2b3c4d');
    expect(f?.path).toBe(join(root, 'session_20260106_141500_7a3b9c2d', 'meta.json'));
    expect(await vibe.locate!(getVibeRoots({ HOME: home }), '7a3b9c2d-0000-0000-0000-000000000000')).toBeUndefined();
  });

  it('a session whose messages.jsonl is missing still gives its session and usage', async () => {
    const dir = join(home, 'lone', 'session_20260109_100000_abcd1234');
    cpSync(join(root, 'session_20260105_090000_019e1e27'), dir, { recursive: true });
    rmSync(join(dir, 'messages.jsonl'));
    expect((await readEvents(vibe, join(dir, 'meta.json'))).map((e) => e.type)).toEqual(['session', 'usage']);
    expect(vibe.getParseDependencies!(join(dir, 'meta.json'))).toEqual([join(dir, 'messages.jsonl')]);
    writeFileSync(join(dir, 'meta.json'), '');
    expect((await readEvents(vibe, join(dir, 'meta.json'))).map((e) => e.type)).toEqual(['session']);
  });
});

describe('vibe roots', () => {
  it('is $VIBE_HOME/logs/session, else ~/.vibe/logs/session and the XDG config home\'s', () => {
    expect(getVibeRoots({ HOME: '/h' })).toEqual(['/h/.vibe/logs/session', '/h/.config/vibe/logs/session']);
    expect(getVibeRoots({ HOME: '/h', XDG_CONFIG_HOME: '/x' })).toEqual(['/h/.vibe/logs/session', '/x/vibe/logs/session']);
    expect(getVibeRoots({ HOME: '/h', VIBE_HOME: '/v' })).toEqual(['/v/logs/session']);
    expect(getVibeRoots({ HOME: '/h', VIBE_HOME: '~/vh' })).toEqual(['/h/vh/logs/session']);
  });
});
