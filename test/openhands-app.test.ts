/**
 * The OpenHands web app's V1 copy of conversations (`<persistence>/v1/events/<uuid>/`, with `openhands.db`), over
 * fixtures/openhands/app, written from the SDK's types (fixtures/openhands/README.md): golden events, token
 * totals checked by a deliberately simple second reader (per usage id, the growth of each reading of the
 * running totals over the one before), discovery beside the CLI's folder with the app's own variables, a
 * conversation in both counted once, the database opened without a byte created, and the built CLI over a
 * temporary HOME (the folder and the database byte for byte unchanged). Regenerate the golden files with
 * `UPDATE_GOLDEN=1 npx vitest run test/openhands-app.test.ts`.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOpenHandsRoots, listAppEventFiles, openHands } from '../codecs/openhands/index.js';
import type { SessionEvent, SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import { byKind, discoverAll, expectChunkInvariant, readEvents } from './helpers/codec-harness.js';
import { inTempDir } from './helpers/files.js';
import { expectGolden } from './helpers/golden.js';
import { agentCli, buildIfStale, expectGoldenRow, goldenUsage, type AgentRow } from './helpers/agent-cli.js';
import { codecUsageTotals, emptyTotals, type UsageTotals } from './helpers/usage-totals.js';

const APP = new URL('../fixtures/openhands/app/', import.meta.url).pathname;
const EVENTS = join(APP, 'v1', 'events');
const CLI_ROOT = new URL('../fixtures/openhands/conversations/', import.meta.url).pathname;
const EXPECTED_DIR = new URL('../fixtures/expected/openhands/', import.meta.url).pathname;
const SQL = readFileSync(join(APP, 'openhands.sql'), 'utf8');
const FRESH = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const RESUMED = 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e';
const UUIDS = [FRESH, RESUMED];
const hex = (uuid: string) => uuid.replace(/-/g, '');
/** A CLI fixture conversation, and its id as the app would name its folder. */
const CLI_ID = '3f9a1c2b7d4e4f60a1b2c3d4e5f60718';
const CLI_AS_APP = '3f9a1c2b-7d4e-4f60-a1b2-c3d4e5f60718';

type Json = Record<string, any>;
const KEYS = ['prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'];

/**
 * The simple second reader: the folder's files by name; in each `stats` or `full_state` update, per usage id
 * the running totals, and what grew since that usage id's last reading (from zero) counted, when nothing went
 * down; a reading equal to another of the same event is the same object, once. Billed input is the prompt.
 */
async function naiveTotals(dir: string): Promise<UsageTotals> {
  const t = emptyTotals();
  const last = new Map<string, number[]>();
  for (const name of (await readdir(dir)).sort()) {
    const e = JSON.parse(await readFile(join(dir, name), 'utf8')) as Json;
    if (e.kind !== 'ConversationStateUpdateEvent' || (e.key !== 'stats' && e.key !== 'full_state')) continue;
    const table = (e.key === 'stats' ? e.value : e.value.stats).usage_to_metrics as Record<string, Json>;
    const seen = new Set<string>();
    for (const [id, m] of Object.entries(table)) {
      const now = KEYS.map((k) => m.accumulated_token_usage?.[k] ?? 0);
      const before = last.get(id) ?? KEYS.map(() => 0);
      last.set(id, now);
      if (seen.has(JSON.stringify([now, m.accumulated_cost]))) continue;
      seen.add(JSON.stringify([now, m.accumulated_cost]));
      const d = now.map((v, i) => v - before[i]!);
      if (d.some((v) => v < 0) || d.every((v) => v === 0)) continue;
      const [p, c, r, , reasoning] = d as number[];
      t.input += p!; // the fixture's prompts hold their caches (litellm)
      t.cached += r!;
      t.output += c!;
      t.reasoning += Math.min(reasoning!, c!);
      t.responses++;
    }
  }
  return t;
}

/** A copy of the fixture's persistence folder under `dir`, with its database built from openhands.sql. */
async function persistenceIn(dir: string): Promise<string> {
  await cp(join(APP, 'v1'), join(dir, 'v1'), { recursive: true });
  const db = new Database(join(dir, 'openhands.db'));
  db.pragma('journal_mode = WAL');
  db.exec(SQL);
  db.close(); // the writer gone: no -wal or -shm left, as a stopped app leaves it
  return dir;
}

/** Every file under `root` with its bytes' hash. */
async function treeBytes(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out.push(`${p}:${createHash('sha256').update(await readFile(p)).digest('hex')}`);
  }
  return out.sort();
}

const firstFile = (root: string, uuid: string) => listAppEventFiles(join(root, 'v1', 'events', uuid))[0]!.path;
const usageOf = (events: readonly SessionfoldEvent[]) => byKind(events).usage as UsageEvent[];

describe('openhands web app conversations', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await persistenceIn(await mkdtemp(join(tmpdir(), 'sf-openhands-app-')));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(UUIDS)('%s: the golden events, with totals of the simple reader, whatever the read buffer', async (uuid) => {
    const events = await expectChunkInvariant(openHands, firstFile(dir, uuid));
    // the golden files name no temporary folder
    await expectGolden(EXPECTED_DIR, `app-${uuid}`, events);
    expect(events[0]).toMatchObject({ type: 'session', sessionId: hex(uuid) });
    expect(codecUsageTotals(events)).toEqual(await naiveTotals(join(EVENTS, uuid)));
  });

  it('a fresh conversation: a delta per stats event, its model from the database where the stream redacts it, title and start from the database', async () => {
    const events = await readEvents(openHands, firstFile(dir, FRESH));
    expect(events[0]).toMatchObject({ title: 'Add a README', cwd: '/workspace/project', startedAt: '2026-03-10T11:59:58.250Z', model: 'litellm_proxy/claude-sonnet-4-5' });
    expect((events[0] as SessionEvent).usageUnknown).toBeUndefined();
    const usage = usageOf(events);
    expect(usage.map((u) => [u.model, u.modelFallback, u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens, u.singleRequest])).toEqual([
      ['litellm_proxy/claude-sonnet-4-5', true, 200, 800, 200, 150, 0, true],
      ['litellm_proxy/claude-sonnet-4-5', true, 200, 1100, 100, 180, 40, true],
      ['anthropic/claude-haiku-4-5', undefined, 500, 0, 0, 100, 0, true],
    ]);
    expect(usage[0]!.costUsd).toBeCloseTo(0.0123, 10);
    expect(usage[1]!.costUsd).toBeCloseTo(0.0128, 10);
    expect(usage[0]!.timestamp).toBe('2026-03-10T12:00:09.600Z');
    expect(new Set(usage.map((u) => u.dedupKey)).size).toBe(3);
    expect(byKind(events).message!.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant', 'assistant']);
  });

  it('a resumed conversation: the full state\u2019s totals once, a shared Metrics once, a total that goes down books nothing and says usage unknown', async () => {
    const events = await readEvents(openHands, firstFile(dir, RESUMED));
    expect(events[0]).toMatchObject({ title: 'Fix the flaky login test', cwd: '/workspace/api', model: 'openai/gpt-5', usageUnknown: true, startedAt: '2026-03-10T13:00:00.000Z' });
    const usage = usageOf(events);
    expect(usage.map((u) => [u.dedupKey.split(':').slice(2, 3)[0], u.inputTokens + u.cacheReadTokens, u.singleRequest])).toEqual([
      ['agent', 4000, false],
      ['agent', 1800, true],
      ['task', 900, true],
      ['agent', 1200, true],
    ]);
  });

  it('a read of usage alone gives the full read\u2019s session and usage; re-reads count each delta once', async () => {
    const full = await readEvents(openHands, firstFile(dir, RESUMED));
    const lean = await readEvents(openHands, firstFile(dir, RESUMED), { kinds: ['session', 'usage'], conversation: false } as never);
    expect(lean).toEqual(full.filter((e) => e.type === 'session' || e.type === 'usage'));
    expect((await readEvents(openHands, firstFile(dir, RESUMED))).map((e) => (e as UsageEvent).dedupKey)).toEqual(full.map((e) => (e as UsageEvent).dedupKey));
  });

  it('a torn event file is one skipped record; an absurd total is refused and the usage a lower bound', async () => {
    await inTempDir('sf-openhands-app-bad-', async (tmp) => {
      await persistenceIn(tmp);
      const files = listAppEventFiles(join(tmp, 'v1', 'events', FRESH));
      await writeFile(files[2]!.path, '{"kind": "ActionEvent", "id": ');
      const stats = JSON.parse(await readFile(files[5]!.path, 'utf8')) as Json;
      stats.value.usage_to_metrics.condenser.accumulated_token_usage.prompt_tokens = 1e300;
      await writeFile(files[5]!.path, JSON.stringify(stats, null, 2));
      const info = newReadInfo();
      const events = await readEvents(openHands, files[0]!.path, { info });
      expect(info.skippedLines).toBe(2);
      expect((events[0] as SessionEvent).usageUnknown).toBe(true);
      // the refused reading counts nothing; the condenser's next reading grows from zero, once
      expect(usageOf(events).filter((u) => u.model === 'anthropic/claude-haiku-4-5').map((u) => u.dedupKey.slice(-1))).toEqual(['9']);
    });
  });

  it('reads the database once while it stays as it was, and sees a commit to it at the next read', async () => {
    await inTempDir('sf-openhands-app-db-', async (tmp) => {
      await persistenceIn(tmp);
      const title = async (uuid: string) => ((await readEvents(openHands, firstFile(tmp, uuid)))[0] as SessionEvent).title;
      const first = await Promise.all(UUIDS.map(title));
      expect(first[0]).toBe('Add a README');
      const db = new Database(join(tmp, 'openhands.db'));
      // a rollback journal, as the app's SQLAlchemy leaves SQLite: each commit moves the header's change counter
      db.pragma('journal_mode = DELETE');
      db.prepare('UPDATE conversation_metadata SET title = ? WHERE conversation_id = ?').run('Add a README and a licence', FRESH);
      db.close();
      expect(await title(FRESH)).toBe('Add a README and a licence');
      expect(await Promise.all(UUIDS.slice(1).map(title))).toEqual(first.slice(1));
      // a row gone: the conversation is read from its events alone, as without a database
      const again = new Database(join(tmp, 'openhands.db'));
      again.prepare('DELETE FROM conversation_metadata WHERE conversation_id = ?').run(FRESH);
      again.close();
      expect(await title(FRESH)).toBeUndefined();
    });
  });

  it('opens the database without creating a file beside it, and reads without one', async () => {
    const before = await treeBytes(dir);
    await readEvents(openHands, firstFile(dir, FRESH));
    expect(await treeBytes(dir)).toEqual(before);
    await inTempDir('sf-openhands-app-nodb-', async (tmp) => {
      await cp(join(APP, 'v1'), join(tmp, 'v1'), { recursive: true });
      const events = await readEvents(openHands, firstFile(tmp, FRESH));
      expect(events[0]).toMatchObject({ startedAt: '2026-03-10T12:00:00.100Z', model: 'litellm_proxy/claude-sonnet-4-5' });
      expect((events[0] as SessionEvent).title).toBeUndefined();
    });
  });
});

describe('openhands web app discovery and roots', () => {
  it('the CLI\u2019s folder and the app\u2019s v1/events: OH_PERSISTENCE_DIR, else FILE_STORE_PATH, else ~/.openhands; SESSIONFOLD_OPENHANDS_DIR replaces both', () => {
    expect(getOpenHandsRoots({ HOME: '/h' })).toEqual(['/h/.openhands/conversations', '/h/.openhands/v1/events']);
    expect(getOpenHandsRoots({ HOME: '/h', OH_PERSISTENCE_DIR: '~/app', FILE_STORE_PATH: '/fs' })).toEqual(['/h/.openhands/conversations', '/h/app/v1/events']);
    expect(getOpenHandsRoots({ HOME: '/h', FILE_STORE_PATH: '/fs', OPENHANDS_PERSISTENCE_DIR: '/cli' })).toEqual(['/cli/conversations', '/fs/v1/events']);
    expect(getOpenHandsRoots({ HOME: '/h', OH_PERSISTENCE_DIR: '/p', SESSIONFOLD_OPENHANDS_DIR: '/a' })).toEqual(['/a']);
  });

  it('lists each app conversation by its first event file; one the CLI folder holds too is listed once, as the CLI\u2019s', async () => {
    await inTempDir('sf-openhands-app-disc-', async (tmp) => {
      await persistenceIn(tmp);
      await cp(join(CLI_ROOT, CLI_ID), join(tmp, 'conversations', CLI_ID), { recursive: true });
      await cp(join(EVENTS, FRESH), join(tmp, 'v1', 'events', CLI_AS_APP), { recursive: true });
      await writeFile(join(tmp, 'v1', 'events', 'not-a-uuid'), '');
      const found = await discoverAll(openHands, [join(tmp, 'v1', 'events'), join(tmp, 'conversations')]);
      expect(found.map((f) => f.sessionId).sort()).toEqual([CLI_ID, hex(FRESH), hex(RESUMED)].sort());
      expect(found.find((f) => f.sessionId === CLI_ID)!.path).toBe(join(tmp, 'conversations', CLI_ID, 'base_state.json'));
      expect(found.find((f) => f.sessionId === hex(FRESH))!.path).toBe(firstFile(tmp, FRESH));
    });
  });

  it('detects an app event file by its name, folder and head', async () => {
    const f = firstFile(APP, FRESH);
    expect(openHands.detect!(f, await readFile(f))).toBe(2);
    expect(openHands.detect!(join(APP, 'x', 'y'), await readFile(f))).toBe(0);
    expect(openHands.getParseDependencies!(f)).toEqual([join(EVENTS, FRESH), join(APP, 'openhands.db'), join(APP, 'openhands.db-wal')]);
  });
});

describe('sessionfold CLI over an OpenHands web app folder', () => {
  let home: string;
  let before: string[];
  const trees = (): Promise<string[]> => treeBytes(join(home, '.openhands'));
  const cli = agentCli(() => home, trees, () => before);

  beforeAll(async () => {
    await buildIfStale(['openhands']);
    home = await mkdtemp(join(tmpdir(), 'sf-openhands-app-cli-'));
    await persistenceIn(join(home, '.openhands'));
    before = await trees();
  }, 300_000);

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('cost report --json --agent openhands has the golden tokens, each delta once', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--json', '--agent', 'openhands'])) as AgentRow;
    expectGoldenRow(report, 'openhands', await goldenUsage(UUIDS.map((u) => join(EXPECTED_DIR, `app-${u}.events.jsonl`))));
    const simple = emptyTotals();
    for (const u of UUIDS) for (const [k, v] of Object.entries(await naiveTotals(join(EVENTS, u)))) simple[k as keyof UsageTotals] += v;
    expect(report.inputTokens + report.cacheReadTokens + report.cacheWriteTokens).toBe(simple.input);
    expect([report.cacheReadTokens, report.outputTokens, report.requestCount]).toEqual([simple.cached, simple.output, simple.responses]);
  });

  it('sessions list and show read the app conversations; the resumed one says its usage is unknown', async () => {
    const list = JSON.parse(await cli(['sessions', 'list', 'openhands', '--json'])) as { sessionId: string; title?: string; usageUnknown?: boolean }[];
    expect(list.map((s) => s.sessionId).sort()).toEqual(UUIDS.map(hex).sort());
    expect(list.filter((s) => s.usageUnknown === true).map((s) => s.sessionId)).toEqual([hex(RESUMED)]);
    expect(await cli(['sessions', 'show', 'openhands', hex(FRESH)])).toContain('README.md now says');
  });
});
