/**
 * The cache against a pure streaming scan, under random histories of a file: appends of whole lines and of
 * line fragments, lines that update the still-open usage (the test core's pending key, like Claude's
 * streamed rows, so resumed reads report `replaced`), rewrites that keep or drop lines, and (with a weak id
 * hash) resumed reads that must restart. After every step:
 *   - the cache's live records equal the uncached scan's;
 *   - every dedup key ever seen is still yielded, exactly once per key among live + retained records.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Codec } from '../cursors/protocol/codec.js';
import { registerCodec } from '../src/registry.js';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { scanUsage } from '../src/scan/index.js';
import { newScanStats, type ScanOptions, type UsageRecord } from '../src/scan/types.js';
import { makeTestCodec } from './helpers/test-core.js';
import { canonical, put, tempDir } from './scan-helpers.js';

function register(id: string, hash: (k: string) => number): void {
  const core = makeTestCodec(hash);
  const c: Codec = { ...core, id, discover: (roots) => sessionfoldJsonl.discover(roots) };
  registerCodec(c);
}
register('prop-strong', (k) => {
  let h = 2166136261;
  for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 16777619);
  return h >>> 0;
});
register('prop-weak', (k) => k.length); // collides all the time: resumed reads restart

type Op =
  | { op: 'line'; k: string; v: number }
  | { op: 'fragment'; k: string; v: number; cut: number }
  | { op: 'noise' }
  | { op: 'drop'; index: number }
  | { op: 'touch' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('line' as const), k: fc.constantFrom('a', 'bb', 'c', 'dé', 'e世', 'f', 'g'), v: fc.nat(99) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fragment' as const), k: fc.constantFrom('h', 'ij'), v: fc.nat(99), cut: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'noise' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), index: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'touch' as const }) },
);

async function scan(o: ScanOptions): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  for await (const r of scanUsage(o)) out.push(r);
  return canonical(out);
}

describe('event cache: random file histories', () => {
  it.each(['prop-strong', 'prop-weak'])('%s: the cache follows the file exactly and never forgets a key', async (agent) => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const dir = await tempDir('sf-prop-');
        const root = join(dir, 'r');
        const file = await put(join(root, 'f.jsonl'), '');
        const o: ScanOptions = { agents: [agent], roots: { [agent]: [root] }, cachePath: join(dir, 'c.db'), env: { HOME: dir }, workers: 0 };
        const ever = new Set<string>();
        let pendingFragment = '';
        for (const op of ops) {
          if (op.op === 'line') await appendFile(file, `${pendingFragment}${JSON.stringify({ k: op.k, v: op.v })}\n`);
          else if (op.op === 'fragment') {
            const line = `${pendingFragment}${JSON.stringify({ k: op.k, v: op.v })}\n`;
            const cut = Math.min(op.cut, line.length - 1);
            await appendFile(file, line.slice(0, cut));
            pendingFragment = line.slice(cut);
            continue;
          } else if (op.op === 'noise') await appendFile(file, `${pendingFragment}{"note":"no key"}\n`);
          else if (op.op === 'drop') {
            const lines = (await readFile(file, 'utf8')).split('\n');
            const last = lines.pop() as string; // '' or an unterminated fragment
            if (lines.length > 0) lines.splice(op.index % lines.length, 1);
            await writeFile(file, lines.length > 0 ? `${lines.join('\n')}\n${last}` : last);
            continue;
          } else await appendFile(file, '');
          pendingFragment = '';
          const stats = newScanStats();
          const cached = await scan({ ...o, stats });
          const fresh = await scan({ ...o, cache: false });
          expect(cached.filter((r) => !r.retained)).toEqual(fresh);
          for (const r of fresh) ever.add(r.dedupKey);
          const keys = cached.map((r) => r.dedupKey);
          expect(new Set(keys).size).toBe(keys.length);
          expect(new Set(keys)).toEqual(ever);
          runs++;
        }
      }),
      { numRuns: 40, seed: 93 },
    );
    expect(runs).toBeGreaterThan(40);
  });
});
