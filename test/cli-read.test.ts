/**
 * The `sessionfold read` contract, as a subprocess: concatenating the stdout of successive `--cursor` runs,
 * after dropping what each start line says, equals one full read, per kind.
 */
import { execFile, spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS, type EventKind } from '../cursors/protocol/events.js';

const run = promisify(execFile);
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'sf-cli-home-'));
});

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' };
}

async function cli(args: string[], input?: string | Buffer): Promise<{ stdout: string; stderr: string; code: number }> {
  if (input === undefined) {
    try {
      const r = await run(process.execPath, [CLI, ...args], { env: env(), maxBuffer: 64 << 20 });
      return { ...r, code: 0 };
    } catch (e) {
      const x = e as { stdout: string; stderr: string; code: number };
      return { stdout: x.stdout, stderr: x.stderr, code: x.code };
    }
  }
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { env: env() });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ stdout, stderr, code: code ?? -1 }));
    p.stdin.end(input);
  });
}

const header = JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: 's9', title: 'T' });
const msg = (i: number, usage = false) =>
  JSON.stringify({ type: 'sessionfold.message', index: i, role: i % 2 ? 'assistant' : 'user', content: `m${i} ✓`, ...(usage && { usage: { model: 'gpt-5', inputTokens: i, outputTokens: 1 } }) });

describe('sessionfold read', () => {
  it('successive --cursor runs, minus what each start line replaces, equal one full read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-cli-'));
    const file = join(dir, 's9.jsonl');
    const cursor = join(dir, 'cursor.json');
    const parts = [`${header}\n${msg(0)}\n${msg(1, true)}\n{"type":"sessionfold.mes`, `sage","index":2,"role":"user","content":"x"}\n`, '', `${msg(3, true)}\n${msg(4)}\n`];
    const kept: Record<EventKind, unknown[]> = Object.fromEntries(EVENT_KINDS.map((k) => [k, []])) as never;
    await writeFile(file, '');
    for (const p of parts) {
      await appendFile(file, p);
      const r = await cli(['read', file, '--agent', 'sessionfold-jsonl', '--cursor', cursor]);
      expect(r.code).toBe(0);
      const start = JSON.parse(r.stderr.split('\n')[0] as string);
      expect(start.type).toBe('start');
      if (start.restarted) for (const k of EVENT_KINDS) kept[k] = [];
      else for (const [k, n] of Object.entries(start.replaced) as [EventKind, number][]) kept[k].splice(kept[k].length - n, n);
      for (const line of r.stdout.split('\n').filter(Boolean)) {
        const e = JSON.parse(line);
        kept[e.type as EventKind].push(e);
      }
      const saved = JSON.parse(await readFile(cursor, 'utf8'));
      expect(saved).toMatchObject({ format: 'jsonl', version: 1, parser: 'sessionfold-jsonl@n1.p5' });
    }
    const full = await cli(['read', file, '--agent', 'sessionfold-jsonl']);
    const all = full.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const k of EVENT_KINDS) expect(kept[k]).toEqual(all.filter((e) => e.type === k));
    expect(all.filter((e) => e.type === 'message')).toHaveLength(5);
  });

  it('reads standard input with `-`, and --kinds filters', async () => {
    const text = `${header}\n${msg(0)}\n${msg(1, true)}\n`;
    const r = await cli(['read', '-', '--agent', 'export', '--kinds', 'usage'], text);
    expect(r.code).toBe(0);
    const events = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(events).toMatchObject([{ type: 'usage', inputTokens: 1, sessionId: 's9' }]);
  });

  it('gives the same events and byte offsets on stdin as from a file, through invalid UTF-8 and CRLF', async () => {
    // A line with bytes that are not UTF-8 (0xff 0xfe), then CRLF line ends: offsets count bytes, not characters.
    const bytes = Buffer.concat([
      Buffer.from(`${header}\r\n`),
      Buffer.from('{"type":"sessionfold.message","index":0,"role":"user","content":"bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(' ✓"}\r\n'),
      Buffer.from(`${msg(1, true)}\r\n${msg(2)}\n`),
    ]);
    const dir = await mkdtemp(join(tmpdir(), 'sf-cli-bytes-'));
    const file = join(dir, 's9.jsonl');
    await writeFile(file, bytes);
    const fromFile = await cli(['read', file, '--agent', 'export']);
    const fromStdin = await cli(['read', '-', '--agent', 'export'], bytes);
    expect(fromStdin.code).toBe(0);
    const events = fromStdin.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(events.map((e) => e.offset)).toEqual(expect.arrayContaining([bytes.indexOf('{"type":"sessionfold.message","index":1')]));
    expect(events.filter((e) => e.type === 'message')).toHaveLength(3);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    await rm(dir, { recursive: true, force: true });
  });

  it('fails with one clear line and a code for an unknown agent, a bad kind and a missing file', async () => {
    const unknown = await cli(['read', '/nope', '--agent', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error AGENT_NOT_FOUND: /);
    const kind = await cli(['read', '/nope', '--agent', 'export', '--kinds', 'usage,bogus']);
    expect(kind.code).toBe(1);
    expect(kind.stderr).toMatch(/^error INVALID_OPTION: /);
    const missing = await cli(['read', '/nope/x.jsonl', '--agent', 'export']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error SESSION_NOT_FOUND: /);
  });
});

describe('a closed stdout', () => {
  it('ends quietly when the reader goes away (`sessionfold … | head`)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-epipe-'));
    const file = join(dir, 'big.jsonl');
    await writeFile(file, [header, ...Array.from({ length: 20000 }, (_, i) => msg(i, true))].join('\n') + '\n');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [CLI, 'read', file, '--agent', 'sessionfold-jsonl'], { env: env() });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      p.stdout.once('data', () => p.stdout.destroy());
      p.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(result.code).toBe(0);
  });
});
