/**
 * SessionStore: at/open, save and load, absence against unreadable entries, families moved and removed
 * whole, titles, forks with provenance, prune, names checked before any I/O, recovery of a dead holder's
 * archive, and usage kept per event through an import.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSessionfoldError, type SessionfoldError } from '../cursors/protocol/errors.js';
import { sessionfoldStore } from '../codecs/sessionfold-jsonl/store.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { importSession } from '../src/store/import.js';
import { SessionStore } from '../src/store/store.js';
import type { FamilyWrite } from '../src/store/types.js';
import { FAKE_PRICER, makeHome, writeExportSession } from './sessions-helpers.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let dir: string;
let root: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-store-'));
  root = join(dir, 'store');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header = (sessionId: string, title = 'original') => JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId, title });
const msg = (index: number, role: string, content: string, extra: object = {}) => JSON.stringify({ type: 'sessionfold.message', index, role, content, ...extra });
const usage = (key: string) => ({ model: 'm', inputTokens: 10, outputTokens: 5, dedupKey: key });

/** A transcript of `n` messages, every assistant one with usage. */
function transcript(id: string, n: number): string {
  const lines = [header(id)];
  for (let i = 0; i < n; i++) lines.push(i % 2 === 0 ? msg(i, 'user', `q${i}`) : msg(i, 'assistant', `a${i}`, { id: `m${i}`, usage: usage(`k:${id}:${i}`) }));
  return `${lines.join('\n')}\n`;
}

/** Every path below `d` (relative), sorted. */
function tree(d: string): string[] {
  if (!existsSync(d)) return [];
  const out: string[] = [];
  const walk = (p: string, rel: string) => {
    for (const e of readdirSync(p, { withFileTypes: true })) {
      out.push(join(rel, e.name));
      if (e.isDirectory()) walk(join(p, e.name), join(rel, e.name));
    }
  };
  walk(d, '');
  return out.sort();
}

async function code(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return isSessionfoldError(e) ? e.code : String(e);
  }
}

async function errorOf(p: Promise<unknown>): Promise<SessionfoldError> {
  try {
    await p;
  } catch (e) {
    if (isSessionfoldError(e)) return e;
    throw e;
  }
  throw new Error('expected a SessionfoldError');
}

describe('at and open', () => {
  it('at() and every read touch nothing; open() creates the folder', async () => {
    const s = SessionStore.at(root);
    expect(await s.list()).toEqual([]);
    expect(await s.loadIfPresent('a')).toBeUndefined();
    expect(await s.transcriptMtime('a')).toBeUndefined();
    expect(await s.loadSidecar('a')).toBeUndefined();
    expect(await s.listSubagentIds('a')).toEqual([]);
    expect(await code(s.load('a'))).toBe('SESSION_NOT_FOUND');
    // a change of a session that is not there fails its lookup without creating the store either
    for (const change of [s.delete('a'), s.archive('a'), s.setTitle('a', 't'), s.setStats('a', {}), s.saveGitMetadata('a', {}), s.saveSubagentTranscript('a', 'c', ''), s.fork('a', 'b', 't', undefined, 1)]) {
      expect(await code(change)).toBe('SESSION_NOT_FOUND');
    }
    expect(existsSync(root)).toBe(false);
    await SessionStore.open(root);
    expect(statSync(root).isDirectory()).toBe(true);
  });
});

describe('save, load, list', () => {
  it('saves a transcript with its title (in the meta and the header) and lists it', async () => {
    const s = await SessionStore.open(root);
    await s.save('one', 'First', transcript('orig-1', 4));
    expect(JSON.parse((await s.load('one')).split('\n')[0]!).title).toBe('First');
    const [info] = await s.list();
    expect(info).toMatchObject({ name: 'one', archived: false, title: 'First', messageCount: 4, path: join(root, 'one.jsonl') });
    expect(await code(s.saveFamily('one', { title: 'x', transcript: transcript('o', 1) }))).toBe('INVALID_OPTION');
    await s.save('one', 'Again', transcript('orig-1', 2));
    expect((await s.loadMeta('one'))?.messageCount).toBe(2);
  });

  it('save over a family rewrites its transcript and meta only; saveFamily with overwrite replaces it whole', async () => {
    const s = await SessionStore.open(root);
    await fullFamily(s, 'src');
    await s.fork('src', 'kept', 'Forked', 2, 7);
    await s.saveSidecar('kept', 'side\n');
    await s.saveGitMetadata('kept', { branch: 'b' });
    await s.saveSubagentTranscript('kept', 'agent-1', transcript('agent-1', 1));
    const members = tree(root).filter((p) => p.startsWith('kept'));
    await s.save('kept', 'Saved', transcript('kept', 3));
    expect(tree(root).filter((p) => p.startsWith('kept'))).toEqual(members);
    expect([(await s.loadMeta('kept'))?.title, (await s.loadMeta('kept'))?.messageCount]).toEqual(['Saved', 3]);
    expect((await s.list()).find((i) => i.name === 'kept')?.forkedFrom).toBe('src');
    expect([await s.loadSidecar('kept'), await s.loadGitMetadata('kept'), await s.listSubagentIds('kept')]).toEqual(['side\n', { branch: 'b' }, ['agent-1']]);
    await s.saveFamily('kept', { title: 'Whole', transcript: transcript('kept', 1) }, { overwrite: true });
    expect(tree(root).filter((p) => p.startsWith('kept'))).toEqual(['kept.jsonl', 'kept.meta.json']);
  });

  it('saveSidecar records a sidecar before any transcript; the family saved later keeps it, recovery and delete too', async () => {
    const s = SessionStore.at(root);
    await s.saveSidecar('early', '{"v":2}\n');
    expect([await s.loadSidecar('early'), await s.list(), tree(root)]).toEqual(['{"v":2}\n', [], ['early.sidecar.jsonl']]);
    expect(await code(s.saveSidecar('CON', ''))).toBe('INVALID_OPTION');
    // a dead writer of the name (its stage never committed) takes nothing the name held before it
    mkdirSync(join(root, '.early.staged'));
    writeFileSync(join(root, '.lock'), JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), nonce: 'n', intent: { op: 'write', name: 'early' } }));
    await s.save('early', 'Early', transcript('early', 2));
    expect([await s.loadSidecar('early'), tree(root)]).toEqual(['{"v":2}\n', ['early.jsonl', 'early.meta.json', 'early.sidecar.jsonl']]);
    await s.saveSidecar('forked', 'f\n');
    await s.fork('early', 'forked', 'F', 1, 1);
    expect(await s.loadSidecar('forked')).toBe('f\n');
    await s.saveSidecar('gone', 'g\n');
    await s.delete('gone');
    expect(await s.loadSidecar('gone')).toBeUndefined();
  });

  it('a usage or model-change log with a line that is no JSON object is PARSE_ERROR, not fewer records', async () => {
    const s = await SessionStore.open(root);
    await s.saveFamily('logs', { title: 'L', transcript: transcript('logs', 2), usage: [usage('k1')] as unknown as FamilyWrite['usage'], modelChanges: [{ messageIndex: 1, to: 'b' }] });
    expect([(await s.loadUsageLog('logs')).length, (await s.loadModelChangeLog('logs')).length, await s.loadUsageLog('none')]).toEqual([1, 1, []]);
    writeFileSync(join(root, 'logs.usage.jsonl'), `${JSON.stringify(usage('k1'))}\n{"model":\n`);
    writeFileSync(join(root, 'logs.model-changes.jsonl'), '[1]\n');
    const bad = await errorOf(s.loadUsageLog('logs'));
    expect([bad.code, bad.line, bad.file]).toEqual(['PARSE_ERROR', 2, join(root, 'logs.usage.jsonl')]);
    expect(await code(s.loadModelChangeLog('logs'))).toBe('PARSE_ERROR');
  });

  it('listSubagentIds: a missing subagents folder is none, an entry that is no folder is IO_ERROR', async () => {
    const s = await SessionStore.open(root);
    await s.save('p', 'P', transcript('p', 1));
    expect(await s.listSubagentIds('p')).toEqual([]);
    writeFileSync(join(root, 'p.subagents'), 'not a folder');
    const e = await errorOf(s.listSubagentIds('p'));
    expect([e.code, (e.cause as NodeJS.ErrnoException).code]).toEqual(['IO_ERROR', 'ENOTDIR']);
  });

  it('loadIfPresent tells absence from a dangling symlink, a folder in the transcript\'s place and a permission failure', async () => {
    const s = await SessionStore.open(root);
    expect(await s.loadIfPresent('none')).toBeUndefined();
    symlinkSync(join(dir, 'nowhere.jsonl'), join(root, 'dangling.jsonl'));
    const dangling = await errorOf(s.loadIfPresent('dangling'));
    expect([dangling.code, (dangling.cause as NodeJS.ErrnoException).code]).toEqual(['IO_ERROR', 'ENOENT']);
    mkdirSync(join(root, 'folder.jsonl'));
    const folder = await errorOf(s.loadIfPresent('folder'));
    expect([folder.code, (folder.cause as NodeJS.ErrnoException).code]).toEqual(['IO_ERROR', 'EISDIR']);
  });

  it('loadIfPresent: a transcript behind a folder it may not search is IO_ERROR (EACCES)', async () => {
    const s = await SessionStore.open(root);
    mkdirSync(join(dir, 'locked'));
    writeFileSync(join(dir, 'locked', 'x.jsonl'), transcript('x', 1));
    symlinkSync(join(dir, 'locked', 'x.jsonl'), join(root, 'locked.jsonl'));
    chmodSync(join(dir, 'locked'), 0o000);
    try {
      expect(await deniedAs(s)).toEqual(['IO_ERROR', 'EACCES']);
    } finally {
      chmodSync(join(dir, 'locked'), 0o755);
    }
  });
});

/**
 * `loadIfPresent('locked')`'s error code and cause. Root reads through any mode, so as root the call runs in a
 * child process as `nobody`, with every folder on the way searchable but the locked one.
 */
async function deniedAs(s: SessionStore): Promise<[string, string | undefined]> {
  if (process.getuid?.() !== 0) {
    const e = await errorOf(s.loadIfPresent('locked'));
    return [e.code, (e.cause as NodeJS.ErrnoException | undefined)?.code];
  }
  // The test run's temp root lets nobody in; /tmp already does, and keeps its own mode.
  if ((statSync(tmpdir()).mode & 0o005) !== 0o005) chmodSync(tmpdir(), 0o755);
  for (const d of [dir, root]) chmodSync(d, 0o755);
  const store = pathToFileURL(join(ROOT, 'dist/src/store/store.js')).href;
  const script = `import { SessionStore } from ${JSON.stringify(store)};
try { await SessionStore.at(${JSON.stringify(root)}).loadIfPresent('locked'); console.log('null'); }
catch (e) { console.log(JSON.stringify([e.code, e.cause?.code])); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { uid: 65534, gid: 65534, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as [string, string | undefined];
}

/** A family with every member, two subagents with lineage. */
async function fullFamily(s: SessionStore, name: string): Promise<void> {
  await s.saveFamily(name, {
    title: 'Full',
    transcript: transcript(name, 6),
    origin: { agent: 'claude', sessionId: name },
    sidecar: '{"v":2}\n',
    usage: [],
    modelChanges: [{ messageIndex: 3, from: 'a', to: 'b' }],
    git: { branch: 'main', cwd: '/w' },
    tree: { version: 1, nodes: [{ id: 'm1' }] },
    subagents: [
      { id: 'agent-1', transcript: transcript('agent-1', 2), lineage: { version: 1, parent: name, child: 'agent-1', spawnedBy: name } },
      { id: 'agent-2', transcript: transcript('agent-2', 2), sidecar: 'x\n' },
    ],
  });
}

describe('archive and delete move and remove whole families', () => {
  it('archive moves every member, subagents included; the archived family reads back; delete removes it', async () => {
    const s = await SessionStore.open(root);
    await fullFamily(s, 'fam');
    await s.save('other', 'Other', transcript('other', 2));
    const before = tree(root).filter((p) => p.startsWith('fam'));
    expect(before.length).toBe(12);
    await s.archive('fam');
    expect(tree(root).filter((p) => p.startsWith('fam'))).toEqual([]);
    expect(tree(join(root, 'archived'))).toEqual(before);
    expect(await s.loadGitMetadata('fam')).toEqual({ branch: 'main', cwd: '/w' });
    expect(await s.loadSubagentLineage('fam', 'agent-1')).toMatchObject({ parent: 'fam', child: 'agent-1' });
    expect(await s.listSubagentIds('fam')).toEqual(['agent-1', 'agent-2']);
    expect((await s.list()).map((i) => [i.name, i.archived])).toEqual([['other', false], ['fam', true]]);
    await s.archive('fam'); // archiving an archived session does nothing
    await s.saveSidecar('fam', 'new\n'); // a member saved later goes where its family is
    expect(existsSync(join(root, 'fam.sidecar.jsonl'))).toBe(false);
    await s.delete('fam');
    expect(tree(root)).toEqual(['archived', 'other.jsonl', 'other.meta.json']);
    expect(await code(s.delete('fam'))).toBe('SESSION_NOT_FOUND');
    expect(await code(s.archive('fam'))).toBe('SESSION_NOT_FOUND');
  });

  it('tolerates absent members: a family of a transcript alone archives and deletes', async () => {
    const s = await SessionStore.open(root);
    writeFileSync(join(root, 'bare.jsonl'), transcript('bare', 1));
    await s.archive('bare');
    expect(tree(root)).toEqual(['archived', join('archived', 'bare.jsonl')]);
    await s.delete('bare');
    expect(tree(root)).toEqual(['archived']);
  });

  it('a name taken by an archived family cannot be saved or forked to', async () => {
    const s = await SessionStore.open(root);
    await s.save('a', 'A', transcript('a', 2));
    await s.archive('a');
    expect(await code(s.save('a', 'A', transcript('a', 2)))).toBe('INVALID_OPTION');
    await s.save('b', 'B', transcript('b', 2));
    expect(await code(s.fork('b', 'a', 'F', undefined, 1))).toBe('INVALID_OPTION');
  });
});

describe('setTitle, fork, prune', () => {
  it('setTitle keeps every other stat and the transcript\'s mtime; setStats keeps the title', async () => {
    const s = await SessionStore.open(root);
    await s.saveFamily('t', { title: 'Old', transcript: transcript('t', 4), origin: { agent: 'codex', sessionId: 'x' }, stats: { reduced: true, stubCount: 3 } });
    utimesSync(join(root, 't.jsonl'), new Date(1e12), new Date(1e12));
    const before = await s.loadMeta('t');
    await s.setTitle('t', 'New');
    expect(await s.loadMeta('t')).toEqual({ ...before, title: 'New' });
    expect(statSync(join(root, 't.jsonl')).mtimeMs).toBe(1e12);
    expect(JSON.parse((await s.load('t')).split('\n')[0]!).title).toBe('New');
    await s.setStats('t', { stubCount: 4, fullBytes: 10 });
    expect(await s.loadMeta('t')).toEqual({ ...before, title: 'New', stats: { reduced: true, stubCount: 4, fullBytes: 10 } });
    expect(await code(s.setStats('missing', {}))).toBe('SESSION_NOT_FOUND');
  });

  it('fork copies the first n messages into a new session with provenance and never touches the source', async () => {
    const s = await SessionStore.open(root);
    await fullFamily(s, 'src');
    const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
    const before = tree(root).map((p) => [p, statSync(join(root, p)).mtimeMs, statSync(join(root, p)).isFile() ? sha(join(root, p)) : 'dir']);
    const p = await s.fork('src', 'dst', 'Forked', 3, 1_700_000_000_000);
    expect(p).toMatchObject({ from: 'src', to: 'dst', fromArchived: false, truncatedAtMessage: 3, messagesKept: 3, sourceMessages: 6, forkedAtMs: 1_700_000_000_000, fromOrigin: { agent: 'claude', sessionId: 'src' } });
    expect(tree(root).filter((x) => !x.startsWith('dst')).map((x) => [x, statSync(join(root, x)).mtimeMs, statSync(join(root, x)).isFile() ? sha(join(root, x)) : 'dir'])).toEqual(before);
    expect(await s.loadForkProvenance('dst')).toEqual(p);
    const text = await s.load('dst');
    expect(text.trimEnd().split('\n').length).toBe(4);
    expect([text.split('\n')[0], (await s.loadMeta('dst'))?.title]).toEqual([(await s.load('src')).split('\n')[0], 'Forked']);
    const whole = await s.fork('src', 'all', 'All', undefined, 1);
    expect([whole.messagesKept, whole.truncatedAtMessage]).toEqual([6, undefined]);
    expect(await code(s.fork('src', 'dst', 'again', 1, 1))).toBe('INVALID_OPTION');
    expect(await code(s.fork('missing', 'x', 'x', 1, 1))).toBe('SESSION_NOT_FOUND');
    await s.archive('src');
    expect((await s.fork('src', 'from-archive', 'F', 1, 1)).fromArchived).toBe(true);
  });

  it('fork without a cut is a byte-exact copy of the transcript, and with one its exact byte prefix', async () => {
    const s = await SessionStore.open(root);
    // CRLF line ends and a byte that is no UTF-8 survive only a copy of bytes, not of decoded text
    const body = Buffer.concat([Buffer.from(`${header('src', 'Source')}\r\n${msg(0, 'user', 'q')}\r\n${msg(1, 'assistant', 'a')}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(`${msg(2, 'user', 'r')}\n`)]);
    writeFileSync(join(root, 'src.jsonl'), body);
    const whole = await s.fork('src', 'copy', 'Copy', undefined, 1);
    expect(readFileSync(join(root, 'copy.jsonl')).equals(body)).toBe(true);
    expect([whole.messagesKept, whole.sourceMessages, (await s.loadMeta('copy'))?.title, (await s.list()).find((i) => i.name === 'copy')?.forkedFrom]).toEqual([3, 3, 'Copy', 'src']);
    await s.fork('src', 'cut', 'Cut', 2, 1);
    const cut = readFileSync(join(root, 'cut.jsonl'));
    expect(cut.equals(body.subarray(0, body.indexOf(msg(2, 'user', 'r'))))).toBe(true);
  });

  it('pruneExpired deletes only archived sessions older than the retention; 0 prunes nothing', async () => {
    const s = await SessionStore.open(root);
    const now = Date.UTC(2026, 5, 1);
    const age = (name: string, archived: boolean, days: number) => {
      const t = new Date(now - days * 86_400_000);
      utimesSync(join(root, archived ? 'archived' : '', `${name}.jsonl`), t, t);
    };
    for (const n of ['old-active', 'old-archived', 'new-archived']) await fullFamily(s, n);
    await s.archive('old-archived');
    await s.archive('new-archived');
    age('old-active', false, 100);
    age('old-archived', true, 40);
    age('new-archived', true, 10);
    expect(await s.pruneExpired(0, now)).toEqual([]);
    expect(await s.pruneExpired(30, new Date(now))).toEqual(['old-archived']);
    expect((await s.list()).map((i) => i.name)).toEqual(['old-active', 'new-archived']);
    expect(tree(join(root, 'archived')).some((p) => p.startsWith('old-archived'))).toBe(false);
    expect(await code(s.pruneExpired(-1, now))).toBe('INVALID_OPTION');
  });
});

describe('names are checked before any I/O', () => {
  it('every path-taking method refuses a bad session name or subagent id, and creates nothing', async () => {
    const s = SessionStore.at(root);
    const t = transcript('x', 1);
    for (const bad of ['', '..', '../x', 'a/b', 'a\\b', 'a\0b', '.hidden', 'x'.repeat(129), 'a.usage', 'a.meta', 'é'.repeat(65)]) {
      const calls: Promise<unknown>[] = [
        s.save(bad, 't', t),
        s.load(bad),
        s.loadIfPresent(bad),
        s.archive(bad),
        s.delete(bad),
        s.setTitle(bad, 't'),
        s.fork(bad, 'ok', 't', undefined, 1),
        s.fork('ok', bad, 't', undefined, 1),
        s.transcriptMtime(bad),
        s.saveSidecar(bad, ''),
        s.saveSubagentTranscript('ok', bad, t),
        s.saveSubagentLineage(bad, 'ok', { version: 1, parent: bad, child: 'ok' }),
        s.loadSubagentTranscript('ok', bad),
        s.saveFamily('ok', { title: 't', transcript: t, subagents: [{ id: bad, transcript: t }] }),
        (async () => s.sessionPath(bad))(),
      ];
      for (const c of calls) expect(await code(c), JSON.stringify(bad)).toBe('INVALID_OPTION');
    }
    expect(existsSync(root)).toBe(false);
  });

  it('refuses duplicate subagent ids before the first write', async () => {
    const s = await SessionStore.open(root);
    const t = transcript('x', 1);
    expect(await code(s.saveFamily('p', { title: 't', transcript: t, subagents: [{ id: 'c', transcript: t }, { id: 'c', transcript: t }] }))).toBe('INVALID_OPTION');
    expect(tree(root)).toEqual([]);
  });
});

describe('recovery', () => {
  it('a dead holder\'s half-done archive is finished by the next mutation; its temp files are swept', async () => {
    const s = await SessionStore.open(root);
    await fullFamily(s, 'half');
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString().trim();
    // the dead process took the lock, moved two members and left a temp file
    mkdirSync(join(root, 'archived'));
    for (const m of ['half.git.json', 'half.subagents']) spawnSync('mv', [join(root, m), join(root, 'archived', m)]);
    writeFileSync(join(root, `.half.meta.json.${dead}.0badc0de.tmp`), '{');
    writeFileSync(join(root, '.lock'), JSON.stringify({ pid: Number(dead), host: hostname(), nonce: 'n', intent: { op: 'archive', name: 'half' } }));
    await s.save('next', 'Next', transcript('next', 1));
    expect(tree(root).filter((p) => p.startsWith('half') || p.startsWith('.'))).toEqual([]);
    expect(tree(join(root, 'archived')).filter((p) => !p.includes('/')).length).toBe(8);
    expect((await s.list()).find((i) => i.name === 'half')?.archived).toBe(true);
  });

  it('a dead holder\'s half-written new family is removed', async () => {
    const s = await SessionStore.open(root);
    writeFileSync(join(root, 'torn.meta.json'), '{}');
    writeFileSync(join(root, 'torn.usage.jsonl'), '');
    writeFileSync(join(root, '.lock'), JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), nonce: 'n', intent: { op: 'write', name: 'torn' } }));
    await s.save('next', 'Next', transcript('next', 1));
    expect(tree(root)).toEqual(['next.jsonl', 'next.meta.json']);
  });

  it('an empty lock left for over 5 s, and a breaker\'s file left for over 10 s, are taken as stale', async () => {
    const s = await SessionStore.open(root);
    const old = new Date(Date.now() - 60_000);
    writeFileSync(join(root, '.lock'), '');
    writeFileSync(join(root, '.lock.break'), '1');
    utimesSync(join(root, '.lock'), old, old);
    utimesSync(join(root, '.lock.break'), old, old);
    await s.save('x', 'x', transcript('x', 1));
    expect(tree(root)).toEqual(['x.jsonl', 'x.meta.json']);
  });

  it('an empty lock just created is a holder still writing it: waited for, not broken', async () => {
    const s = SessionStore.at(root, { lockTimeoutMs: 100 });
    mkdirSync(root);
    writeFileSync(join(root, '.lock'), '');
    expect(await code(s.save('x', 'x', transcript('x', 1)))).toBe('IO_ERROR');
    expect(existsSync(join(root, '.lock'))).toBe(true);
  });

  it('a lock held by a live process is waited for, then IO_ERROR names the lock file', async () => {
    const s = SessionStore.at(root, { lockTimeoutMs: 50 });
    mkdirSync(root);
    writeFileSync(join(root, '.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), nonce: 'n', intent: { op: 'other' } }));
    const e = await errorOf(s.save('x', 'x', transcript('x', 1)));
    expect(e.code).toBe('IO_ERROR');
    expect(e.message).toContain('.lock');
    expect(existsSync(join(root, 'x.jsonl'))).toBe(false);
  });
});

describe('usage is kept per event', () => {
  it('a message with two usage events is stored (and exported) as two events with their own keys and times', async () => {
    const home = await makeHome();
    try {
      await writeExportSession(home.exports, { agent: 'claude', sessionId: 'two' }, [
        { role: 'user', content: 'q', timestamp: '2026-01-01T10:00:00.000Z' },
        { role: 'assistant', content: 'a', id: 'm1', timestamp: '2026-01-01T10:00:01.000Z', usage: { ...usage('k1'), outputTokens: 1 } },
        { role: 'assistant', content: 'b', id: 'm1', timestamp: '2026-01-01T10:00:05.000Z', usage: { ...usage('k2'), outputTokens: 2 } },
      ]);
      const store = await SessionStore.open(join(home.dir, 'store'));
      const manager = { env: home.env };
      const original = await createSessionManager({ ...manager, pricer: FAKE_PRICER }).get('sessionfold-jsonl', 'two');
      expect(original.messages[1]?.usage?.requests).toBe(2);
      await importSession(store, 'sessionfold-jsonl', 'two', { manager });
      const events = [];
      for await (const e of sessionfoldStore.read(store.sessionPath('two'), { kinds: ['usage'] })) if (e.type === 'usage') events.push([e.dedupKey, e.outputTokens, e.timestamp, e.messageId]);
      expect(events).toEqual([
        ['k1', 1, '2026-01-01T10:00:01.000Z', 'm1'],
        ['k2', 2, '2026-01-01T10:00:05.000Z', 'm1'],
      ]);
      // `sessions export` writes the same lines: each event with its own key
      const exported = (await createSessionManager(manager).export('sessionfold-jsonl', 'two', 'jsonl')).trimEnd().split('\n').map((l) => JSON.parse(l) as { usage?: { dedupKey: string }; orphanUsage?: boolean });
      expect(exported.flatMap((l) => (l.usage !== undefined ? [[l.usage.dedupKey, l.orphanUsage === true]] : []))).toEqual([['k1', false], ['k2', true]]);
      const back = await createSessionManager({ env: { ...home.env, SESSIONFOLD_STORE_DIR: store.root }, pricer: FAKE_PRICER }).get('store', 'two');
      expect(back.messages.map((m) => [m.content, m.usage?.dedupKey, m.usage?.requests])).toEqual(original.messages.map((m) => [m.content, m.usage?.dedupKey, m.usage?.requests]));
    } finally {
      await rm(home.dir, { recursive: true, force: true });
    }
  });
});
