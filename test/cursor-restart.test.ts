/**
 * The cursor contract (../shared/seeds/cursors-and-versioning.md): a cursor that cannot be used restarts the
 * read from byte 0 with `restarted: true` and a reason; it never fails the read. Over real Codex and Claude
 * fixtures (a cursor whose fields or core state are wrong) and `sessionfold read --cursor` (built CLI).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Codec, JsonlCursor, ReadCursor, ResumeStart } from '../cursors/protocol/codec.js';
import { getCodec } from '../src/registry.js';
import { readEvents } from './helpers/codec-harness.js';

const run = promisify(execFile);
const REAL = new URL('../../shared/fixtures/real/', import.meta.url).pathname;
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const FILES: [string, string][] = [
  ['codex', join(REAL, 'codex', 'agent-sessions-v0.146-sanitized.jsonl')],
  ['claude', join(REAL, 'claude', 'agent-sessions-v2.1-sanitized-hooks-attachments.jsonl')],
];

async function cursorOf(codec: Codec, file: string): Promise<JsonlCursor> {
  let cursor: ReadCursor | undefined;
  for await (const _ of codec.read(file, { resume: { onCursor: (u) => (cursor = u.cursor) } })) void _;
  return cursor as JsonlCursor;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-cursor-restart-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('an unusable cursor restarts the read', () => {
  for (const [agent, file] of FILES) {
    it(`${agent}: wrong fields or a core state the codec cannot use give the full read, restarted with a reason`, async () => {
      const codec = getCodec(agent);
      const good = await cursorOf(codec, file);
      const full = await readEvents(codec, file);
      const state = good.state as { core: unknown };
      const bad: unknown[] = [
        { ...good, offset: 'twelve' },
        { ...good, prefixHash: 'not-a-hash' },
        { ...good, state: { ...state, core: { v: 99, junk: true } } },
      ];
      for (const from of bad) {
        let start: ResumeStart | undefined;
        const got = await readEvents(codec, file, { resume: { from: from as ReadCursor, onStart: (s) => (start = s) } });
        expect(start, JSON.stringify(from).slice(0, 120)).toEqual({ restarted: true, reason: 'cursor-invalid', replaced: {} });
        expect(got).toEqual(full);
      }
      // The good cursor still resumes: only the events it says it yields again (still open at its end).
      let start: ResumeStart | undefined;
      const resumed = await readEvents(codec, file, { resume: { from: good, onStart: (s) => (start = s) } });
      expect(start?.restarted).toBe(false);
      expect(resumed.length).toBe(Object.values(start?.replaced ?? {}).reduce((a, n) => a + n, 0));
    });
  }

  it('sessionfold read --cursor with a cursor of wrong fields restarts, says why, and saves a usable cursor', async () => {
    const [, file] = FILES[0] as [string, string];
    const cursorFile = join(tmp, 'c.json');
    await writeFile(cursorFile, JSON.stringify({ format: 'jsonl', version: 1, parser: 'codex@n1.p1', offset: -1, prefixHash: 'x' }));
    const cli = (args: string[]) => run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, HOME: tmp, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
    const r = await cli(['read', file, '--agent', 'codex', '--cursor', cursorFile]);
    const startLine = JSON.parse(r.stderr.split('\n')[0] as string) as Record<string, unknown>;
    expect(startLine).toMatchObject({ type: 'start', restarted: true, reason: 'cursor-invalid' });
    expect(r.stdout).toBe((await cli(['read', file, '--agent', 'codex'])).stdout);
    const saved = JSON.parse(await readFile(cursorFile, 'utf8')) as JsonlCursor;
    expect(saved.offset).toBeGreaterThan(0);
    const again = await cli(['read', file, '--agent', 'codex', '--cursor', cursorFile]);
    expect(JSON.parse(again.stderr.split('\n')[0] as string)).toMatchObject({ type: 'start', restarted: false });
  });
});
