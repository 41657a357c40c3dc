/**
 * `sessionfold read <file> --agent claude` as a real subprocess (the built CLI in dist/), with an isolated
 * environment: full reads, the usage-only fast path, and resumable reads with --cursor.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import type { EventKind, SessionfoldEvent } from '../cursors/protocol/events.js';
import { byKind, readEvents } from './helpers/codec-harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const REAL = fileURLToPath(new URL('../../shared/fixtures/real/claude/', import.meta.url));
const PROJECTS = fileURLToPath(new URL('../fixtures/claude/projects', import.meta.url));
const SESSION = join(REAL, 'vibecodingtracker-real-session-v1.0.95-zh.jsonl');

/** Build dist/ when it is missing or older than the codec sources (npm test builds first anyway). */
beforeAll(async () => {
  const built = join(ROOT, 'dist', 'codecs', 'claude', 'parse.js');
  const src = join(ROOT, 'codecs', 'claude');
  const newest = Math.max(...(await readdir(src)).filter((f) => f.endsWith('.ts')).map((f) => statSync(join(src, f)).mtimeMs));
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < newest) {
    await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT }).catch(() => undefined);
  }
}, 180_000);

async function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const home = await mkdtemp(join(tmpdir(), 'sf-claude-home-'));
  return run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
    env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: PROJECTS, NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' },
  });
}

function ndjson(text: string): SessionfoldEvent[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as SessionfoldEvent);
}

describe('sessionfold read --agent claude (subprocess)', () => {
  it('streams the same events as the library read', async () => {
    const { stdout } = await cli(['read', SESSION, '--agent', 'claude']);
    expect(ndjson(stdout)).toEqual(await readEvents(claude, SESSION));
  });

  it('--kinds usage yields the same usage events as a full read', async () => {
    const { stdout } = await cli(['read', SESSION, '--agent', 'claude-code', '--kinds', 'usage']);
    const usage = ndjson(stdout);
    expect(usage.length).toBeGreaterThan(10);
    expect(usage).toEqual(byKind(await readEvents(claude, SESSION)).usage);
  });

  it('resumes with --cursor: each run reports what it replaces, and the kept output equals one full read', async () => {
    const content = await readFile(join(PROJECTS, '-Users-dev-app', '11111111-2222-4333-8444-555555555555.jsonl'));
    const dir = await mkdtemp(join(tmpdir(), 'sf-claude-cli-'));
    const file = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    const cursor = join(dir, 'cursor.json');
    // Cut inside the streamed response msg_A (after its second line, before the final snapshot).
    const lines = content.toString('utf8').split('\n');
    const head = lines.slice(0, 5).join('\n') + '\n';
    await writeFile(file, head);
    const kept: Record<string, SessionfoldEvent[]> = {};
    const starts: { restarted: boolean; replaced: Partial<Record<EventKind, number>> }[] = [];
    for (const step of [head, content.subarray(Buffer.byteLength(head))]) {
      if (step !== head) await appendFile(file, step);
      const { stdout, stderr } = await cli(['read', file, '--agent', 'claude', '--cursor', cursor]);
      const start = JSON.parse(stderr.split('\n')[0]!) as (typeof starts)[number];
      starts.push(start);
      if (start.restarted) for (const k of Object.keys(kept)) kept[k] = [];
      for (const [k, n] of Object.entries(start.replaced)) kept[k]!.length -= n!;
      for (const e of ndjson(stdout)) (kept[e.type] ??= []).push(e);
    }
    expect(starts[0]!.restarted).toBe(true);
    expect(starts[1]).toEqual({ type: 'start', restarted: false, replaced: { usage: 1 } });
    const full = byKind(await readEvents(claude, file));
    for (const [k, events] of Object.entries(full)) expect(kept[k] ?? [], k).toEqual(events);
  });
});
