/**
 * Fuzzing the store's names: random bytes, unicode and traversal forms, as session names and as subagent
 * ids, through every path-taking method. Nothing outside the root is ever created or changed; a refused
 * name changes nothing at all; an accepted one only ever lands as a direct child of the root, of `archived/`
 * or of its own `.subagents/` folder.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { isValidName } from '../src/store/names.js';
import { SessionStore } from '../src/store/store.js';

let box: string;
let root: string;

beforeAll(async () => {
  box = await mkdtemp(join(tmpdir(), 'sf-store-names-'));
  root = join(box, 'deep', 'store');
  // things a traversal could reach: siblings of the root, its parents' siblings, a name's twin outside
  mkdirSync(join(box, 'deep', 'sibling'), { recursive: true });
  writeFileSync(join(box, 'outside.jsonl'), 'x');
  writeFileSync(join(box, 'deep', 'sibling', 'x.jsonl'), 'x');
});
afterAll(async () => {
  await rm(box, { recursive: true, force: true });
});

/** path → mtime and size of every entry under `d`. */
function snapshot(d: string, skip?: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (p: string) => {
    for (const e of readdirSync(p, { withFileTypes: true })) {
      const full = join(p, e.name);
      if (full === skip) continue;
      const st = statSync(full, { throwIfNoEntry: false });
      out.set(full, st === undefined ? 'dangling' : `${st.mtimeMs}:${st.size}:${e.isDirectory()}`);
      if (e.isDirectory()) walk(full);
    }
  };
  walk(d);
  return out;
}

const TRAVERSALS = [
  '', '.', '..', '...', '../x', '../../outside', '..\\x', 'a/../../b', '/etc/passwd', '/', '\\', 'a/b', './a', '.a',
  'a\0b', '\0', 'a/..', '..%2f', '%2e%2e', 'x\n', '\u202e..', 'C:\\x', '~', '~/x', 'a.', 'a ', ' ', '\ud800', 'a\udc00b',
  '..\u2215x', '\uff0e\uff0e', 'x'.repeat(129), '界'.repeat(43), 'a.meta', 'a.usage', 'b.subagents', 'c.lineage', 'archived',
  'sibling', '../sibling/x', 'deep', 'store', 'ok-name', 'ünïcødé', '🙂', 'a.b.c',
];

const nameArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TRAVERSALS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('utf8')),
  fc.array(fc.constantFrom('..', '.', '/', '\\', 'a', '\0', '%2f', '界', ' '), { maxLength: 8 }).map((p) => p.join('')),
);

/** Every path-taking method of the store, with `name` in each name position. */
function calls(s: SessionStore, name: string): (() => Promise<unknown>)[] {
  const t = `${JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: 'x' })}\n`;
  return [
    () => s.save(name, 't', t),
    () => s.saveFamily(name, { title: 't', transcript: t, sidecar: '', subagents: [{ id: 'c', transcript: t }] }, { overwrite: true }),
    () => s.saveFamily('base', { title: 't', transcript: t, subagents: [{ id: name, transcript: t, lineage: { version: 1, parent: 'base', child: name } }] }, { overwrite: true }),
    () => s.load(name),
    () => s.loadIfPresent(name),
    () => s.loadFrom(name, true),
    () => s.transcriptMtime(name),
    () => s.setTitle(name, 'x'),
    () => s.setStats(name, { n: 1 }),
    () => s.saveSidecar(name, 'x'),
    () => s.saveGitMetadata(name, {}),
    () => s.loadTree(name),
    () => s.fork('base', name, 'f', 1, 1),
    () => s.fork(name, 'fork-target', 'f', 1, 1),
    () => s.saveSubagentTranscript('base', name, t),
    () => s.saveSubagentLineage(name, 'c', { version: 1, parent: name, child: 'c' }),
    () => s.loadSubagentTranscript(name, 'c'),
    () => s.listSubagentIds(name),
    () => s.describe(name),
    () => s.archive(name),
    () => s.delete(name),
    () => s.delete('fork-target'),
  ];
}

/** Where a write for a valid `name` may land: a direct child of the root, `archived/` or a `.subagents/` folder of one. */
function allowed(path: string): boolean {
  const rel = relative(root, path);
  if (rel.startsWith('..') || resolve(root, rel) !== path) return false;
  const parts = rel.split(sep);
  if (parts[0] === 'archived') parts.shift();
  return parts.length <= 1 || (parts.length === 2 && parts[0]!.endsWith('.subagents'));
}

describe('store names', () => {
  it('a valid name is always one file stem in the root', () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        if (!isValidName(name)) return;
        const p = resolve(root, `${name}.jsonl`);
        expect(dirname(p)).toBe(root);
        expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name);
      }),
      { numRuns: 5000 },
    );
  });

  it('no call with a fuzzed name creates or touches a path outside the root; a refused one touches nothing', async () => {
    const s = await SessionStore.open(root);
    await s.save('base', 'base', `${JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: 'x' })}\n`);
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(nameArb, async (name) => {
        const outside = snapshot(box, root);
        const inside = snapshot(root);
        for (const call of calls(s, name)) {
          try {
            await call();
          } catch (e) {
            if (!isSessionfoldError(e)) throw e;
            if (isValidName(name) || e.code !== 'INVALID_OPTION') continue;
          }
        }
        expect(snapshot(box, root)).toEqual(outside);
        if (!isValidName(name)) {
          refused++;
          expect(snapshot(root)).toEqual(inside);
        } else {
          accepted++;
          for (const p of snapshot(root).keys()) if (!inside.has(p)) expect(allowed(p), p).toBe(true);
        }
      }),
      { numRuns: 60, seed: 141 },
    );
    expect(refused).toBeGreaterThan(15);
    expect(accepted).toBeGreaterThan(6);
    expect(existsSync(join(box, 'deep', 'sibling', 'x.jsonl'))).toBe(true);
  });
});

describe('names that are written', () => {
  const t = (id: string) => `${JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'x', sessionId: id })}\n`;
  const codeOf = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (isSessionfoldError(e) ? e.code : String(e)));

  it('refuses Windows-forbidden characters, device names, format characters, and names that are another family\'s but for case or Unicode form', async () => {
    const s = SessionStore.at(join(box, 'written'));
    await s.save('Café', 'c', t('c')); // NFC
    await s.save('src', 's', t('s'));
    const inside = snapshot(s.root);
    const bad = [
      'a:b', 'a*b', 'a?b', 'a<b', 'a>b', 'a|b', 'a"b', 'CON', 'con.txt', 'Nul', 'aux.tar.gz', 'COM1', 'lpt9.x', 'com\u00b9', 'CONIN$', 'prn .x',
      'a\u200bb', 'a\u200db', '\ufeffa', 'a\u202eb', 'a\u2066b', 'a\u061cb', 'a\u00adb',
    ];
    const lookalikes = ['Cafe\u0301', 'café', 'CAFÉ', 'CAFE\u0301'];
    for (const name of [...bad, ...lookalikes]) {
      for (const call of [() => s.save(name, 'x', t('x')), () => s.saveFamily(name, { title: 'x', transcript: t('x') }), () => s.fork('src', name, 'x', undefined, 1)]) {
        expect(await codeOf(call()), JSON.stringify(name)).toBe('INVALID_OPTION');
      }
    }
    for (const id of bad) expect(await codeOf(s.saveSubagentTranscript('src', id, t(id))), JSON.stringify(id)).toBe('INVALID_OPTION');
    expect(snapshot(s.root)).toEqual(inside);
    for (const ok of ['console', 'com10', 'nul-session', 'a.con', 'Cafe']) await s.save(ok, ok, t(ok));
    await s.saveSubagentTranscript('src', 'Agent', t('Agent'));
    expect(await codeOf(s.saveSubagentTranscript('src', 'agent', t('agent')))).toBe('INVALID_OPTION');
    const twins = [{ id: 'kid', transcript: t('kid') }, { id: 'KID', transcript: t('KID') }];
    expect(await codeOf(s.saveFamily('twins', { title: 'x', transcript: t('x'), subagents: twins }))).toBe('INVALID_OPTION');
  });

  it('a family stored earlier under a name now refused is still listed, read and deleted', async () => {
    const s = SessionStore.at(join(box, 'earlier'));
    mkdirSync(s.root, { recursive: true });
    writeFileSync(join(s.root, 'a:b.jsonl'), t('a:b'));
    expect((await s.list()).map((i) => i.name)).toEqual(['a:b']);
    expect(await s.load('a:b')).toBe(t('a:b'));
    await s.delete('a:b');
    expect(await s.list()).toEqual([]);
  });
});
