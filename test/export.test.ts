/**
 * The export library: lines match schema/usage-event.schema.json, dedup keeps the first copy, filters,
 * prices, CSV quoting, and the export cursor (round trip, foreign files rejected, atomic save).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createBlocksFold } from '../src/cost/blocks.js';
import { foldCost } from '../src/cost/fold.js';
import { EXPORT_CSV_COLUMNS, exportCsvHeader, exportCsvRow, ExportCursor, exportUsage, exportUsageBatches, type UsageExportLine } from '../src/cost/export.js';
import { hashKey, KeyTable } from '../src/key-table.js';
import { parseOverrides } from '../src/cost/overrides.js';
import { createPricer } from '../src/cost/pricing.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import { usageRecord } from './helpers/usage-record.js';
import type { UsageRecord } from '../src/scan/types.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../schema/usage-event.schema.json', import.meta.url), 'utf8')) as JsonSchema;

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean;
  minimum?: number;
}

/** The subset of JSON Schema our schema files use; returns the violations. */
function validate(value: unknown, schema: JsonSchema, path = '$'): string[] {
  const errors: string[] = [];
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) errors.push(`${path}: ${t} is not ${types.join('|')}`);
  }
  if ('const' in schema && value !== schema.const) errors.push(`${path}: not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: not one of ${JSON.stringify(schema.enum)}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) errors.push(`${path}: < ${schema.minimum}`);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in o)) errors.push(`${path}.${k}: required`);
    for (const [k, v] of Object.entries(o)) {
      const sub = schema.properties?.[k];
      if (sub) errors.push(...validate(v, sub, `${path}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${k}: not allowed`);
    }
  }
  return errors;
}

const overrides = parseOverrides({ models: { alpha: { input_mtok: 1, output_mtok: 10 } } }, '<test>');
const pricer = createPricer({ mode: 'auto', overrides });

let seq = 0;
function rec(over: Partial<UsageRecord> = {}): UsageRecord {
  return usageRecord(++seq, over);
}

/** A copy of response `k<key>` at offset `i`: its file's session's own, or (`copied`) one copied from another session. */
function copyRec(x: { key: number; out: number; inp: number; file: string; copied: boolean }, i: number): UsageRecord {
  const sessionId = `${x.copied ? 'copy' : 'own'}${x.file}`;
  return rec({ dedupKey: `k${x.key}`, outputTokens: x.out, inputTokens: x.inp * 1000, file: x.file, offset: i, sessionId, copied: x.copied || undefined });
}

/** Responses per session among export lines (the last per key). */
function bySession(lines: Iterable<UsageExportLine>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) out[`${l.agent}:${l.sessionId}`] = (out[`${l.agent}:${l.sessionId}`] ?? 0) + 1;
  return out;
}

/** Responses per session as the totals fold counts them. */
async function sessionCounts(rs: UsageRecord[]): Promise<Record<string, number>> {
  const s = await foldCost(rs, { pricer, groupBy: 'session' });
  return Object.fromEntries(Object.values(s.breakdowns ?? {}).map((b) => [b.key, b.requestCount]));
}

async function all(records: UsageRecord[] | UsageRecord[][], o: Parameters<typeof exportUsage>[1] = {}): Promise<UsageExportLine[]> {
  const out: UsageExportLine[] = [];
  for await (const l of exportUsage(records, { pricer, timeZone: 'UTC', ...o })) out.push(l);
  return out;
}

describe('export lines', () => {
  it('match the JSON Schema, with every optional field present or absent', async () => {
    const lines = await all([
      rec(),
      rec({ cwd: '/w', provider: 'acme', messageId: 'm1', costUsd: 0.5, retained: true, modelFallback: true, model: 'unknown', speed: 'fast', webSearchRequests: 2 }),
      rec({ model: 'nobody-knows' }),
    ]);
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(validate(JSON.parse(JSON.stringify(l)), SCHEMA)).toEqual([]);
    expect(Object.keys(SCHEMA.properties ?? {}).sort()).toEqual([...new Set([...Object.keys(lines[1] as object), ...Object.keys(lines[0] as object)])].sort());
  });

  it('carry the cost in the chosen mode and say where it came from', async () => {
    const [calc, agent, none] = await all([rec(), rec({ costUsd: 0.5 }), rec({ model: 'nobody-knows' })]);
    expect(calc).toMatchObject({ usd: 0.002, costSource: 'calculated', unpriced: false });
    expect(agent).toMatchObject({ usd: 0.5, costUsd: 0.5, costSource: 'agent', unpriced: false });
    expect(none).toMatchObject({ usd: null, costSource: 'calculated', unpriced: true });
    const [recalc] = await all([rec({ costUsd: 0.5 })], { mode: 'calculate' });
    expect(recalc).toMatchObject({ usd: 0.002, costUsd: 0.5, costSource: 'calculated' });
  });

  it('export each dedup key once, and again when a later copy is larger (a correction: the last line per key counts)', async () => {
    const lines = await all([
      rec({ dedupKey: 'd', file: '/h/b.jsonl' }),
      rec({ dedupKey: 'd', file: '/h/a.jsonl', outputTokens: 999 }),
      rec({ dedupKey: 'e' }),
      rec({ dedupKey: 'd', file: '/h/c.jsonl', outputTokens: 5 }),
      rec({ dedupKey: 'e', file: '/h/e2.jsonl' }),
    ]);
    expect(lines.map((l) => [l.dedupKey, l.file])).toEqual([
      ['d', '/h/b.jsonl'],
      ['d', '/h/a.jsonl'],
      ['e', '/h/s1.jsonl'],
      ['e', '/h/e2.jsonl'],
    ]);
  });

  it('keep the fold’s copy of tied copies (same output, same sum, another split) in either arrival order', async () => {
    // The copies tie on output tokens and tokens in all; the fold keeps the smallest (file, offset): a.jsonl.
    const a = rec({ dedupKey: 'tie', file: '/h/a.jsonl', offset: 500, inputTokens: 1_000, cacheReadTokens: 0 });
    const b = rec({ dedupKey: 'tie', file: '/h/b.jsonl', offset: 100, inputTokens: 0, cacheReadTokens: 1_000 });
    const lastLine = async (rs: UsageRecord[]): Promise<UsageExportLine | undefined> => (await all(rs)).filter((l) => l.dedupKey === 'tie').at(-1);
    const ab = await lastLine([a, b]);
    const ba = await lastLine([b, a]);
    expect(ab).toEqual(ba);
    expect([ab?.file, ab?.offset]).toEqual(['/h/a.jsonl', 500]);
    for (const order of [[a, b], [b, a]]) {
      const fold = await foldCost(order, { pricer });
      expect([ab?.inputTokens, ab?.cacheReadTokens]).toEqual([fold.inputTokens, fold.cacheReadTokens]);
      expect(ab?.usd).toBeCloseTo(fold.totalUsd, 12);
      // The blocks fold counts the same copy.
      const blocks = createBlocksFold({ pricer, now: new Date('2026-01-10T13:00:00Z') });
      for (const r of order) blocks.add(r);
      const [w] = blocks.result().blocks;
      expect([w?.tokenCounts.inputTokens, w?.tokenCounts.cacheReadInputTokens]).toEqual([1_000, 0]);
    }
    // The same copy in the same file at a smaller offset beats it too.
    const c = rec({ ...a, offset: 400 });
    expect((await lastLine([a, c]))?.offset).toBe(400);
    expect((await lastLine([c, a]))?.offset).toBe(400);
  });

  it('keeping the last line per dedupKey gives the totals fold’s tokens and cost, in any record order', async () => {
    fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.integer({ min: 0, max: 6 }), out: fc.integer({ min: 0, max: 5 }), inp: fc.integer({ min: 0, max: 5 }), file: fc.constantFrom('/h/a.jsonl', '/h/b.jsonl'), copied: fc.boolean() }),
          { maxLength: 30 },
        ),
        async (spec) => {
          const rs = spec.map((x, i) => copyRec(x, i));
          const last = new Map<string, UsageExportLine>();
          for (const l of await all(rs)) last.set(l.dedupKey, l);
          const fold = await foldCost(rs, { pricer });
          let output = 0;
          let input = 0;
          let usd = 0;
          for (const l of last.values()) {
            output += l.outputTokens;
            input += l.inputTokens;
            usd += l.usd ?? 0;
          }
          expect(last.size).toBe(fold.requestCount);
          expect([output, input]).toEqual([fold.outputTokens, fold.inputTokens]);
          expect(usd).toBeCloseTo(fold.totalUsd, 9);
          expect(bySession(last.values())).toEqual(await sessionCounts(rs));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('apply the same filters as the cost fold', async () => {
    const rs = [rec({ agent: 'codex', cwd: '/w/a' }), rec({ timestamp: '2025-01-01T00:00:00Z', cwd: '/w/a' }), rec({ model: 'ALPHA-2', cwd: '/w/b' })];
    expect((await all(rs, { agent: 'codex' })).length).toBe(1);
    expect((await all(rs, { since: new Date('2026-01-01') })).length).toBe(2);
    expect((await all(rs, { cwd: '/w/a' })).length).toBe(2);
    expect((await all(rs, { model: 'alpha-2' })).length).toBe(1);
  });

  it('accept record batches and yield line batches', async () => {
    const batches: UsageExportLine[][] = [];
    for await (const b of exportUsageBatches([[rec(), rec()], [], [rec({ agent: 'x' })]], { pricer, agent: 'claude' })) batches.push(b);
    expect(batches.map((b) => b.length)).toEqual([2]);
  });
});

describe('CSV', () => {
  it('has a header of the schema fields and quotes fields that need it', async () => {
    expect(exportCsvHeader().split(',')).toEqual([...EXPORT_CSV_COLUMNS]);
    for (const c of EXPORT_CSV_COLUMNS) expect(SCHEMA.properties).toHaveProperty(c);
    const [l] = await all([rec({ cwd: '/w/a "b", c\nd', messageId: 'm' })]);
    const row = exportCsvRow(l as UsageExportLine);
    expect(row).toContain('"/w/a ""b"", c\nd"');
    expect(row.startsWith('claude,s1,/h/s1.jsonl,')).toBe(true);
    expect(row.endsWith(',0.002,calculated,false')).toBe(true);
  });
});

describe('export cursor', () => {
  const made: string[] = [];
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'sf-export-cursor-'));
    made.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a missing file starts empty; a saved cursor loads back with its keys and watermarks', async () => {
    const path = join(dir(), 'sub', 'cursor.json');
    const c = await ExportCursor.load(path);
    expect(c.keyCount).toBe(0);
    const first = await all([rec({ dedupKey: 'a', offset: 5 }), rec({ dedupKey: 'b', offset: 50, file: '/h/t.jsonl' }), rec({ dedupKey: 'c', offset: 70 })], { cursor: c });
    expect(first).toHaveLength(3);
    await c.save(new Date('2026-01-01T00:00:00Z'));
    expect(existsSync(`${path}.tmp`)).toBe(false);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc).toMatchObject({ version: 1, type: 'sessionfold.export-cursor', updatedAt: '2026-01-01T00:00:00.000Z', exported: 3, keys: { hash: 'xxh64', count: 3 } });
    expect(doc.files).toEqual({ '/h/s1.jsonl': { agent: 'claude', offset: 70, events: 2 }, '/h/t.jsonl': { agent: 'claude', offset: 50, events: 1 } });

    const again = await ExportCursor.load(path);
    // Copies of a and b that the fold does not prefer (a later offset, a file that sorts after) are not exported.
    const second = await all([rec({ dedupKey: 'a' }), rec({ dedupKey: 'b', file: '/h/u.jsonl' }), rec({ dedupKey: 'd', offset: 90 })], { cursor: again });
    expect(second.map((l) => l.dedupKey)).toEqual(['d']);
    expect(again.exported).toBe(4);
    expect(again.files.get('/h/s1.jsonl')).toEqual({ agent: 'claude', offset: 90, events: 3 });
  });

  /** One incremental run over `rs` with the cursor at `path` (loaded, then saved). */
  const run = async (path: string, rs: UsageRecord[]): Promise<UsageExportLine[]> => {
    const c = await ExportCursor.load(path);
    const out = await all(rs, { cursor: c });
    await c.save();
    return out;
  };
  /** The last line per dedupKey over the runs' outputs: what a warehouse keeps. */
  const lastPerKey = (...outputs: UsageExportLine[][]): Map<string, UsageExportLine> => new Map(outputs.flat().map((l) => [l.dedupKey, l]));

  it('an output count over the cursor\'s cap is exported once, then not again in later runs', async () => {
    // The cursor keeps output tokens capped at 2^31 - 2; a count above it (sane counts go to 1e10) must tie with
    // its own recorded copy, not beat it on every run.
    const path = join(dir(), 'cursor.json');
    const huge = (): UsageRecord => rec({ dedupKey: 'huge', file: '/h/h.jsonl', offset: 10, outputTokens: 2 ** 32 });
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) counts.push((await run(path, [huge()])).length);
    expect(counts).toEqual([1, 0, 0]);
    // A copy with more tokens in all still beats it (the rest of the rule decides at the cap).
    expect((await run(path, [rec({ dedupKey: 'huge', file: '/h/h.jsonl', offset: 10, outputTokens: 2 ** 32, inputTokens: 5_000 })])).length).toBe(1);
  });

  it('a later run exports the copy the fold prefers over the one an earlier run exported (a tie on tokens, or more tokens in all)', async () => {
    // a and b tie on output and tokens in all (another split): the fold keeps the smaller file, a.jsonl.
    // c has the output of both and more tokens in all: the fold keeps c over either.
    const b = rec({ dedupKey: 'tie', file: '/h/b.jsonl', offset: 100, inputTokens: 0, cacheReadTokens: 1_000 });
    const a = rec({ dedupKey: 'tie', file: '/h/a.jsonl', offset: 500, inputTokens: 1_000, cacheReadTokens: 0 });
    const c = rec({ dedupKey: 'tie', file: '/h/c.jsonl', offset: 50, inputTokens: 1_000, cacheReadTokens: 500 });
    for (const [earlier, later] of [
      [[b], [a, b]],
      [[b], [b, a]],
      [[a], [a, c]],
      [[b], [c, b, a]],
    ] as const) {
      const path = join(dir(), 'cursor.json');
      const first = await run(path, [...earlier]);
      const second = await run(path, [...later]);
      const fold = await foldCost([...later], { pricer });
      const kept = lastPerKey(first, second).get('tie');
      expect([kept?.inputTokens, kept?.cacheReadTokens, kept?.outputTokens]).toEqual([fold.inputTokens, fold.cacheReadTokens, fold.outputTokens]);
      expect(second).toHaveLength(1);
      // The correction is exported once: a third run over the same records exports nothing.
      expect(await run(path, [...later])).toEqual([]);
    }
  });

  it('a copy an earlier run exported, moved within its file with its tokens, is not exported again', async () => {
    const path = join(dir(), 'cursor.json');
    const at = (offset: number, outputTokens = 50): UsageRecord => rec({ dedupKey: 'moved', file: '/h/a.jsonl', offset, outputTokens });
    expect(await run(path, [at(500)])).toHaveLength(1);
    // The file was rewritten (or its messages renumbered): the response now sits earlier in the same file.
    expect(await run(path, [at(400)])).toEqual([]);
    expect(await run(path, [at(400), at(300)])).toEqual([]);
    // Within one run the fold's order still decides between copies of the same file.
    expect((await all([at(400), at(300)])).map((l) => l.offset)).toEqual([400, 300]);
    // More output tokens are a correction wherever the copy sits; so is a tie in a file that sorts first.
    expect((await run(path, [at(200, 51)])).map((l) => l.offset)).toEqual([200]);
    expect((await run(path, [rec({ dedupKey: 'moved', file: '/h/0.jsonl', offset: 900, outputTokens: 51 })])).map((l) => l.file)).toEqual(['/h/0.jsonl']);
  });

  it('a key an old cursor recorded no tokens for is never exported again, across saves', async () => {
    const path = join(dir(), 'cursor.json');
    await run(path, [rec({ dedupKey: 'old', outputTokens: 10 }), rec({ dedupKey: 'kept', outputTokens: 10 })]);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    delete doc.keys.values;
    delete doc.keys.copies;
    writeFileSync(path, JSON.stringify(doc));
    for (let i = 0; i < 2; i++) {
      expect(await run(path, [rec({ dedupKey: 'old', file: '/h/0.jsonl', outputTokens: 999 }), rec({ dedupKey: 'new' })])).toHaveLength(i === 0 ? 1 : 0);
      const saved = JSON.parse(readFileSync(path, 'utf8'));
      expect(saved.keys.count).toBe(3);
      expect((await ExportCursor.load(path)).keyCount).toBe(3);
    }
  });

  it('a copy that loses to the earlier run’s copy does not lower what a later copy must beat', async () => {
    const path = join(dir(), 'cursor.json');
    const x = rec({ dedupKey: 'grow', outputTokens: 100 });
    const first = await run(path, [x]);
    // y and z are smaller than x: the fold counts x; neither is exported, though z beats y.
    const y = rec({ dedupKey: 'grow', file: '/h/y.jsonl', outputTokens: 50 });
    const z = rec({ dedupKey: 'grow', file: '/h/z.jsonl', outputTokens: 60 });
    const second = await run(path, [y, z, x]);
    expect(second).toEqual([]);
    expect(lastPerKey(first, second).get('grow')?.outputTokens).toBe((await foldCost([x, y, z], { pricer })).outputTokens);
  });

  it('the last line per dedupKey over two incremental runs gives the totals fold’s tokens and cost', async () => {
    const root = dir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.integer({ min: 0, max: 5 }), out: fc.integer({ min: 0, max: 4 }), inp: fc.integer({ min: 0, max: 3 }), file: fc.constantFrom('/h/a.jsonl', '/h/b.jsonl', '/h/c.jsonl'), copied: fc.boolean() }),
          { maxLength: 24 },
        ),
        fc.nat(),
        fc.boolean(),
        async (spec, cut, reverse) => {
          // The first run sees some of the history; the second all of it (in either order), as --after does.
          const rs = spec.map((x, i) => copyRec(x, i));
          const path = join(root, `c${++n}.json`);
          const first = await run(path, rs.slice(0, rs.length === 0 ? 0 : cut % (rs.length + 1)));
          const second = await run(path, reverse ? [...rs].reverse() : rs);
          const last = lastPerKey(first, second);
          const fold = await foldCost(rs, { pricer });
          const sum = (f: (l: UsageExportLine) => number) => [...last.values()].reduce((s, l) => s + f(l), 0);
          expect(last.size).toBe(fold.requestCount);
          expect([sum((l) => l.outputTokens), sum((l) => l.inputTokens)]).toEqual([fold.outputTokens, fold.inputTokens]);
          expect(sum((l) => l.usd ?? 0)).toBeCloseTo(fold.totalUsd, 9);
          expect(bySession(last.values())).toEqual(await sessionCounts(rs));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a cursor written before copies were recorded still loads, and compares its keys by output tokens alone', async () => {
    const path = join(dir(), 'cursor.json');
    await run(path, [rec({ dedupKey: 'old', file: '/h/b.jsonl', outputTokens: 100 })]);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    delete doc.keys.copies;
    writeFileSync(path, JSON.stringify(doc));
    // A tied copy in a smaller file cannot be told from the exported one: not exported; a larger copy is.
    expect(await run(path, [rec({ dedupKey: 'old', file: '/h/a.jsonl', outputTokens: 100 })])).toEqual([]);
    expect((await run(path, [rec({ dedupKey: 'old', file: '/h/c.jsonl', outputTokens: 101 })])).map((l) => l.file)).toEqual(['/h/c.jsonl']);
    // The run recorded the exported copy: from now on the fold's rule applies to it.
    expect((await run(path, [rec({ dedupKey: 'old', file: '/h/a.jsonl', outputTokens: 101 })])).map((l) => l.file)).toEqual(['/h/a.jsonl']);
  });

  it.each([
    ['not JSON', '{ nope', /not valid JSON/],
    ['a cursor store', JSON.stringify({ version: 1, cursors: {} }), /not a sessionfold export cursor/],
    ['another version', JSON.stringify({ version: 2, type: 'sessionfold.export-cursor', keys: { data: '' } }), /not a sessionfold export cursor/],
  ])('rejects %s with CURSOR_INVALID instead of exporting everything again', async (_name, text, message) => {
    const path = join(dir(), 'c.json');
    writeFileSync(path, text);
    const err = await ExportCursor.load(path).catch((e: unknown) => e);
    expect(isSessionfoldError(err, 'CURSOR_INVALID')).toBe(true);
    expect((err as Error).message).toMatch(message);
  });
});

describe('KeyTable', () => {
  it('keeps values, grows, and round-trips its hashes through bytes', () => {
    const t = new KeyTable(4);
    for (let i = 0; i < 5000; i++) t.set(`key-${i}`, i);
    expect(t.size).toBe(5000);
    for (let i = 0; i < 5000; i += 7) expect(t.get(`key-${i}`)).toBe(i);
    expect(t.get('absent')).toBe(-1);
    expect(t.add('key-1')).toBe(false);
    expect(t.add('new')).toBe(true);
    // The bytes list each hash once, its value at the same index (an export cursor's keys and their rows).
    const hashes = t.toBytes();
    const values = t.valuesToBytes();
    expect([hashes.length, values.length]).toEqual([8 * 5001, 4 * 5001]);
    const byHash = new Map<string, number>();
    for (let i = 0; i < 5001; i++) byHash.set(hashes.subarray(8 * i, 8 * i + 8).toString('hex'), values.readUInt32BE(4 * i));
    const hex = (key: string): string => {
      const [hi, lo] = hashKey(key);
      const b = Buffer.alloc(8);
      b.writeUInt32BE(hi, 0);
      b.writeUInt32BE(lo, 4);
      return b.toString('hex');
    };
    expect(byHash.size).toBe(5001);
    expect([byHash.get(hex('key-4999')), byHash.get(hex('key-7')), byHash.get(hex('new')), byHash.get(hex('key-5000'))]).toEqual([4999, 7, 0, undefined]);
  });

  it('grows twofold by default and fourfold when asked, keeping every key', () => {
    const slotsAfter = (growth: 2 | 4 | undefined, keys: number): number => {
      const t = new KeyTable(16, growth);
      for (let i = 0; i < keys; i++) t.set(`key-${i}`, i);
      for (let i = 0; i < keys; i++) expect(t.get(`key-${i}`)).toBe(i);
      return t.raw().data.length / 4;
    };
    // 32 slots hold 16 keys at a load of 1/2; the 17th grows the table.
    expect([slotsAfter(undefined, 16), slotsAfter(undefined, 17), slotsAfter(4, 17), slotsAfter(4, 65)]).toEqual([32, 64, 128, 512]);
  });
});
