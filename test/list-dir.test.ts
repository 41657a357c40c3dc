/**
 * The directory listing discovery stats files with (cursors/list-dir.ts): the kernel's (native/walk.c) and
 * readdirSync's give the same entries, kinds and stats, and the Claude and Codex codecs discover the same
 * files, in the same order, with either.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import type { Codec, SessionFile } from '../cursors/protocol/codec.js';
import { nativeKernel } from '../cursors/native.js';
import { DIR, FILE, OTHER, fileStat, listDir, listDirJs, listDirNative, listTree, type DirEntry, type TreeEntry } from '../cursors/list-dir.js';

const SHARED = fileURLToPath(new URL('../../shared/fixtures/real/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'sf-listdir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.SESSIONFOLD_NATIVE_LISTING;
});

/** Entries with every FILE's stat taken, sorted by name, as plain data. */
function settled(dir: string, entries: DirEntry[] | null): unknown {
  if (entries === null) return null;
  return entries
    .map((e) => ({ name: e.name, kind: e.kind, stat: e.kind === FILE ? (fileStat(dir, e) ?? 'gone') : null }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function tree(): string {
  const root = mkdtempSync(join(tmp, 'tree-'));
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'a.jsonl'), '{"x":1}\n');
  writeFileSync(join(root, 'empty'), '');
  writeFileSync(join(root, 'ünïcødé 日本.jsonl'), 'x'.repeat(5000));
  writeFileSync(join(root, 'with\nnewline'), 'n');
  writeFileSync(join(root, '.hidden'), 'h');
  writeFileSync(join(root, 'big'), Buffer.alloc(1 << 20));
  utimesSync(join(root, 'a.jsonl'), 1_700_000_000.123456, 1_700_000_000.987654);
  symlinkSync(join(root, 'a.jsonl'), join(root, 'link-to-file'));
  symlinkSync(join(root, 'sub'), join(root, 'link-to-dir'));
  symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
  try {
    execFileSync('mkfifo', [join(root, 'fifo')]);
  } catch {
    // no mkfifo: the other kinds still cover OTHER
  }
  return root;
}

/** The stat a listing gives of a file (cursors/list-dir.ts `FileStat`), as statSync sees it. */
const statOf = (path: string): number[] => {
  const s = statSync(path);
  return [s.size, s.mtimeMs, s.ino, s.ctimeMs];
};

describe('listDir', () => {
  it.runIf(nativeKernel() !== undefined)('the kernel lists what readdirSync and statSync see: names, kinds, sizes, mtimes, inodes, ctimes', () => {
    const root = tree();
    const native = listDirNative(root);
    expect(native).not.toBeNull();
    expect(settled(root, native ?? null)).toEqual(settled(root, listDirJs(root)));
    const byName = new Map((native ?? []).map((e) => [e.name, e]));
    expect(byName.get('sub')?.kind).toBe(DIR);
    expect(byName.get('link-to-file')?.kind).toBe(OTHER);
    expect(byName.get('link-to-dir')?.kind).toBe(OTHER);
    expect(byName.get('dangling')?.kind).toBe(OTHER);
    expect(byName.get('with\nnewline')?.kind).toBe(FILE);
    const a = statSync(join(root, 'a.jsonl'));
    expect(byName.get('a.jsonl')?.stat).toEqual({ size: a.size, mtimeMs: a.mtimeMs, ino: a.ino, ctimeMs: a.ctimeMs });
    expect(byName.get('big')?.stat?.size).toBe(1 << 20);
    expect(native?.map((e) => e.name).sort()).toEqual(readdirSync(root).sort());
  });

  it('sorts by name and answers [] for a missing directory or a file, with or without the kernel', () => {
    const root = tree();
    for (const flag of ['1', '0']) {
      process.env.SESSIONFOLD_NATIVE_LISTING = flag;
      const names = listDir(root).map((e) => e.name);
      expect(names).toEqual([...names].sort());
      expect(listDir(join(root, 'missing'))).toEqual([]);
      expect(listDir(join(root, 'a.jsonl'))).toEqual([]);
      expect(listDir(`${root}\0x`)).toEqual([]);
    }
  });

  it('a file gone after the listing has no stat', () => {
    const root = tree();
    writeFileSync(join(root, 'soon-gone'), 'x');
    const entries = listDirJs(root) ?? [];
    rmSync(join(root, 'soon-gone'));
    const e = entries.find((x) => x.name === 'soon-gone') as DirEntry;
    expect(fileStat(root, e)).toBeUndefined();
  });

  it.runIf(nativeKernel() !== undefined)('a listing over 64 entries and 4 KiB of names grows its buffers', () => {
    const root = mkdtempSync(join(tmp, 'many-'));
    for (let i = 0; i < 300; i++) writeFileSync(join(root, `${'n'.repeat(40)}-${i}.jsonl`), String(i));
    expect(settled(root, listDirNative(root) ?? null)).toEqual(settled(root, listDirJs(root)));
  });
});

/** Tree entries as plain data, each FILE's stat taken (relative paths rebuilt from depths). */
function treeData(root: string, entries: TreeEntry[]): unknown[] {
  const dirs: string[] = [root];
  return entries.map((e) => {
    const dir = dirs[e.depth] as string;
    dirs[e.depth + 1] = join(dir, e.name);
    return { depth: e.depth, name: e.name, kind: e.kind, stat: e.kind === FILE ? (fileStat(dir, e) ?? 'gone') : null };
  });
}

function treeWith(): string {
  const root = mkdtempSync(join(tmp, 'deep-'));
  const mk = (...p: string[]) => mkdirSync(join(root, ...p), { recursive: true });
  const put = (p: string[], body = 'x') => writeFileSync(join(root, ...p), body);
  mk('b', 's1', 'subagents');
  mk('b', 's1', 'tool-results');
  mk('a', 'other');
  mk('\u{1F600}emoji');
  mk('\uFF01fullwidth');
  mk('z', 'y', 'x', 'w', 'v');
  put(['b', 's1', 'subagents', 'agent-1.jsonl']);
  put(['b', 's1', 'tool-results', 'big.txt'], 'y'.repeat(3000));
  put(['b', 'top.jsonl']);
  put(['a', 'other', 'f.jsonl']);
  put(['z', 'y', 'x', 'w', 'v', 'deep.jsonl']);
  put(['\u{1F600}emoji', 'e.jsonl']);
  put(['\uFF01fullwidth', 'f.jsonl']);
  put(['Zed.jsonl']);
  put(['\u00e9t\u00e9.jsonl']);
  mk('real-sub');
  put(['real-sub', 'agent-2.jsonl']);
  mk('c', 's2');
  symlinkSync(join(root, 'real-sub'), join(root, 'c', 's2', 'subagents'));
  symlinkSync(join(root, 'b'), join(root, 'link-dir'));
  return root;
}

describe('listTree', () => {
  const shapes: [string, string[], number][] = [
    ['everything', [], 64],
    ['two levels', [], 2],
    ['only subagents at depth 2 (Claude)', ['', '', 'subagents'], 4],
    ['only named at depth 0', ['b'], 3],
  ];
  it.runIf(nativeKernel() !== undefined).each(shapes)('%s: the kernel and the readdir walk agree entry for entry', (_name, only, depth) => {
    const root = treeWith();
    expect(listDirNative(root)).not.toBeUndefined(); // the kernel's side is the kernel's
    process.env.SESSIONFOLD_NATIVE_LISTING = '0';
    const js = treeData(root, listTree(root, only, depth));
    delete process.env.SESSIONFOLD_NATIVE_LISTING;
    const native = treeData(root, listTree(root, only, depth));
    expect(js.length).toBeGreaterThan(3);
    expect(native).toEqual(js);
  });

  it('orders names as JavaScript compares them (UTF-16 code units), enters a linked folder only by name', () => {
    const root = treeWith();
    const top = listTree(root, [], 1).map((e) => e.name);
    expect(top).toEqual([...top].sort());
    expect(top.indexOf('\u{1F600}emoji')).toBeLessThan(top.indexOf('\uFF01fullwidth')); // a surrogate pair sorts before U+FF01
    const claude = listTree(root, ['', '', 'subagents'], 4);
    expect(claude.some((e) => e.depth === 3 && e.name === 'agent-2.jsonl')).toBe(true); // c/s2/subagents, a link
    expect(claude.some((e) => e.name === 'big.txt')).toBe(false); // tool-results/ is not entered
    expect(listTree(root, [], 64).some((e) => e.depth > 0 && e.name === 'top.jsonl' && e.depth === 1)).toBe(true);
    expect(listTree(root, [], 64).filter((e) => e.name === 'link-dir').map((e) => e.kind)).toEqual([OTHER]);
    expect(listTree(join(root, 'missing'), [], 3)).toEqual([]);
  });
});

async function discovered(codec: Codec, roots: string[]): Promise<SessionFile[]> {
  const out: SessionFile[] = [];
  for await (const f of codec.discover(roots)) out.push(f);
  return out;
}

describe('discovery with the kernel and without', () => {
  const cases: [Codec, string[]][] = [
    [claude, [join(SHARED, 'claude'), join(FIXTURES, 'claude')]],
    [codex, [join(SHARED, 'codex'), join(FIXTURES, 'codex')]],
  ];
  it.runIf(nativeKernel() !== undefined).each(cases.map(([c, r]) => [c.id, c, r] as const))('%s: the same files, order and stats, each stat equal to statSync', async (_id, codec, roots) => {
    process.env.SESSIONFOLD_NATIVE_LISTING = '0';
    const js = await discovered(codec, roots);
    delete process.env.SESSIONFOLD_NATIVE_LISTING;
    const native = await discovered(codec, roots);
    expect(js.length).toBeGreaterThan(0);
    expect(native).toEqual(js);
    for (const f of native) {
      const s = statSync(f.path);
      expect([f.size, f.mtimeMs, f.ino, f.ctimeMs]).toEqual([s.size, s.mtimeMs, s.ino, s.ctimeMs]);
    }
  });
});

/** The slow, obviously right discovery (readdirSync and a stat per file, path.join), as both codecs list. */
function referenceClaude(root: string): string[] {
  const ls = (d: string) => {
    try {
      return readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return [];
    }
  };
  const out: string[] = [];
  for (const p of ls(root).filter((e) => e.isDirectory())) {
    const dir = join(root, p.name);
    const entries = ls(dir);
    for (const e of entries) if (e.isFile() && e.name.endsWith('.jsonl')) out.push(join(dir, e.name));
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const sub = join(dir, e.name, 'subagents');
      for (const a of ls(sub)) if (a.isFile() && a.name.startsWith('agent-') && a.name.endsWith('.jsonl')) out.push(join(sub, a.name));
    }
  }
  return out;
}

function referenceRollouts(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
  return entries.flatMap((e) => (e.isDirectory() ? referenceRollouts(join(dir, e.name)) : e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl') ? [join(dir, e.name)] : []));
}

describe('discovery against a plain readdir walk', () => {
  const ID = '0199a213-81c0-7800-8aa1-bbab2a035a53';
  function projects(): string {
    const root = mkdtempSync(join(tmp, 'projects-'));
    const put = (p: string, body = '{}\n') => {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), body);
    };
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555.jsonl');
    put('-Users-dev-app/agent-abc.jsonl');
    put('-Users-dev-app/notes.txt');
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents/agent-b.jsonl');
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents/agent-b.meta.json');
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents/agent-a.jsonl');
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents/other.jsonl');
    put('-Users-dev-app/11111111-2222-4333-8444-555555555555/tool-results/agent-x.jsonl');
    put('subagents/agent-q.jsonl');
    put('subagents/renamed.jsonl');
    put('Ωmega/zz.jsonl');
    put('-linked/s/x');
    rmSync(join(root, '-linked/s'), { recursive: true });
    mkdirSync(join(root, '-linked/s'));
    symlinkSync(join(root, '-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents'), join(root, '-linked/s/subagents'));
    writeFileSync(join(root, 'stray.jsonl'), '{}\n');
    return root;
  }
  function rollouts(): string {
    const root = mkdtempSync(join(tmp, 'codex-'));
    const put = (p: string) => {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), '{}\n');
    };
    put(`sessions/2025/10/01/rollout-2025-10-01T10-00-00-${ID}.jsonl`);
    put(`sessions/2025/10/01/rollout-2025-10-01T09-00-00-${ID.replace('a53', 'a54')}.jsonl`);
    put('sessions/2025/10/02/notes.jsonl');
    put(`sessions/2025/10/02/deeper/rollout-x.jsonl`);
    put(`archived_sessions/rollout-2025-10-01T10-00-00-${ID}.jsonl`);
    put(`archived_sessions/rollout-2025-09-01T10-00-00-${ID.replace('a53', 'a55')}.jsonl`);
    return root;
  }

  it.each(['1', '0'])('Claude (native listing %s): the same paths in the same order, with the stats', async (flag) => {
    const root = projects();
    process.env.SESSIONFOLD_NATIVE_LISTING = flag;
    for (const r of [root, `${root}/`]) {
      const files = await discovered(claude, [r]);
      expect(files.map((f) => f.path)).toEqual(referenceClaude(root).map((p) => join(r, p.slice(root.length))));
      expect([...(claude.discoverSync?.([r]) ?? [])]).toEqual(files); // what a scan iterates
      for (const f of files) expect([f.size, f.mtimeMs, f.ino, f.ctimeMs]).toEqual(statOf(f.path));
      expect(files.find((f) => f.path.endsWith('subagents/agent-q.jsonl'))?.sessionId).toBe('agent-q');
      expect(files.filter((f) => f.path.includes('-linked')).length).toBe(2); // agent-a, agent-b through the link
    }
  });

  it.each(['1', '0'])('Codex (native listing %s): live rollouts, then archived ones not live, with the stats', async (flag) => {
    const root = rollouts();
    process.env.SESSIONFOLD_NATIVE_LISTING = flag;
    const files = await discovered(codex, [root]);
    expect([...(codex.discoverSync?.([root]) ?? [])]).toEqual(files); // what a scan iterates
    const live = referenceRollouts(join(root, 'sessions'));
    const liveNames = new Set(live.map((p) => p.split('/').pop()));
    const archived = referenceRollouts(join(root, 'archived_sessions')).filter((p) => !liveNames.has(p.split('/').pop()));
    expect(files.map((f) => f.path)).toEqual([...live, ...archived]);
    for (const f of files) expect([f.size, f.mtimeMs, f.ino, f.ctimeMs]).toEqual(statOf(f.path));
    expect(await discovered(codex, [join(root, 'sessions', '2025', '.', '10/')])).toEqual(
      referenceRollouts(join(root, 'sessions/2025/10')).map((p) => expect.objectContaining({ path: p })),
    );
  });
});
