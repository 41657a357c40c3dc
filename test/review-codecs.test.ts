/**
 * Defects found by a fresh-eyes review of the cursors and the claude / codex / sessionfold-jsonl codecs.
 * Each test names the behaviour a user relies on; each failed before its fix.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { claude } from '../codecs/claude/index.js';
import { codex } from '../codecs/codex/index.js';
import type { JsonlCursor, ReadCursor, ResumeStart } from '../cursors/protocol/codec.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { runCli } from '../src/cli/run.js';

const CLAUDE_LINE = '{"type":"user","sessionId":"s-1","cwd":"/w","message":{"role":"user","content":"hi"}}\n';

async function tmpDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'sf-review-'));
}

async function collect(it: AsyncIterable<SessionfoldEvent>): Promise<SessionfoldEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d) => (o += d));
  stderr.on('data', (d) => (e += d));
  const code = await runCli(args, { stdout, stderr, env: { HOME: tmpdir(), NO_COLOR: '1', TZ: 'UTC', COLUMNS: '200' } });
  return { code, stdout: o, stderr: e };
}

describe('reading a path that is not a session file', () => {
  it('a directory given to read() fails with IO_ERROR naming the path, for every JSONL codec', async () => {
    const dir = await tmpDir();
    for (const codec of [claude, codex]) {
      const err = await collect(codec.read(dir)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, codec.id).toBeInstanceOf(SessionfoldError);
      expect((err as SessionfoldError).code).toBe('IO_ERROR');
      expect((err as SessionfoldError).file).toBe(dir);
    }
  });

  it('`sessionfold read <dir>` reports IO_ERROR, not an internal crash with a stack trace', async () => {
    const dir = await tmpDir();
    const r = await cli(['read', dir, '--agent', 'claude']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error IO_ERROR: .*directory/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a cursor that is JSON null', () => {
  it('read() treats resume.from = null as no cursor: a full read that reports restarted', async () => {
    const dir = await tmpDir();
    const f = join(dir, 's-1.jsonl');
    await writeFile(f, CLAUDE_LINE);
    const starts: ResumeStart[] = [];
    let cursor: ReadCursor | undefined;
    const events = await collect(
      claude.read(f, { resume: { from: null as unknown as undefined, onStart: (s) => starts.push(s), onCursor: (u) => (cursor = u.cursor) } }),
    );
    expect(starts).toEqual([{ restarted: true, reason: 'no-cursor', replaced: {} }]);
    expect(events.map((e) => e.type)).toEqual(['session', 'message']);
    expect((cursor as JsonlCursor | undefined)?.offset).toBe(Buffer.byteLength(CLAUDE_LINE));
  });

  it('`sessionfold read --cursor` with a cursor file holding `null` reads from byte 0 instead of crashing', async () => {
    const dir = await tmpDir();
    const f = join(dir, 's-1.jsonl');
    const cp = join(dir, 'cursor.json');
    await writeFile(f, CLAUDE_LINE);
    await writeFile(cp, 'null\n');
    const r = await cli(['read', f, '--agent', 'claude', '--cursor', cp]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"type":"start"')) ?? '{}')).toMatchObject({ restarted: true });
  });
});

describe('strict reads from a stream', () => {
  it('a malformed line in strict mode fails with PARSE_ERROR and its byte offset, as a strict file read does', async () => {
    const { Readable } = await import('node:stream');
    const { readStreamEvents } = await import('../cursors/stream.js');
    const dir = await tmpDir();
    const f = join(dir, 's-1.jsonl');
    const content = CLAUDE_LINE + '{"type":"user",\n' + CLAUDE_LINE;
    await writeFile(f, content);
    const fromFile = await collect(claude.read(f, { strict: true })).then(
      () => undefined,
      (e: unknown) => e as SessionfoldError,
    );
    const fromStream = await collect(readStreamEvents(claude.lineCore!, Readable.from([Buffer.from(content)]), { strict: true })).then(
      () => undefined,
      (e: unknown) => e as SessionfoldError,
    );
    expect(fromFile?.code).toBe('PARSE_ERROR');
    expect(fromStream).toBeInstanceOf(SessionfoldError);
    expect(fromStream?.code).toBe(fromFile?.code);
    expect(fromStream?.byteOffset).toBe(Buffer.byteLength(CLAUDE_LINE));
  });
});

describe('sessionfold read --kinds', () => {
  it('an empty --kinds list is an INVALID_OPTION, not a silent read that yields nothing', async () => {
    const dir = await tmpDir();
    const f = join(dir, 's-1.jsonl');
    await writeFile(f, CLAUDE_LINE);
    for (const kinds of ['', ',']) {
      const r = await cli(['read', f, '--agent', 'claude', '--kinds', kinds]);
      expect(r.code, JSON.stringify(kinds)).toBe(1);
      expect(r.stderr).toMatch(/^error INVALID_OPTION: .*--kinds/);
      expect(r.stdout).toBe('');
    }
  });
});
