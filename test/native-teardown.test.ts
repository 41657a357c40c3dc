/**
 * A scan's jobs outlive the environment that started them: a Worker terminated while its native scans run
 * finalizes the engine's compiled projection, and the engines' threads are still walking lines with it
 * (native/binding.c keeps a reference per job), its threadsafe functions are freed with it, and the library
 * would be unloaded with it were it not pinned. The process must go on unharmed, and scan alike afterwards.
 * Runs in a child process (a Worker's teardown runs its finalizers; `--expose-gc` also collects the main
 * thread's garbage between Workers), over the built package. Before the fix this crashed 3 runs in 3.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { nativeKernel } from '../cursors/native.js';
import { jsonlFiles } from './helpers/files.js';

const DIST = fileURLToPath(new URL('../dist', import.meta.url));
const CHILD = fileURLToPath(new URL('./helpers/terminate-mid-scan.mjs', import.meta.url));
const LOCAL_CLAUDE = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));

describe.runIf(nativeKernel() !== undefined)('native engines: a Worker terminated mid-scan', () => {
  it('leaves the process running and the next scans exact', async () => {
    // A transcript of 3,000 responses under a session id's name (the engine reads only those).
    const dir = await mkdtemp(join(tmpdir(), 'sf-teardown-'));
    const sid = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
    const lines = [JSON.stringify({ type: 'user', cwd: '/w', sessionId: sid, uuid: 'u0', message: { role: 'user', content: 'go' } })];
    for (let i = 0; i < 3000; i++)
      lines.push(JSON.stringify({ type: 'assistant', sessionId: sid, uuid: `a${i}`, requestId: `req_${i}`, timestamp: '2025-06-01T00:00:00.000Z', message: { id: `msg_${i}`, model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text: 'x'.repeat(200) }], usage: { input_tokens: i, output_tokens: 1 } } }));
    const file = join(dir, `${sid}.jsonl`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const files = [file, ...(await jsonlFiles(LOCAL_CLAUDE))];
    const expected = ((await claude.scanUsage?.(files)) ?? []).reduce((n, r) => n + (r ? r.events.length : 0), 0);
    expect(expected).toBeGreaterThan(3000);
    // Many copies of the list: each Worker's jobs are still queued and running when it is terminated.
    const list = join(dir, 'files.txt');
    await writeFile(list, Array.from({ length: 40 }, () => files).flat().join('\n'));
    const r = await promisify(execFile)(process.execPath, ['--expose-gc', CHILD, DIST, '12', list], { maxBuffer: 1 << 20, timeout: 120_000 });
    expect(JSON.parse(r.stdout)).toEqual({ events: expected * 40 });
  }, 150_000);
});
