/**
 * The walls of ARCHITECTURE.md, checked over the import graph of the tree (every relative import, type-only
 * ones included, static and dynamic). A new crossing fails here; the last cases show that the check fails on
 * one, so it cannot pass by reading nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['cursors', 'codecs', 'src'];

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** File → the project files it imports (paths relative to the root, `.js` specifiers mapped to `.ts`). */
export function importGraph(files: ReadonlyMap<string, string>): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of files) {
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), m[1]!)).replace(/\.js$/, '.ts');
      deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

interface Wall {
  name: string;
  /** Whether `from` may import `to`; both are root-relative paths. */
  allows(from: string, to: string): boolean;
}

const top = (p: string) => p.split('/')[0]!;
/**
 * Codecs of agents that write another agent's format, and the one public file of that agent's codec they
 * read it through (ARCHITECTURE.md, "The walls"): omp, Senpi and gajae-code are forks of pi, and Kimchi and OpenClaw
 * write their transcripts with pi's SessionManager.
 */
const FORMAT_FAMILIES: Record<string, readonly string[]> = {
  // Cherry Studio runs Claude Code and pi, which write their own files.
  'cherry-studio': ['codecs/claude/index.ts', 'codecs/claude/descriptor.ts', 'codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  // Claude Desktop's Cowork runs Claude Code, which writes its transcripts.
  cowork: ['codecs/claude/index.ts', 'codecs/claude/descriptor.ts'],
  omp: ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  senpi: ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  'prime-agent': ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  kimchi: ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  gjc: ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  openclaw: ['codecs/pi/index.ts', 'codecs/pi/descriptor.ts'],
  roo: ['codecs/cline/index.ts', 'codecs/cline/descriptor.ts', 'codecs/cline/paths.ts'],
  // Kilo Code's extension keeps Cline's tasks; Kilo CLI is OpenCode's engine.
  kilo: ['codecs/cline/index.ts', 'codecs/cline/descriptor.ts', 'codecs/cline/paths.ts', 'codecs/opencode/index.ts', 'codecs/opencode/descriptor.ts'],
  // MiMo Code is a fork of OpenCode, its database OpenCode's tables.
  mimo: ['codecs/opencode/index.ts', 'codecs/opencode/descriptor.ts'],
  // WorkBuddy runs the CodeBuddy CLI, which writes its transcripts.
  workbuddy: ['codecs/codebuddy/index.ts', 'codecs/codebuddy/descriptor.ts'],
};
const inCli = (p: string) => p.startsWith('src/cli/');
/** The fold a file of src/ is in (`cost` for src/cost/fold.ts); undefined for the CLI, which sits above them all, and for src/*.ts. */
const foldOf = (p: string): string | undefined => {
  const [root, dir, file] = p.split('/');
  return root === 'src' && file !== undefined && dir !== 'cli' ? dir : undefined;
};
/** The modules of src/ below every fold (src/*.ts: the registry, the shared helpers), the package barrels left out. */
const isShared = (p: string) => /^src\/[^/]+\.ts$/.test(p) && p !== 'src/index.ts' && p !== 'src/codec-objects.ts';
/**
 * Every file of another fold that a fold may import (ARCHITECTURE.md, "The walls"); anything else of another
 * fold is its internals, and a helper two folds share lives below both, in src/*.ts (src/session-file.ts,
 * src/own-session.ts, src/key-table.ts). Into cost, sessions and store, only modules their index.ts
 * re-exports (their public surface); the scan engine and its event cache are one engine in two folders.
 */
export const FOLD_IMPORTS: Record<string, readonly string[]> = {
  // The cache stores what the scan reads (its records, segments and diffs); the scan asks the cache first.
  cache: ['src/scan/parse-file.ts', 'src/scan/record-diff.ts', 'src/scan/segment.ts', 'src/scan/types.ts'],
  scan: ['src/cache/db.ts', 'src/cache/listing-memo.ts', 'src/cache/paths.ts', 'src/cache/rows.ts', 'src/cache/store.ts'],
  // The totals fold runs over the scan and keeps its snapshots and answers in the cache; the report asks the
  // SessionManager which sessions have usage their agent has not recorded yet (src/cost/report.ts).
  cost: [
    'src/cache/answer-memo.ts', 'src/cache/db.ts', 'src/cache/folds.ts', 'src/cache/paths.ts', 'src/cache/store.ts',
    'src/scan/discover.ts', 'src/scan/index.ts', 'src/scan/options.ts', 'src/scan/select.ts', 'src/scan/sources.ts', 'src/scan/types.ts',
    'src/sessions/manager.ts',
  ],
  // The server watches what discovery lists and shares the cache's connection.
  serve: ['src/cache/db.ts', 'src/scan/discover.ts'],
  // A session's cost is the cost fold's (its pricer, types and totals); lists go through the scan and the cache.
  sessions: [
    'src/cache/listing-memo.ts', 'src/cache/paths.ts', 'src/cache/summaries.ts',
    'src/cost/overrides.ts', 'src/cost/pricing.ts', 'src/cost/total.ts', 'src/cost/types.ts',
    'src/scan/discover.ts', 'src/scan/index.ts', 'src/scan/sources.ts',
  ],
  // The store imports a session of any agent through the SessionManager and writes it as sessionfold JSONL.
  store: ['src/sessions/export.ts', 'src/sessions/ids.ts', 'src/sessions/manager.ts', 'src/sessions/types.ts'],
};
const isRenderer = (p: string) => p.startsWith('src/cli/render/') || p === 'src/cli/output.ts';

export const WALLS: Wall[] = [
  { name: 'cursors/ imports no other folder of the project', allows: (f, t) => top(f) !== 'cursors' || top(t) === 'cursors' },
  {
    name: 'the protocol (cursors/protocol/) imports nothing but itself',
    allows: (f, t) => !f.startsWith('cursors/protocol/') || t.startsWith('cursors/protocol/'),
  },
  {
    name: 'a codec imports only cursors/ (protocol included) and its own folder',
    allows: (f, t) => top(f) !== 'codecs' || top(t) === 'cursors' || f.split('/')[1] === t.split('/')[1] || (FORMAT_FAMILIES[f.split('/')[1]!] ?? []).includes(t),
  },
  {
    // The package barrel (src/index.ts, with the codec objects it names: src/codec-objects.ts) names the
    // built-in codecs for users; it is no fold.
    name: 'folds reach codecs only through the registry (src/builtin-codecs.ts)',
    allows: (f, t) => top(f) !== 'src' || top(t) !== 'codecs' || f === 'src/builtin-codecs.ts' || f === 'src/index.ts' || f === 'src/codec-objects.ts',
  },
  {
    name: "a fold imports another fold's file only where FOLD_IMPORTS allows it",
    allows: (f, t) => {
      const [from, to] = [foldOf(f), foldOf(t)];
      return from === undefined || to === undefined || from === to || (FOLD_IMPORTS[from] ?? []).includes(t);
    },
  },
  { name: 'the shared modules of src/ (src/*.ts) import no fold', allows: (f, t) => !isShared(f) || foldOf(t) === undefined },
  { name: 'only src/cli/ imports the renderers', allows: (f, t) => !isRenderer(t) || inCli(f) },
  { name: 'nothing outside src/cli/ imports the CLI', allows: (f, t) => !inCli(t) || inCli(f) },
];

/** Every project file `from` reaches through imports (itself excluded). */
export function reach(graph: Graph, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [...(graph.get(from) ?? [])];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...(graph.get(f) ?? []));
  }
  return seen;
}

/**
 * What `serve` (src/serve/) reaches that it must not: the CLI or a renderer. The server computes and sends
 * data, the client hands it back; only src/cli/ turns it into text (ARCHITECTURE.md, "serve").
 */
export function serveReachesText(graph: Graph): string[] {
  const out: string[] = [];
  for (const from of [...graph.keys()].filter((f) => f.startsWith('src/serve/')).sort()) {
    for (const to of [...reach(graph, from)].sort()) if (inCli(to) || isRenderer(to)) out.push(`${from} -> ${to}`);
  }
  return out;
}

export function crossings(graph: Graph): string[] {
  const out: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      for (const w of WALLS) if (!w.allows(from, to)) out.push(`${from} -> ${to}: ${w.name}`);
    }
  }
  return out;
}

/** Every circle among files, each as the path that closes it (Tarjan's strongly connected components). */
export function circles(graph: Graph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

function treeGraph(): Graph {
  const files = new Map<string, string>();
  for (const dir of FOLDERS) for (const f of sourceFiles(dir)) files.set(f, readFileSync(join(ROOT, f), 'utf8'));
  return importGraph(files);
}

describe('the walls', () => {
  const graph = treeGraph();

  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].reduce((n, d) => n + d.length, 0)).toBeGreaterThan(300);
  });

  it('no import crosses a wall', () => {
    expect(crossings(graph)).toEqual([]);
  });

  it('serve (src/serve/**) reaches nothing of src/cli/** and no renderer, directly or through another file', () => {
    expect([...graph.keys()].filter((f) => f.startsWith('src/serve/')).length).toBeGreaterThan(4);
    expect(serveReachesText(graph)).toEqual([]);
    // the check sees a crossing, a direct one and one through a fold
    const bad = new Map(graph);
    bad.set('src/serve/evil.ts', ['src/cli/render/cost.ts']);
    bad.set('src/serve/evil2.ts', ['src/cost/evil-fold.ts']);
    bad.set('src/cost/evil-fold.ts', ['src/cli/evil-render.ts']);
    // (with whatever the renderer itself imports, which changes as it does)
    expect(serveReachesText(bad).filter((c) => c.includes('evil'))).toEqual(
      expect.arrayContaining(['src/serve/evil.ts -> src/cli/render/cost.ts', 'src/serve/evil2.ts -> src/cli/evil-render.ts']),
    );
  });

  it('no circle among files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('fails on a crossing added to the tree', () => {
    const bad = new Map(graph);
    bad.set('cursors/evil.ts', ['src/registry.ts']);
    bad.set('codecs/evil/index.ts', ['src/cost/index.ts', 'codecs/claude/parse.ts']);
    bad.set('src/sessions/evil.ts', ['codecs/claude/index.ts', 'src/cli/output.ts']);
    bad.set('cursors/protocol/evil.ts', ['cursors/core.ts']);
    expect(crossings(bad).filter((c) => c.includes('evil'))).toEqual([
      'cursors/evil.ts -> src/registry.ts: cursors/ imports no other folder of the project',
      'codecs/evil/index.ts -> src/cost/index.ts: a codec imports only cursors/ (protocol included) and its own folder',
      'codecs/evil/index.ts -> codecs/claude/parse.ts: a codec imports only cursors/ (protocol included) and its own folder',
      'src/sessions/evil.ts -> codecs/claude/index.ts: folds reach codecs only through the registry (src/builtin-codecs.ts)',
      'src/sessions/evil.ts -> src/cli/output.ts: only src/cli/ imports the renderers',
      'src/sessions/evil.ts -> src/cli/output.ts: nothing outside src/cli/ imports the CLI',
      'cursors/protocol/evil.ts -> cursors/core.ts: the protocol (cursors/protocol/) imports nothing but itself',
    ]);
  });

  it("fails on a fold reaching into another fold's internals, or a shared module into a fold", () => {
    const bad = new Map(graph);
    bad.set('src/cost/evil.ts', ['src/sessions/get.ts', 'src/sessions/manager.ts', 'src/session-file.ts']);
    bad.set('src/sessions/evil.ts', ['src/cost/fold-ledger.ts', 'src/cost/pricing.ts', 'src/cli/run.ts']);
    bad.set('src/serve/evil.ts', ['src/sessions/manager.ts']);
    bad.set('src/evil.ts', ['src/cost/types.ts', 'src/registry.ts']);
    expect(crossings(bad).filter((c) => c.includes('evil') && !c.includes('src/cli/'))).toEqual([
      "src/cost/evil.ts -> src/sessions/get.ts: a fold imports another fold's file only where FOLD_IMPORTS allows it",
      "src/sessions/evil.ts -> src/cost/fold-ledger.ts: a fold imports another fold's file only where FOLD_IMPORTS allows it",
      "src/serve/evil.ts -> src/sessions/manager.ts: a fold imports another fold's file only where FOLD_IMPORTS allows it",
      'src/evil.ts -> src/cost/types.ts: the shared modules of src/ (src/*.ts) import no fold',
    ]);
  });

  it('allows exactly the cross-fold imports the tree makes, each into a public module where the fold has an index.ts', () => {
    const used = new Set<string>();
    for (const [from, deps] of graph) for (const to of deps) if (foldOf(from) !== undefined && foldOf(to) !== undefined && foldOf(from) !== foldOf(to)) used.add(`${foldOf(from)} -> ${to}`);
    const allowed = Object.entries(FOLD_IMPORTS).flatMap(([fold, files]) => files.map((t) => `${fold} -> ${t}`));
    expect([...used].sort()).toEqual([...allowed].sort());
    for (const to of new Set(Object.values(FOLD_IMPORTS).flat())) {
      const index = join(ROOT, 'src', foldOf(to)!, 'index.ts');
      if (!['cost', 'sessions', 'store'].includes(foldOf(to)!)) continue;
      expect([to, readFileSync(index, 'utf8').includes(`from './${to.split('/')[2]!.replace(/\.ts$/, '.js')}'`)]).toEqual([to, true]);
    }
  });

  it('lets a format family reach only the family codec\'s index.ts', () => {
    const g: Graph = new Map([
      ['codecs/omp/index.ts', ['codecs/pi/index.ts', 'codecs/pi/parse.ts']],
      ['codecs/openclaw/meta.ts', ['codecs/pi/index.ts', 'codecs/claude/index.ts']],
    ]);
    expect(crossings(g)).toEqual([
      'codecs/omp/index.ts -> codecs/pi/parse.ts: a codec imports only cursors/ (protocol included) and its own folder',
      'codecs/openclaw/meta.ts -> codecs/claude/index.ts: a codec imports only cursors/ (protocol included) and its own folder',
    ]);
  });

  it('finds a circle added to the tree', () => {
    const g = importGraph(new Map([
      ['src/a.ts', "import { b } from './b.js';"],
      ['src/b.ts', "import type { c } from './c.js';"],
      ['src/c.ts', "export const c = await import('./a.js');"],
      ['src/d.ts', "import './a.js';"],
    ]));
    expect(circles(g)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});
