/**
 * Cline ≥ 4.1 (SDK) sessions over fixtures/cline-sdk/data/ (a `~/.cline/data` folder, written by hand from the
 * writer's types: fixtures/cline-sdk/README.md): golden events per messages file, token totals by a deliberately
 * simple second reader, the same events whatever the read buffer, a subagent's and a teammate's files, the
 * legacy-resume case (the seed dropped, the task folder counted only up to `baseUiMessageCount`), a fork, a
 * host-registered provider, a malformed file, and the roots. Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/cline-sdk.test.ts`.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cline, getClineRoots, LEGACY_RESUME_MARKER } from '../codecs/cline/index.js';
import type { CursorUpdate, ReadCursor } from '../cursors/protocol/codec.js';
import type { SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { detectCodec } from '../src/registry.js';
import { byKind, discoverAll, expectChunkInvariant, readEvents } from './helpers/codec-harness.js';
import { inTempDir } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { codecSplitTotals, type SplitTotals } from './helpers/usage-totals.js';

const DATA = new URL('../fixtures/cline-sdk/data/', import.meta.url).pathname;
const EXPECTED = new URL('../fixtures/expected/cline/', import.meta.url).pathname;
/** The fixture sessions: a root with children, a resumed legacy task, a fork, a host-registered provider, a malformed file. */
const [ROOT, LEGACY, FORK, HOST, BAD] = ['1767607200000_k3x9q', '1767520800000', '1767614400000_f0rk1', '1767618000000_vslm1', '1767621600000_bad01'] as const;
const files = await discoverAll(cline, [DATA]);
const golden = (id: string) => `sdk-${id.replace('/', '__')}`;
const newInfo = () => ({ bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 });
const messagesOf = (session: string, stem = session) => join(DATA, 'sessions', session, `${stem}.messages.json`);

/**
 * The simple second reader: JSON.parse the whole messages file and its manifest; every assistant message after
 * the first user message holding the legacy-resume warning when the assistant message before it has metrics and
 * no provider but `unknown` (and, in a fork, stamped after `forkedAt`) whose `metrics` counts are whole
 * non-negative numbers and not all zero is one call, its input less both cache counts and never below 0.
 */
function naiveTotals(text: string, manifest: any): SplitTotals & { cost: number } {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, calls: 0, cost: 0 };
  const messages = JSON.parse(text).messages as any[];
  const first = messages.findIndex((m) => m?.role === 'user' && JSON.stringify(m.content).includes(LEGACY_RESUME_MARKER));
  const seed = messages.slice(0, Math.max(first, 0)).findLast((m) => m?.role === 'assistant');
  const marker = seed?.metrics !== undefined && [undefined, 'unknown'].includes(seed.modelInfo?.provider) ? first : -1;
  const fork = manifest?.metadata?.fork?.forkedAt;
  messages.forEach((m, i) => {
    if (m?.role !== 'assistant' || m.metrics === undefined || i < marker) return;
    if (fork !== undefined && !(m.ts > Date.parse(fork))) return;
    const n = [m.metrics.inputTokens, m.metrics.outputTokens, m.metrics.cacheReadTokens, m.metrics.cacheWriteTokens].map((v) => v ?? 0);
    if (n.some((v) => !Number.isInteger(v) || v < 0) || n.every((v) => v === 0)) return;
    const [input, output, read, write] = n as [number, number, number, number];
    t.input += Math.max(0, input - read - write);
    t.output += output;
    t.cacheRead += read;
    t.cacheWrite += write;
    t.cost += m.metrics.cost > 0 ? m.metrics.cost : 0;
    t.calls++;
  });
  return t;
}

describe('Cline SDK sessions: golden files', () => {
  it('discovers every messages file of every session folder, the root first, then the task folder', () => {
    expect(files.map((f) => [f.sessionId, f.subagent === true])).toEqual([
      [LEGACY, false],
      [ROOT, false],
      [`${ROOT}/agent_7f2a`, true],
      [`${ROOT}/agent_team1__task_2`, true],
      [FORK, false],
      [HOST, false],
      [BAD, false],
      [LEGACY, false],
    ]);
    expect(files.at(-1)!.path).toBe(join(DATA, 'tasks', LEGACY, 'ui_messages.json'));
  });

  it.each(files.filter((f) => f.path.endsWith('.messages.json')).map((f) => [f.sessionId!, f.path]))('%s: a fresh read equals the checked-in events, whatever the buffer', async (id, path) => {
    const events = await expectChunkInvariant(cline, path);
    expect(events[0]).toMatchObject({ type: 'session', agent: 'cline', sessionId: id, nativeId: id });
    await expectGolden(EXPECTED, golden(id), events);
  });

  it.each(files.filter((f) => f.path.endsWith('.messages.json') && f.sessionId !== BAD).map((f) => [f.sessionId!, f.path]))('%s: golden token totals agree with a deliberately simple second reader', async (id, path) => {
    const events = (await readFile(join(EXPECTED, `${golden(id)}.events.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const root = id.split('/')[0]!;
    const manifest = JSON.parse(await readFile(join(DATA, 'sessions', root, `${root}.json`), 'utf8'));
    const mine = { ...codecSplitTotals(events), cost: events.reduce((a: number, e: any) => a + (e.type === 'usage' ? (e.costUsd ?? 0) : 0), 0) };
    const simple = naiveTotals(await readFile(path, 'utf8'), id.includes('/') ? undefined : manifest);
    expect({ ...mine, cost: mine.cost.toFixed(6) }).toEqual({ ...simple, cost: simple.cost.toFixed(6) });
  });

  it('the resumed task folder: a fresh read equals the checked-in events', async () => {
    await expectGolden(EXPECTED, `sdk-tasks__${LEGACY}`, await expectChunkInvariant(cline, join(DATA, 'tasks', LEGACY, 'ui_messages.json')));
  });

  it('detects a messages file as Cline\'s', async () => {
    expect((await detectCodec(messagesOf(ROOT)))?.id).toBe('cline');
  });
});

describe('Cline SDK sessions: counting', () => {
  it('takes title, model, provider and work dir from the manifest; uncached input is inputTokens less the cache', async () => {
    const k = byKind(await readEvents(cline, messagesOf(ROOT)));
    expect(k.session).toEqual([expect.objectContaining({ title: 'Add retry to the HTTP client', model: 'anthropic/claude-sonnet-4.5', provider: 'cline', cwd: '/home/dev/http-client', startedAt: '2026-01-05T10:00:00.000Z' })]);
    expect((k.session[0] as SessionEvent).usageUnknown).toBeUndefined();
    const usage = k.usage as UsageEvent[];
    expect(usage.map((u) => [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.singleRequest, u.dedupKey])).toEqual([
      [12000 - 9000 - 2000, 9000, 2000, true, `cline:${ROOT}:m2`],
      [13500 - 11000 - 500, 11000, 500, true, `cline:${ROOT}:m4`],
      [14200 - 13000 - 700, 13000, 700, true, `cline:${ROOT}:m6`],
      // The last run's tool call left no metrics: its total is on the run's last message, a span of calls.
      // The subagent's totals in the spawn tool's result (5000 in) are no call here: its own file has its calls.
      [30000 - 26000 - 1500, 26000, 1500, false, `cline:${ROOT}:m10`],
    ]);
  });

  it('a subagent\'s file is the root\'s subagent with its own calls; an empty teammate file has none', async () => {
    const sub = byKind(await readEvents(cline, messagesOf(ROOT, 'agent_7f2a')));
    expect(sub.session[0]).toMatchObject({ sessionId: `${ROOT}/agent_7f2a`, forkedFrom: ROOT, subagent: true, agentType: 'subagent', spawnDepth: 1, cwd: '/home/dev/http-client' });
    expect((sub.usage as UsageEvent[]).map((u) => [u.model, u.inputTokens, u.outputTokens])).toEqual([['anthropic/claude-haiku-4.5', 200, 250], ['anthropic/claude-haiku-4.5', 0, 150]]);
    const team = byKind(await readEvents(cline, messagesOf(ROOT, 'agent_team1__task_2')));
    expect(team.session[0]).toMatchObject({ forkedFrom: ROOT, subagent: true, agentType: 'teammate' });
    expect(team.usage).toEqual([]);
  });

  it('a child\'s file does not depend on the manifest, and its call without modelInfo is not the lead\'s model', async () => {
    expect(cline.getParseDependencies!(messagesOf(ROOT))).toEqual([join(DATA, 'sessions', ROOT, `${ROOT}.json`)]);
    expect(cline.getParseDependencies!(messagesOf(ROOT, 'agent_7f2a'))).toEqual([]);
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const folder = join(dir, 'sessions', ROOT);
      await cp(join(DATA, 'sessions', ROOT), folder, { recursive: true });
      const child = join(folder, 'agent_7f2a.messages.json');
      const doc = JSON.parse(await readFile(child, 'utf8'));
      for (const m of doc.messages) delete m.modelInfo;
      await writeFile(child, JSON.stringify(doc));
      const k = byKind(await readEvents(cline, child));
      // The work dir still comes from the root's manifest.
      expect(k.session[0]).toMatchObject({ cwd: '/home/dev/http-client' });
      expect((k.usage as UsageEvent[]).map((u) => [u.model, u.modelFallback, u.provider])).toEqual([['unknown', true, undefined], ['unknown', true, undefined]]);
    });
  });

  it('a resumed legacy task counts each call once: the seed is dropped, the task folder stops at baseUiMessageCount', async () => {
    const sdk = byKind(await readEvents(cline, messagesOf(LEGACY)));
    const task = byKind(await readEvents(cline, join(DATA, 'tasks', LEGACY, 'ui_messages.json')));
    // The conversation is whole in the SDK file; the marker is shown as injected text.
    expect(sdk.message.map((m: any) => m.role)).toEqual(['user', 'assistant', 'system', 'user', 'assistant']);
    const usage = [...(task.usage as UsageEvent[]), ...(sdk.usage as UsageEvent[])];
    const ui = JSON.parse(await readFile(join(DATA, 'tasks', LEGACY, 'ui_messages.json'), 'utf8')) as any[];
    const base = JSON.parse(await readFile(join(DATA, 'tasks', LEGACY, 'sdk_writeback.json'), 'utf8')).baseUiMessageCount as number;
    const own = ui.slice(0, base).filter((m) => m.say === 'api_req_started').map((m) => JSON.parse(m.text));
    const sdkMessages = JSON.parse(await readFile(messagesOf(LEGACY), 'utf8')).messages as any[];
    const after = sdkMessages.slice(sdkMessages.findIndex((m) => typeof m.content === 'string' && m.content.includes(LEGACY_RESUME_MARKER)) + 1).filter((m) => m.metrics);
    expect(usage.map((u) => u.outputTokens)).toEqual([...own.map((r) => r.tokensOut), ...after.map((m) => m.metrics.outputTokens)]);
    expect(usage.map((u) => u.costUsd)).toEqual([...own.map((r) => r.cost), ...after.map((m) => m.metrics.cost)]);
  });

  it('only the first warning after a seed\'s total is the marker: a pasted one drops nothing', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const paste = (id: string) => ({ id, role: 'user', content: `Why did you say "${LEGACY_RESUME_MARKER}"?`, ts: 1767611000000 });
      const later = { id: 'r4', role: 'assistant', content: 'I did not.', modelInfo: { id: 'anthropic/claude-sonnet-4.5', provider: 'cline' }, metrics: { inputTokens: 900, outputTokens: 40 }, ts: 1767611001000 };
      // A session of the SDK's own: the warning pasted after its second call.
      const own = JSON.parse(await readFile(messagesOf(ROOT), 'utf8'));
      own.messages.splice(5, 0, paste('p1'));
      await mkdir(join(dir, ROOT));
      await writeFile(join(dir, ROOT, `${ROOT}.messages.json`), JSON.stringify(own));
      const k = byKind(await readEvents(cline, join(dir, ROOT, `${ROOT}.messages.json`)));
      expect((k.usage as UsageEvent[]).map((u) => u.dedupKey)).toEqual(['m2', 'm4', 'm6', 'm10'].map((m) => `cline:${ROOT}:${m}`));
      expect(k.message.find((m: any) => m.nativeId === 'p1')).toMatchObject({ role: 'user' });
      // A resumed task: the warning pasted after the real marker leaves the calls between them counted.
      const resumed = JSON.parse(await readFile(messagesOf(LEGACY), 'utf8'));
      resumed.messages.push(paste('r3'), later);
      await mkdir(join(dir, LEGACY));
      await writeFile(join(dir, LEGACY, `${LEGACY}.messages.json`), JSON.stringify(resumed));
      const r = byKind(await readEvents(cline, join(dir, LEGACY, `${LEGACY}.messages.json`)));
      expect((r.usage as UsageEvent[]).map((u) => [u.dedupKey, u.outputTokens])).toEqual([[`cline:${LEGACY}:r2`, 410], [`cline:${LEGACY}:r4`, 40]]);
      expect(r.message.map((m: any) => m.role)).toEqual(['user', 'assistant', 'system', 'user', 'assistant', 'user', 'assistant']);
    });
  });

  it('without sdk_writeback.json the task folder counts every request', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const task = join(dir, 'tasks', LEGACY);
      await cp(join(DATA, 'tasks', LEGACY), task, { recursive: true });
      await rm(join(task, 'sdk_writeback.json'));
      expect(byKind(await readEvents(cline, join(task, 'ui_messages.json'))).usage).toHaveLength(3);
    });
  });

  it('a fork counts only what it made after forkedAt, names its source, and says its usage is a lower bound', async () => {
    const k = byKind(await readEvents(cline, messagesOf(FORK)));
    expect(k.session).toEqual([expect.objectContaining({ forkedFrom: ROOT, usageUnknown: true })]);
    expect((k.usage as UsageEvent[]).map((u) => u.dedupKey)).toEqual([`cline:${FORK}:f2`]);
    expect(k.message).toHaveLength(6);
  });

  it('a fork\'s subagent is not a fork: its calls count whatever their time', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const folder = join(dir, 'sessions', FORK);
      await cp(join(DATA, 'sessions', FORK), folder, { recursive: true });
      await cp(messagesOf(ROOT, 'agent_7f2a'), join(folder, 'agent_7f2a.messages.json'));
      const k = byKind(await readEvents(cline, join(folder, 'agent_7f2a.messages.json')));
      expect(k.session).toEqual([expect.objectContaining({ forkedFrom: FORK, subagent: true })]);
      expect(k.usage).toHaveLength(2);
    });
  });

  it('a host-registered provider with cache counts, or an input below the cache, makes the usage a lower bound; never negative', async () => {
    const k = byKind(await readEvents(cline, messagesOf(HOST)));
    expect(k.session.map((s: any) => s.usageUnknown)).toEqual([undefined, true]);
    expect((k.usage as UsageEvent[]).map((u) => [u.provider, u.inputTokens, u.cacheReadTokens])).toEqual([['vscode-lm', 1000, 2000], ['vscode-lm', 0, 2500]]);
  });

  it('a malformed file: an absurd count and a non-object are one skipped record each, a cut-off document keeps what came before', async () => {
    const info = newInfo();
    const k = byKind(await readEvents(cline, messagesOf(BAD), { info }));
    expect(info.skippedLines).toBe(3);
    expect(k.message.map((m: any) => m.text)).toEqual(['Count the files', 'There are 42.', 'And the folders?', 'There are 7.']);
    expect((k.usage as UsageEvent[]).map((u) => [u.dedupKey, u.inputTokens, u.costUsd])).toEqual([[`cline:${BAD}:x4`, 500, 0.0015]]);
    await expect(readEvents(cline, messagesOf(BAD), { strict: true })).rejects.toThrow(/inputTokens/);
  });

  it('a FIFO in place of the manifest or of sdk_writeback.json is not read (its open would wait for a writer)', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const folder = join(dir, 'sessions', ROOT);
      const task = join(dir, 'tasks', LEGACY);
      await cp(join(DATA, 'sessions', ROOT), folder, { recursive: true });
      await cp(join(DATA, 'tasks', LEGACY), task, { recursive: true });
      for (const f of [join(folder, `${ROOT}.json`), join(task, 'sdk_writeback.json')]) {
        await rm(f);
        execFileSync('mkfifo', [f]);
      }
      const k = byKind(await readEvents(cline, join(folder, `${ROOT}.messages.json`)));
      expect(k.session[0]).toMatchObject({ sessionId: ROOT });
      expect((k.session[0] as SessionEvent).cwd).toBeUndefined();
      expect(k.usage).toHaveLength(4);
      // Without a write-back record the task folder counts every request, as when the file is missing.
      expect(byKind(await readEvents(cline, join(task, 'ui_messages.json'))).usage).toHaveLength(3);
    });
  }, 20_000);

  it('an unchanged file is not parsed again; a rewrite is read again from byte 0', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const folder = join(dir, 'sessions', ROOT);
      await cp(join(DATA, 'sessions', ROOT), folder, { recursive: true });
      const file = join(folder, `${ROOT}.messages.json`);
      let cursor: ReadCursor | undefined;
      const onCursor = (u: CursorUpdate) => (cursor = u.cursor);
      await readEvents(cline, file, { resume: { onCursor } });
      expect(await readEvents(cline, file, { resume: { from: cursor, onCursor } })).toEqual([]);
      const doc = JSON.parse(await readFile(file, 'utf8'));
      doc.messages.push({ id: 'm11', role: 'user', content: 'Thanks.', ts: 1767607300000 });
      await writeFile(file, JSON.stringify(doc, null, 2) + '\n');
      let restarted = false;
      const again = await readEvents(cline, file, { resume: { from: cursor, onStart: (st) => (restarted = st.restarted) } });
      expect(restarted).toBe(true);
      expect(again.filter((e) => e.type === 'usage')).toHaveLength(4);
      expect(again.some((e) => e.type === 'message' && e.text === 'Thanks.')).toBe(true);
    });
  });
});

describe('Cline SDK sessions: roots', () => {
  it('adds CLINE_SESSION_DATA_DIR beside the data folder; SESSIONFOLD_CLINE_DIR replaces every default', () => {
    const home = '/home/u';
    expect(getClineRoots({ HOME: home, XDG_CONFIG_HOME: '/nonexistent-xdg' }).slice(-1)).toEqual([join(home, '.cline', 'data')]);
    expect(getClineRoots({ HOME: home, XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_DIR: '/opt/cline' }).slice(-1)).toEqual(['/opt/cline/data']);
    expect(getClineRoots({ HOME: home, XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_DATA_DIR: '/d', CLINE_SESSION_DATA_DIR: '/s' }).slice(-2)).toEqual(['/d', '/s']);
    // The data folder named again is one root, its tasks listed once.
    expect(getClineRoots({ HOME: home, XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_DATA_DIR: '/d', CLINE_SESSION_DATA_DIR: '/d/' })).toEqual(getClineRoots({ HOME: home, XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_DATA_DIR: '/d' }));
    expect(getClineRoots({ HOME: home, SESSIONFOLD_CLINE_DIR: '/a,/b', CLINE_SESSION_DATA_DIR: '/s' })).toEqual(['/a', '/b']);
  });

  it.each([['the same path', false], ['a link to it', true]])('CLINE_SESSION_DATA_DIR naming <data>/sessions beside <data> through %s lists each file once', async (_, link) => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      const data = join(dir, 'data');
      await cp(join(DATA, 'sessions', ROOT), join(data, 'sessions', ROOT), { recursive: true });
      const alias = join(dir, 'alias');
      if (link) await symlink(join(data, 'sessions'), alias);
      const env = { HOME: '/nonexistent-home', XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_DATA_DIR: data, CLINE_SESSION_DATA_DIR: link ? alias : join(data, 'sessions') };
      const found = await discoverAll(cline, getClineRoots(env));
      expect(found.map((f) => f.sessionId)).toEqual([ROOT, `${ROOT}/agent_7f2a`, `${ROOT}/agent_team1__task_2`]);
    });
  });

  it('a root that is itself a folder of session folders (CLINE_SESSION_DATA_DIR) is read', async () => {
    await inTempDir('sf-cline-sdk-', async (dir) => {
      await cp(join(DATA, 'sessions', ROOT), join(dir, ROOT), { recursive: true });
      // A folder without its own messages file is no session.
      await mkdir(join(dir, 'stray'));
      await writeFile(join(dir, 'stray', 'other.messages.json'), '{"messages":[]}');
      const found = await discoverAll(cline, getClineRoots({ HOME: '/nonexistent-home', XDG_CONFIG_HOME: '/nonexistent-xdg', CLINE_SESSION_DATA_DIR: dir }));
      expect(found.map((f) => f.sessionId)).toEqual([ROOT, `${ROOT}/agent_7f2a`, `${ROOT}/agent_team1__task_2`]);
    });
  });
});
