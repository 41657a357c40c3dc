/**
 * MiMo Code's `mimocode.db` (OpenCode's tables under MiMo's names, codecs/mimo/README.md), through the library
 * and the built CLI, on a database made with MiMo's real DDL (test/helpers/mimo-db.ts). The messages MiMo
 * imported from Claude Code yield nothing (they are Claude Code's, counted by its codec), its own continuation
 * of an imported session does, a session whose import row names no messages yields what it created after the
 * import, earlier releases' `claude_import` is read as `external_import`, `MIMOCODE_DB` decides the database,
 * and the data folder is unchanged after every command.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { getMimoRoots, mimo } from '../codecs/mimo/index.js';
import { newReadInfo, type ReadCursor, type SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent, UsageEvent } from '../cursors/protocol/events.js';
import type { CostSummary } from '../src/cost/types.js';
import { treeListing } from './helpers/files.js';
import { buildMimoDb, MIMO_TOKENS } from './helpers/mimo-db.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');

let home: string;
let data: string;
let db: string;
let before: string[];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-mimo-db-'));
  data = join(home, '.local', 'share');
  mkdirSync(join(data, 'mimocode'), { recursive: true });
  db = join(data, 'mimocode', 'mimocode.db');
  buildMimoDb(db);
  before = await treeListing(data);
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function usageOf(path: string, info = newReadInfo()): Promise<UsageEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of mimo.read(path, { kinds: ['session', 'usage'], info })) out.push(e);
  return out.filter((e): e is UsageEvent => e.type === 'usage');
}

/** Each session's usage (input tokens) and the records skipped, read alone and in one batch (`readBatch`). */
async function readEach(files: readonly SessionFile[]): Promise<{ alone: [number[], number][]; batch: [number[], number][] }> {
  const alone: [number[], number][] = [];
  for (const f of files) {
    const info = newReadInfo();
    alone.push([(await usageOf(f.path, info)).map((u) => u.inputTokens), info.skippedLines]);
  }
  const infos = files.map(() => newReadInfo());
  const iters = await mimo.readBatch!(files.map((f, i) => ({ file: f.path, options: { kinds: ['session', 'usage'], info: infos[i] } })));
  const batch: [number[], number][] = [];
  for (const [i, it] of iters.entries()) {
    const got: number[] = [];
    for await (const e of it) if (e.type === 'usage') got.push(e.inputTokens);
    batch.push([got, infos[i]!.skippedLines]);
  }
  return { alone, batch };
}

describe('MiMo Code (mimocode.db)', () => {
  it('finds the data folder as MiMo does: MIMOCODE_HOME/data when absolute, else XDG_DATA_HOME/mimocode', () => {
    expect(getMimoRoots({ HOME: home, XDG_DATA_HOME: data })).toEqual([join(data, 'mimocode')]);
    expect(getMimoRoots({ HOME: home, MIMOCODE_HOME: '/opt/mimo' })).toEqual(['/opt/mimo/data']);
    expect(getMimoRoots({ HOME: home, MIMOCODE_HOME: 'relative' })).toEqual([join(home, '.local', 'share', 'mimocode')]);
    expect(getMimoRoots({ HOME: home, SESSIONFOLD_MIMO_DIR: '/a,/b' })).toEqual(['/a', '/b']);
  });

  it('MIMOCODE_DB names the one database MiMo opens: absolute, or in its data folder; :memory: none', async () => {
    const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ HOME: home, XDG_DATA_HOME: data, ...extra });
    expect(getMimoRoots(env({ MIMOCODE_DB: '/srv/m.db' }))).toEqual(['/srv/m.db']);
    expect(getMimoRoots(env({ MIMOCODE_DB: 'work.db' }))).toEqual([join(data, 'mimocode', 'work.db')]);
    expect(getMimoRoots(env({ MIMOCODE_DB: 'work.db', MIMOCODE_HOME: '/opt/mimo' }))).toEqual(['/opt/mimo/data/work.db']);
    expect(getMimoRoots(env({ MIMOCODE_DB: ':memory:' }))).toEqual([]);
    expect(getMimoRoots(env({ MIMOCODE_DB: ' ' }))).toEqual([join(data, 'mimocode')]);
    expect(getMimoRoots(env({ MIMOCODE_DB: ':memory:', SESSIONFOLD_MIMO_DIR: '/a' }))).toEqual(['/a']);
    // a name of the user's is read as MiMo's database, and then no other in the folder
    const other = await mkdtemp(join(tmpdir(), 'sf-mimo-env-'));
    const custom = join(other, 'mimocode', 'work.db');
    mkdirSync(join(other, 'mimocode'));
    copyFileSync(db, custom);
    copyFileSync(db, join(other, 'mimocode', 'mimocode.db'));
    try {
      const files = [...mimo.discoverSync!(mimo.defaultRoots({ HOME: home, XDG_DATA_HOME: other, MIMOCODE_DB: 'work.db' }))];
      expect(files.map((f) => [f.agent, f.sessionId, f.path.startsWith(`${custom}#`)])).toEqual([
        ['mimo', 'ses_native', true],
        ['mimo', 'ses_cc', true],
        ['mimo', 'ses_legacy', true],
      ]);
      expect((await usageOf(files[0]!.path)).map((u) => u.inputTokens)).toEqual([101, 102]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('a channel database is read only under a name MiMo gives one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mimo-names-'));
    try {
      for (const name of ['mimocode-next.db', 'mimocode-v1.2_x.db', 'mimocode-my copy.db', 'mimocode.db.bak', 'mimocodex.db', 'opencode.db']) copyFileSync(db, join(dir, name));
      const names = new Set([...mimo.discoverSync!([dir])].map((f) => basename(f.path.split('#')[0]!)));
      expect([...names].sort()).toEqual(['mimocode-next.db', 'mimocode-v1.2_x.db']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a database of a release before external_import: its claude_import, with message_ids or without, is the list of imports', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mimo-claude-import-'));
    try {
      for (const shape of ['claude_import', 'claude_import+ids'] as const) {
        const path = join(dir, `${shape}.db`);
        buildMimoDb(path, shape);
        const whole = newReadInfo();
        expect((await usageOf(path, whole)).map((u) => u.inputTokens), shape).toEqual([101, 102, 103, 103]);
        expect(whole.skippedLines, shape).toBe(0);
        const dirOf = join(dir, shape);
        mkdirSync(dirOf);
        copyFileSync(path, join(dirOf, 'mimocode.db'));
        const { alone, batch } = await readEach([...mimo.discoverSync!([dirOf])]);
        expect(alone, shape).toEqual([[[101, 102], 0], [[103], 0], [[103], 0]]);
        expect(batch, shape).toEqual(alone);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lists every session of mimocode.db and of a channel database, as mimo\'s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mimo-channel-'));
    try {
      copyFileSync(db, join(dir, 'mimocode-dev.db'));
      writeFileSync(join(dir, 'mimocode.db-wal'), '');
      const files = [...mimo.discoverSync!([dir])];
      expect(files.map((f) => [f.agent, f.sessionId, f.path.includes('mimocode-dev.db#')])).toEqual([
        ['mimo', 'ses_native', true],
        ['mimo', 'ses_cc', true],
        ['mimo', 'ses_legacy', true],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads MiMo\'s own replies, and nothing of the messages it imported from Claude Code', async () => {
    const [native, cc, legacy] = [...mimo.discoverSync!(mimo.defaultRoots({ HOME: home, XDG_DATA_HOME: data }))];
    const own = await usageOf(native!.path);
    expect(own.map((u) => [u.agent, u.model, u.inputTokens, u.dedupKey.startsWith('mimo:')])).toEqual([
      ['mimo', 'mimo-v2.5-pro', 101, true],
      ['mimo', 'mimo-v2.5-pro', 102, true],
    ]);
    // exchanges 1 and 2 are listed in external_import; exchange 3 is MiMo's continuation
    expect((await usageOf(cc!.path)).map((u) => [u.model, u.inputTokens])).toEqual([['mimo-v2.5-pro', 103]]);
    // its import row names no messages (the earlier importer's): what was created by its time_imported is
    // the import, exchange 3 after it MiMo's own
    const info = newReadInfo();
    expect((await usageOf(legacy!.path, info)).map((u) => [u.model, u.inputTokens])).toEqual([['mimo-v2.5-pro', 103]]);
    expect(info.skippedLines).toBe(0);
    // the whole database read at once leaves out the same messages
    const whole = newReadInfo();
    expect((await usageOf(db, whole)).map((u) => u.inputTokens)).toEqual([101, 102, 103, 103]);
    expect(whole.skippedLines).toBe(0);
  });

  it('a row whose message_ids is not a JSON array: what its session created by its time_imported is left out, the row skipped once, alone and in a batch', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mimo-malformed-'));
    try {
      const copy = join(dir, 'mimocode.db');
      copyFileSync(db, copy);
      const d = new Database(copy);
      const add = d.prepare('INSERT INTO external_import (source, source_key, session_id, source_path, source_mtime, time_imported, message_ids) VALUES (?, ?, ?, ?, 0, 0, ?)');
      add.run('codex', 'rollout-1', 'ses_native', '/home/u/.codex/sessions/rollout-1.jsonl', 'not json');
      add.run('opencode', 'ses_x', 'ses_native', '/home/u/.local/share/opencode/opencode.db', '{"ids":[]}');
      d.close();
      const files = [...mimo.discoverSync!([dir])];
      const { alone, batch } = await readEach(files);
      expect(alone).toEqual([
        [[101, 102], 2],
        [[103], 0],
        [[103], 0],
      ]);
      expect(batch).toEqual(alone);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a resumed read does not count a malformed row again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mimo-resume-'));
    try {
      const copy = join(dir, 'mimocode.db');
      copyFileSync(db, copy);
      const d = new Database(copy);
      d.prepare("UPDATE external_import SET message_ids = 'not json' WHERE session_id = 'ses_legacy'").run();
      d.close();
      const legacy = [...mimo.discoverSync!([dir])].find((f) => f.sessionId === 'ses_legacy');
      const first = newReadInfo();
      let cursor: ReadCursor | undefined;
      for await (const _ of mimo.read(legacy!.path, { kinds: ['usage'], info: first, resume: { onCursor: (c) => (cursor = c.cursor) } }));
      const again = newReadInfo();
      let restarted: boolean | undefined;
      for await (const _ of mimo.read(legacy!.path, { kinds: ['usage'], info: again, resume: { from: cursor!, onStart: (s) => (restarted = s.restarted) } }));
      expect([first.skippedLines, restarted, again.skippedLines]).toEqual([1, false, 0]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cost report counts MiMo\'s own usage once, cold and from the cache, and writes nothing beside the database', async () => {
    for (const cache of [['--no-cache'], [], []]) {
      const r = await run(process.execPath, [CLI, 'cost', 'report', '--json', '--group-by', 'agent', '--agent', 'mimo', ...cache], {
        cwd: ROOT,
        maxBuffer: 16 << 20,
        env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: data, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', TZ: 'UTC' },
      });
      const row = (JSON.parse(r.stdout) as CostSummary).breakdowns?.mimo;
      expect({ inputTokens: row?.inputTokens, outputTokens: row?.outputTokens, cacheReadTokens: row?.cacheReadTokens, cacheWriteTokens: row?.cacheWriteTokens }).toEqual(MIMO_TOKENS);
      // the earlier importer's row without message_ids is understood, not a malformed record
      expect(r.stderr).not.toContain('warning: skipped');
      expect(await treeListing(data), 'the data folder as it was').toEqual(before);
    }
  });
});
