import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendToCorpus,
  CCUSAGE_CLAUDE_PROFILE,
  compareTotals,
  generateCorpus,
  planSizes,
  quantileOf,
  readCorpusDocs,
  UsageCollector,
  type ExpectedDocument,
  type GenerateResult,
} from '../fixtures/generate/index.js';
import { getCodec } from '../src/registry.js';
import type { EventKind } from '../cursors/protocol/events.js';

const scratch = mkdtempSync(join(tmpdir(), 'sf-generate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out.sort();
}

/** sha256 over every file's relative path and bytes, in path order (README.md files left out). */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  for (const p of walk(dir)) {
    if (p.endsWith('README.md')) continue;
    h.update(relative(dir, p));
    h.update('\0');
    h.update(readFileSync(p));
  }
  return h.digest('hex');
}

async function readWithCodecs(dir: string, kinds?: EventKind[]): Promise<UsageCollector> {
  const col = new UsageCollector();
  const env = { HOME: join(dir, '.home'), CLAUDE_CONFIG_DIR: join(dir, 'claude'), CODEX_HOME: join(dir, 'codex') };
  for (const id of ['claude', 'codex']) {
    const codec = getCodec(id);
    for await (const f of codec.discover(codec.defaultRoots(env))) {
      for await (const e of codec.read(f.path, { kinds })) if (e.type === 'usage') col.add(e);
    }
  }
  return col;
}

function lines(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

describe('corpus generator', () => {
  let corpus: GenerateResult;
  beforeAll(() => {
    corpus = generateCorpus({ out: join(scratch, 'main'), seed: 'test', scale: 0.01 });
  });

  it('writes the same bytes for the same seed, and other bytes for another seed', () => {
    const a = generateCorpus({ out: join(scratch, 'a'), seed: 'det', scale: 0.004 });
    const b = generateCorpus({ out: join(scratch, 'b'), seed: 'det', scale: 0.004 });
    const c = generateCorpus({ out: join(scratch, 'c'), seed: 'det2', scale: 0.004 });
    expect(treeHash(a.out)).toBe(treeHash(b.out));
    expect(treeHash(c.out)).not.toBe(treeHash(a.out));
    expect(a.expected).toEqual(b.expected);
  });

  it('sizes a full-scale Claude history by ccusage profile quantiles and total', () => {
    const sizes = planSizes(CCUSAGE_CLAUDE_PROFILE, 1);
    expect(sizes).toHaveLength(3142);
    const near = (got: number, want: number) => expect(Math.abs(got - want) / want).toBeLessThan(0.02);
    near(quantileOf(sizes, 0.5), 105_000);
    near(quantileOf(sizes, 0.9), 654_000);
    near(quantileOf(sizes, 0.95), 1_500_000);
    near(quantileOf(sizes, 0.99), 5_400_000);
    expect(quantileOf(sizes, 1)).toBe(87_000_000);
    near(sizes.reduce((a, b) => a + b, 0), 1.24e9);
    // Scaled down: fewer files, same median.
    const small = planSizes(CCUSAGE_CLAUDE_PROFILE, 0.01);
    expect(small).toHaveLength(31);
    near(quantileOf(small, 0.5), 105_000);
  });

  it('lays files out as Claude Code and Codex do, and the manifest matches the bytes', () => {
    const { manifest } = readCorpusDocs(corpus.out);
    const onDisk = walk(corpus.out).map((p) => relative(corpus.out, p));
    const jsonl = onDisk.filter((p) => p.endsWith('.jsonl'));
    expect(jsonl.sort()).toEqual(manifest.files.map((f) => f.path).sort());
    const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
    for (const f of manifest.files) {
      const abs = join(corpus.out, f.path);
      expect(statSync(abs).size).toBe(f.bytes);
      const ls = lines(abs);
      expect(ls).toHaveLength(f.lines);
      if (f.agent === 'claude') {
        const main = new RegExp(`^claude/projects/[A-Za-z0-9-]+/${uuid}\\.jsonl$`);
        const sub = new RegExp(`^claude/projects/[A-Za-z0-9-]+/(${uuid})/subagents/agent-a[0-9a-f]{16}\\.jsonl$`);
        expect(main.test(f.path) || sub.test(f.path), f.path).toBe(true);
        if (f.subagent) expect(onDisk).toContain(f.path.replace(/\.jsonl$/, '.meta.json'));
      } else {
        const m = /^codex\/sessions\/(\d{4})\/(\d{2})\/(\d{2})\/rollout-(\d{4})-(\d{2})-(\d{2})T\d{2}-\d{2}-\d{2}-([0-9a-f-]{36})\.jsonl$/.exec(f.path);
        expect(m, f.path).not.toBeNull();
        expect(`${m![1]}${m![2]}${m![3]}`).toBe(`${m![4]}${m![5]}${m![6]}`);
        const first = JSON.parse(ls[0]!) as { type: string; payload: { id: string } };
        expect(first.type).toBe('session_meta');
        expect(first.payload.id).toBe(m![7]);
      }
      let bad = 0;
      for (const l of ls) {
        try {
          const v: unknown = JSON.parse(l);
          if (v === null || typeof v !== 'object' || Array.isArray(v)) bad++;
        } catch {
          bad++;
        }
      }
      expect(bad, f.path).toBe(f.malformed);
    }
  });

  it('holds every real-world quirk the readers must handle', () => {
    const { manifest } = readCorpusDocs(corpus.out);
    const all = manifest.files.map((f) => ({ f, text: readFileSync(join(corpus.out, f.path), 'utf8') }));
    const claude = all.filter((x) => x.f.agent === 'claude').map((x) => x.text).join('');
    const codex = all.filter((x) => x.f.agent === 'codex').map((x) => x.text).join('');
    const has = (text: string, what: string | RegExp) => (typeof what === 'string' ? text.includes(what) : what.test(text));
    for (const what of ['"usage": {', '"model":"<synthetic>"', '"subtype":"compact_boundary"', '"isCompactSummary":true', /"toolUseResult":\{"status":"completed"[^\n]*"usage":\{/, /[\u4e00-\u9fff]/]) {
      expect(has(claude, what), `claude lines hold ${String(what)}`).toBe(true);
    }
    for (const what of ['"forked_from_id"', '"type":"compacted"', '"info":null']) expect(has(codex, what), `codex lines hold ${what}`).toBe(true);
    expect(manifest.files.some((f) => f.subagent)).toBe(true);
    expect(manifest.files.some((f) => f.subagent && f.copiedUsageEvents > 0)).toBe(true);
    expect(manifest.files.some((f) => f.agent === 'claude' && !f.subagent && f.copiedUsageEvents > 0)).toBe(true);
    expect(manifest.files.filter((f) => f.agent === 'claude').some((f) => f.malformed > 0)).toBe(true);
    expect(manifest.files.filter((f) => f.agent === 'codex').some((f) => f.malformed > 0)).toBe(true);
    // A streaming snapshot: one message id whose lines carry different output_tokens.
    const outputs = new Map<string, Set<number>>();
    for (const m of claude.matchAll(/"id":"(msg_[A-Za-z0-9]+)".*?"output_tokens": ?(\d+)/g)) {
      const s = outputs.get(m[1]!) ?? new Set<number>();
      s.add(Number(m[2]));
      outputs.set(m[1]!, s);
    }
    expect([...outputs.values()].some((s) => s.size > 1)).toBe(true);
    // A token_count repeated with unchanged totals.
    const tc = codex.split('\n').filter((l) => l.includes('"type":"token_count","info":{'));
    expect(tc.some((l, i) => i > 0 && l === tc[i - 1])).toBe(true);
  });

  it('matches what the claude and codex codecs read, to the token, per day and model (full and usage-only reads)', async () => {
    for (const kinds of [undefined, ['usage'] as EventKind[]]) {
      const found = await readWithCodecs(corpus.out, kinds);
      expect(compareTotals(corpus.expected, found.totals())).toEqual([]);
      expect(found.size).toBe(corpus.expected.totals.events);
    }
  });

  it('writes clean data where every line of a response repeats the same usage, and the codecs still agree', async () => {
    const clean = generateCorpus({ out: join(scratch, 'clean'), seed: 'test', scale: 0.005, clean: true });
    const text = walk(join(clean.out, 'claude')).filter((p) => p.endsWith('.jsonl')).map((p) => readFileSync(p, 'utf8')).join('');
    const usageById = new Map<string, Set<string>>();
    for (const l of text.split('\n')) {
      const m = /"id":"(msg_[A-Za-z0-9]+)"/.exec(l);
      const u = /"usage": ?(\{[^}]*\{[^}]*\}[^}]*\})/.exec(l);
      if (!m || !u) continue;
      const s = usageById.get(m[1]!) ?? new Set<string>();
      s.add(u[1]!.replace(/ /g, ''));
      usageById.set(m[1]!, s);
    }
    expect(usageById.size).toBeGreaterThan(10);
    expect([...usageById.values()].every((s) => s.size === 1)).toBe(true);
    expect(text).not.toContain('ephemeral_1h_input_tokens":1');
    const found = await readWithCodecs(clean.out, ['usage']);
    expect(compareTotals(clean.expected, found.totals())).toEqual([]);
  });

  it('appends whole turns the way agents do: the prefix is untouched and expected.json follows', async () => {
    const dir = join(scratch, 'append');
    const g = generateCorpus({ out: dir, seed: 'append', scale: 0.004 });
    const before = new Map(g.manifest.files.map((f) => [f.path, readFileSync(join(dir, f.path))]));
    const r = appendToCorpus({ dir, bytes: 200_000, files: 2 });
    expect(r.files).toHaveLength(2);
    for (const f of r.files) {
      const now = readFileSync(join(dir, f.path));
      expect(now.length).toBe(f.toBytes);
      expect(f.toBytes - f.fromBytes).toBeGreaterThanOrEqual(200_000);
      expect(now.subarray(0, f.fromBytes).equals(before.get(f.path)!)).toBe(true);
      expect(f.usage.events).toBeGreaterThan(0);
    }
    const docs = readCorpusDocs(dir);
    expect(docs.expected.totals.events).toBe(g.expected.totals.events + r.added.events);
    expect(docs.manifest.appends).toBe(1);
    const found = await readWithCodecs(dir, ['usage']);
    expect(compareTotals(docs.expected as ExpectedDocument, found.totals())).toEqual([]);
  });

  it('adds one very large file of the requested size', () => {
    const g = generateCorpus({ out: join(scratch, 'huge'), seed: 'huge', scale: 0.001, agents: ['claude'], hugeFileBytes: 8_000_000 });
    const biggest = Math.max(...g.manifest.files.map((f) => f.bytes));
    expect(biggest).toBeGreaterThanOrEqual(8_000_000);
    expect(biggest).toBeLessThan(8_000_000 * 1.2);
  });

  it('makes the very large file a Codex rollout when asked, leaving every other file as it was', async () => {
    const spec = { seed: 'huge-codex', scale: 0.002, agents: ['codex'] as const };
    const plain = generateCorpus({ out: join(scratch, 'codex-plain'), ...spec });
    const g = generateCorpus({ out: join(scratch, 'codex-huge'), ...spec, hugeFileBytes: 3_000_000, hugeFileAgent: 'codex' });
    const huge = g.manifest.files.filter((f) => !plain.manifest.files.some((p) => p.path === f.path));
    expect(huge).toHaveLength(1);
    expect(huge[0]!.agent).toBe('codex');
    expect(huge[0]!.bytes).toBeGreaterThanOrEqual(3_000_000);
    expect(huge[0]!.bytes).toBeLessThan(3_000_000 * 1.2);
    for (const f of plain.manifest.files) expect(readFileSync(join(g.out, f.path)).equals(readFileSync(join(plain.out, f.path))), f.path).toBe(true);
    const found = await readWithCodecs(g.out, ['usage']);
    expect(compareTotals(g.expected as ExpectedDocument, found.totals())).toEqual([]);
    expect(() => generateCorpus({ out: join(scratch, 'codex-none'), ...spec, hugeFileBytes: 1000, hugeFileAgent: 'claude' })).toThrow(/not among the agents/);
  });

  it('bundles a demo history that is exactly what the generator makes (node dist/fixtures/generate/cli.js --out fixtures/demo --profile demo --seed demo --feature malformed=false)', () => {
    const demo = new URL('../fixtures/demo/', import.meta.url).pathname;
    const g = generateCorpus({ out: join(scratch, 'demo'), seed: 'demo', profile: 'demo', features: { malformed: false } });
    expect(treeHash(demo)).toBe(treeHash(g.out));
  });
});
