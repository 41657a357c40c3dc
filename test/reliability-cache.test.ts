/**
 * The cache checks what it serves (issue 17, case 5, the stored report summaries): a summary damaged or
 * edited in the cache is never printed as the answer nor crashes the report; it is dropped with one warning
 * and the report folded again in the same run, and the next run is answered from a good one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { openSummary, sealSummary } from '../src/cache/folds.js';
import { claudeAssistant } from './helpers/claude-lines.js';
import { makeHome, sink, type Home } from './sessions-helpers.js';

const homes: Home[] = [];
afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

async function report(home: Home, cache: string) {
  const out = sink();
  const err = sink();
  const code = await runCli(['cost', 'report', '--json'], { stdout: out, stderr: err, env: { ...home.env, SESSIONFOLD_SOCKET: 'off', SESSIONFOLD_CACHE: cache } });
  return { code, out: out.text(), err: err.text() };
}

describe('stored report summaries carry a check', () => {
  it('seals and opens; a changed byte fails; an unsealed one is legacy', () => {
    const s = sealSummary('{"totalUsd":1.79}');
    expect(openSummary(s)).toBe('{"totalUsd":1.79}');
    expect(openSummary(s.replace('1.79', '1234.5'))).toBeUndefined();
    expect(openSummary('{"totalUsd":1.79}')).toBe('legacy');
  });

  const damage: [string, (stored: string) => string][] = [
    ['edited but valid', (s) => s.replace(/"totalUsd":[0-9.]+/, '"totalUsd":1234.5')],
    ['not JSON any more', (s) => s.slice(0, s.length - 7)],
  ];
  it.each(damage)('a summary %s: dropped with one warning, the true report printed, the next run clean', async (_name, spoil) => {
    const home = await makeHome();
    homes.push(home);
    const dir = join(home.claude, 'projects', '-tmp-p');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '44444444-4444-4444-8444-444444444444.jsonl'), `${claudeAssistant('44444444-4444-4444-8444-444444444444', '/tmp/p', 'c1', 40, '2026-05-01T10:00:00.000Z')}\n`);
    const cache = join(home.dir, 'c.db');
    const truth = await report(home, cache);
    expect(truth.code).toBe(0);
    const db = new Database(cache);
    const rows = db.prepare('SELECT key, summary FROM folds').all() as { key: string; summary: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) db.prepare('UPDATE folds SET summary = ? WHERE key = ?').run(spoil(r.summary), r.key);
    db.close();
    const after = await report(home, cache);
    expect(after.code).toBe(0);
    expect(after.out).toBe(truth.out);
    expect(after.err.match(/failed its check/g)).toHaveLength(1);
    const again = await report(home, cache);
    expect(again.out).toBe(truth.out);
    expect(again.err).toBe('');
  });
});

describe('stored segments that fail their check', () => {
  const spoil: [string, (b: Buffer) => void][] = [
    ['a bad magic', (b) => b.writeUInt32LE(0xdeadbeef, 0)],
    ['a token count changed in place (the body check)', (b) => b.writeDoubleLE(b.readDoubleLE(32 + 8 * ((b.readUInt32LE(4)) * 2)) + 1000, 32 + 8 * ((b.readUInt32LE(4)) * 2))],
  ];
  it.each(spoil)('%s: forgotten and read again in the same run, with one warning; the next run is clean', async (_name, damage) => {
    const home = await makeHome();
    homes.push(home);
    const dir = join(home.claude, 'projects', '-tmp-p');
    mkdirSync(dir, { recursive: true });
    for (const n of [1, 2, 3]) {
      const id = `55555555-5555-4555-8555-00000000000${n}`;
      writeFileSync(join(dir, `${id}.jsonl`), `${claudeAssistant(id, '/tmp/p', `s${n}`, 10 * n, `2026-05-0${n}T10:00:00.000Z`)}\n`);
    }
    const cache = join(home.dir, 'c.db');
    const truth = await report(home, cache);
    expect(truth.code).toBe(0);
    const db = new Database(cache);
    const seg = db.prepare('SELECT file_id, seq, data FROM segments ORDER BY file_id LIMIT 1').get() as { file_id: number; seq: number; data: Buffer };
    const bad = Buffer.from(seg.data);
    damage(bad);
    db.prepare('UPDATE segments SET data = ? WHERE file_id = ? AND seq = ?').run(bad, seg.file_id, seg.seq);
    db.prepare('DELETE FROM folds').run(); // no snapshot: the rows are read
    db.close();
    const after = await report(home, cache);
    expect(after.code).toBe(0);
    expect(after.out).toBe(truth.out);
    expect(after.err.match(/held damaged events of 1 file/g)).toHaveLength(1);
    const again = await report(home, cache);
    expect(again.out).toBe(truth.out);
    expect(again.err).toBe('');
  });
});
