/**
 * A 200 MB single line under `ulimit -v 1G` (issue 17): the line is skipped and reported (LINE_TOO_LONG,
 * counted), the lines after it are read, and memory stays bounded. The line driver never buffers a line
 * over `maxLineBytes` (default 64 MiB). Run in child processes: the CLI's `read`, and a library read that
 * reports its own peak RSS. Needs the build (dist/) like the other CLI tests.
 */
import { execFile } from 'node:child_process';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli/main.cjs');
const SID = '0d0d0d0d-1111-4222-8333-444444444444';
const BIG = 200 * 1024 * 1024;
const line = (i: number) =>
  JSON.stringify({ type: 'assistant', sessionId: SID, cwd: '/w', uuid: `u${i}`, timestamp: '2026-03-01T00:00:00.000Z', requestId: `r${i}`, message: { id: `m${i}`, role: 'assistant', model: 'claude-opus-4-1', content: [], usage: { input_tokens: 1, output_tokens: 10 + i } } });

let dir: string;
let file: string;
let bigAt: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-long-line-'));
  const projects = join(dir, 'home', '.claude', 'projects', '-w');
  await mkdir(projects, { recursive: true });
  file = join(projects, `${SID}.jsonl`);
  // Written in pieces: the test itself never holds the 200 MB line.
  const fd = openSync(file, 'w');
  try {
    const first = line(1) + '\n';
    writeSync(fd, first);
    bigAt = Buffer.byteLength(first);
    writeSync(fd, `{"type":"user","sessionId":"${SID}","message":{"role":"user","content":"`);
    const chunk = Buffer.alloc(1 << 20, 'x');
    for (let n = 0; n < BIG; n += chunk.length) writeSync(fd, chunk);
    writeSync(fd, '"}}\n' + line(2) + '\n');
  } finally {
    closeSync(fd);
  }
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `node args` under `ulimit -v 1 GiB`, in a sandbox HOME. */
function limited(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', `ulimit -v 1048576; exec node ${quoted}`],
      { env: { PATH: process.env.PATH, HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache') }, maxBuffer: 1 << 24, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('a 200 MB single line under ulimit -v 1 GiB', () => {
  it('read: skips and reports the line (LINE_TOO_LONG), reads the lines after it, exits 0', async () => {
    const r = await limited([CLI, 'read', file]);
    expect(r.stderr).not.toMatch(/RangeError|heap out of memory|Aborted|\n\s+at /);
    expect(r.code).toBe(0);
    const usage = r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; outputTokens?: number; offset: number }).filter((e) => e.type === 'usage');
    expect(usage.map((e) => e.outputTokens)).toEqual([11, 12]);
    expect(usage[1]!.offset).toBeGreaterThan(BIG);
    expect(r.stderr).toContain(`warning LINE_TOO_LONG: 1 line(s) of ${file}`);
    expect(r.stderr).toContain(`Line at byte ${bigAt}`);
  }, 120_000);

  it('a library read counts the skipped line and keeps its peak RSS far below the line', async () => {
    const script = `
      import { claude } from ${JSON.stringify(join(ROOT, 'dist/codecs/claude/index.js'))};
      const info = { bytes: 0, bytesCommitted: 0, lines: 0, events: 0, skippedLines: 0, filteredLines: 0 };
      const codes = [];
      let usage = 0;
      for await (const e of claude.read(${JSON.stringify(file)}, { info, onSkip: (e) => codes.push(e.code) })) if (e.type === 'usage') usage++;
      console.log(JSON.stringify({ usage, skipped: info.skippedLines, codes, committed: info.bytesCommitted, maxRssKb: process.resourceUsage().maxRSS }));
    `;
    const r = await limited(['--input-type=module', '-e', script]);
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as { usage: number; skipped: number; codes: string[]; committed: number; maxRssKb: number };
    expect(got).toMatchObject({ usage: 2, skipped: 1, codes: ['LINE_TOO_LONG'], committed: statSync(file).size });
    expect(got.maxRssKb).toBeLessThan(256 * 1024);
  }, 120_000);
});
