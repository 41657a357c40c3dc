/**
 * The agents' own database variables: OpenCode's `OPENCODE_DB` and Kilo CLI's `KILO_DB` name the one database
 * the agent opens (absolute, or relative to its data folder), or `:memory:` for none on disk
 * (codecs/opencode/descriptor.ts `getDatabaseRoots`). The default roots follow them: the named database alone,
 * the folder's other databases and its `storage/` tree left out, or nothing at all. And the names the agents
 * give a channel's database in their folder (`isDatabaseName`, `isKiloDatabaseName`): those are read, other
 * files are not. Real databases with OpenCode's tables (test/helpers/opencode-db.ts), unchanged by every read,
 * with nothing created beside them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kilo } from '../codecs/kilo/index.js';
import { getKiloCliRoots, isKiloDatabaseName } from '../codecs/kilo/paths.js';
import { getOpencodeRoots, isDatabaseName, opencode } from '../codecs/opencode/index.js';
import type { Codec } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { detectCodec } from '../src/registry.js';
import { surveySources } from '../src/scan/sources.js';
import { treeListing } from './helpers/files.js';
import { emptyOpencodeDb, insertSession, writeDb } from './helpers/opencode-db.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

let home: string;
let data: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-opencode-db-env-'));
  data = join(home, '.local', 'share');
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** A closed WAL database at `path` with OpenCode's tables and one session `id` of one exchange. */
function dbWith(path: string, id: string): string {
  mkdirSync(dirname(path), { recursive: true });
  emptyOpencodeDb(path);
  writeDb(path, (d) => insertSession(d, id, 1, 1));
  return path;
}

/** A legacy `storage/` tree session beside the databases (`session/<project>/<id>.json`). */
function treeSession(folder: string, id: string): void {
  const dir = join(folder, 'storage', 'session', 'prj_1');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.json`), JSON.stringify({ id, projectID: 'prj_1', directory: '/work', title: id, time: { created: 1, updated: 1 } }));
}

const envOf = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HOME: home, XDG_DATA_HOME: data, ...extra });

/** The sessions the codec finds under its default roots in `env`, as `<file name>#<session>`, sorted. */
function listed(codec: Codec, env: NodeJS.ProcessEnv): string[] {
  return [...codec.discoverSync!(codec.defaultRoots(env))].map((f) => `${basename(f.path).split('#')[0]}#${f.sessionId ?? basename(f.path)}`).sort();
}

async function usageOf(codec: Codec, path: string): Promise<number> {
  let n = 0;
  for await (const e of codec.read(path, { kinds: ['usage'] }) as AsyncIterable<SessionfoldEvent>) if (e.type === 'usage') n++;
  return n;
}

describe('OPENCODE_DB', () => {
  let folder: string;
  beforeEach(() => {
    folder = join(data, 'opencode');
    dbWith(join(folder, 'opencode.db'), 'ses_default');
    treeSession(folder, 'ses_tree');
  });

  it('unset or blank: the data folder, its database and its storage tree; Kilo\'s variable is not OpenCode\'s', () => {
    for (const env of [envOf(), envOf({ OPENCODE_DB: '' }), envOf({ OPENCODE_DB: '  ' }), envOf({ KILO_DB: ':memory:' })]) {
      expect(getOpencodeRoots(env)).toEqual([folder]);
      expect(listed(opencode, env)).toEqual(['opencode.db#ses_default', 'ses_tree.json#ses_tree.json']);
    }
  });

  it('an absolute path: that database alone, whatever its name, and read read-only', async () => {
    const db = dbWith(join(home, 'elsewhere', 'work.sqlite'), 'ses_work');
    const env = envOf({ OPENCODE_DB: db });
    const before = await treeListing(home);
    expect(getOpencodeRoots(env)).toEqual([db]);
    expect(listed(opencode, env)).toEqual(['work.sqlite#ses_work']);
    const [file] = [...opencode.discoverSync!(opencode.defaultRoots(env))];
    expect(file?.root).toBe(db);
    expect(await usageOf(opencode, file!.path)).toBe(1);
    expect(await treeListing(home), 'no byte written, no -wal or -shm created').toEqual(before);
  });

  it('a relative name: joined to the data folder, and only that database read', () => {
    const db = dbWith(join(folder, 'profiles', 'work.db'), 'ses_work');
    const env = envOf({ OPENCODE_DB: join('profiles', 'work.db') });
    expect(getOpencodeRoots(env)).toEqual([db]);
    expect(listed(opencode, env)).toEqual(['work.db#ses_work']);
    // a channel's name given as the variable: that one, not opencode.db beside it
    dbWith(join(folder, 'opencode-dev.db'), 'ses_dev');
    expect(listed(opencode, envOf({ OPENCODE_DB: 'opencode-dev.db' }))).toEqual(['opencode-dev.db#ses_dev']);
  });

  it(':memory: — nothing on disk is the agent\'s, so nothing is read', () => {
    const env = envOf({ OPENCODE_DB: ':memory:' });
    expect(getOpencodeRoots(env)).toEqual([]);
    expect(listed(opencode, env)).toEqual([]);
  });

  it('the source report finds the named database, and names the variable when it is missing', async () => {
    const db = dbWith(join(home, 'elsewhere', 'work.db'), 'ses_work');
    const [found] = await surveySources([opencode], envOf({ OPENCODE_DB: db }));
    expect(found).toMatchObject({ agent: 'opencode', root: db, status: 'found', variable: 'OPENCODE_DB', files: 1, unreadable: 0 });
    const gone = join(home, 'gone.db');
    const [missing] = await surveySources([opencode], envOf({ OPENCODE_DB: gone }));
    expect(missing).toMatchObject({ root: gone, status: 'missing', variable: 'OPENCODE_DB', files: 0 });
  });
});

describe('KILO_DB', () => {
  let folder: string;
  beforeEach(() => {
    folder = join(data, 'kilo');
    dbWith(join(folder, 'kilo.db'), 'ses_default');
  });

  it('unset: the data folder; OpenCode\'s variable is not Kilo\'s', () => {
    for (const env of [envOf(), envOf({ OPENCODE_DB: ':memory:' })]) {
      expect(getKiloCliRoots(env)).toEqual([folder]);
      expect(listed(kilo, env)).toEqual(['kilo.db#ses_default']);
    }
  });

  it('an absolute path or a relative name: that database alone, as kilo\'s', async () => {
    const abs = dbWith(join(home, 'elsewhere', 'k.db'), 'ses_abs');
    expect(getKiloCliRoots(envOf({ KILO_DB: abs }))).toEqual([abs]);
    expect(listed(kilo, envOf({ KILO_DB: abs }))).toEqual(['k.db#ses_abs']);
    const rel = dbWith(join(folder, 'sub', 'k.db'), 'ses_rel');
    expect(getKiloCliRoots(envOf({ KILO_DB: 'sub/k.db' }))).toEqual([rel]);
    const files = [...kilo.discoverSync!(kilo.defaultRoots(envOf({ KILO_DB: 'sub/k.db' })))];
    expect(files.map((f) => [f.agent, f.sessionId])).toEqual([['kilo', 'ses_rel']]);
    expect(await usageOf(kilo, files[0]!.path)).toBe(1);
  });

  it(':memory: — no CLI database; SESSIONFOLD_KILO_CLI_DIR still decides over KILO_DB', () => {
    expect(getKiloCliRoots(envOf({ KILO_DB: ':memory:' }))).toEqual([]);
    expect(listed(kilo, envOf({ KILO_DB: ':memory:' }))).toEqual([]);
    expect(getKiloCliRoots(envOf({ KILO_DB: ':memory:', SESSIONFOLD_KILO_CLI_DIR: folder }))).toEqual([folder]);
  });

  it('the source report names KILO_DB for the database it named', async () => {
    const db = dbWith(join(home, 'elsewhere', 'k.db'), 'ses_abs');
    const reports = await surveySources([kilo], envOf({ KILO_DB: db }));
    expect(reports.find((r) => r.root === db)).toMatchObject({ status: 'found', variable: 'KILO_DB', files: 1 });
  });
});

describe('channel databases', () => {
  it('OpenCode: opencode.db and opencode-<channel>.db, nothing else', () => {
    const folder = join(data, 'opencode');
    for (const [name, id] of [['opencode.db', 'ses_a'], ['opencode-local.db', 'ses_b'], ['opencode-next.db', 'ses_c'], ['opencode-v1.2_x.db', 'ses_d']] as const) dbWith(join(folder, name), id);
    // names no OpenCode build gives its database: a space (made `-`), another suffix, Kilo's name
    for (const [name, id] of [['opencode-my copy.db', 'ses_x'], ['opencode.db.bak', 'ses_y'], ['kilo.db', 'ses_z'], ['opencodex.db', 'ses_w']] as const) dbWith(join(folder, name), id);
    expect(listed(opencode, envOf())).toEqual(['opencode-local.db#ses_b', 'opencode-next.db#ses_c', 'opencode-v1.2_x.db#ses_d', 'opencode.db#ses_a']);
    expect(['opencode.db', 'opencode-dev.db', 'opencode-.db'].every(isDatabaseName)).toBe(true);
    expect(['opencode-a b.db', 'opencode-dev.db-wal', 'xopencode.db', 'opencode.sqlite'].some(isDatabaseName)).toBe(false);
  });

  it('Kilo CLI: kilo.db, kilo-<channel>.db and opencode-<channel>.db in its folder, not OpenCode\'s own name', () => {
    const folder = join(data, 'kilo');
    for (const [name, id] of [['kilo.db', 'ses_a'], ['kilo-dev.db', 'ses_b'], ['opencode-local.db', 'ses_c']] as const) dbWith(join(folder, name), id);
    for (const [name, id] of [['opencode.db', 'ses_x'], ['kilocode.db', 'ses_y'], ['kilo-a b.db', 'ses_z']] as const) dbWith(join(folder, name), id);
    expect(listed(kilo, envOf())).toEqual(['kilo-dev.db#ses_b', 'kilo.db#ses_a', 'opencode-local.db#ses_c']);
    expect(isKiloDatabaseName('opencode.db')).toBe(false);
  });
});

describe('a database of the user\'s naming, detected by its tables', () => {
  it('is OpenCode\'s when it has session, message and part (quoted as drizzle writes them or not), and the CLI reads it without --agent', async () => {
    const named = dbWith(join(home, 'elsewhere', 'work.sqlite'), 'ses_named');
    expect((await detectCodec(named, {})).id).toBe('opencode');
    const drizzle = join(home, 'elsewhere', 'drizzle.db3');
    const d = new Database(drizzle);
    d.exec('CREATE TABLE `session` (`id` text PRIMARY KEY); CREATE TABLE `message` (`id` text PRIMARY KEY); CREATE TABLE `part` (`id` text PRIMARY KEY);');
    d.close();
    expect((await detectCodec(drizzle, {})).id).toBe('opencode');
    const before = await treeListing(join(home, 'elsewhere'));
    const r = spawnSync(process.execPath, [CLI, 'read', named, '--kinds', 'usage'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home } });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events.map((e) => [e.type, e.agent, e.sessionId])).toEqual([['usage', 'opencode', 'ses_named']]);
    expect(await treeListing(join(home, 'elsewhere'))).toEqual(before);
  });

  it('is no one\'s without those tables, nor Z Code\'s database, which has them beside model_usage', async () => {
    const other = join(home, 'other.sqlite');
    const d = new Database(other);
    d.exec('CREATE TABLE session (id text); CREATE TABLE message (id text);');
    d.close();
    await expect(detectCodec(other, {})).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    const zcodeLike = join(home, 'z.sqlite');
    const z = new Database(zcodeLike);
    z.exec('CREATE TABLE session (id text); CREATE TABLE message (id text); CREATE TABLE part (id text); CREATE TABLE model_usage (id text);');
    z.close();
    await expect(detectCodec(zcodeLike, {})).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
  });
});
