/**
 * CR-only line ends (issue 17): a lone CR (CR without LF) is not a JSONL line end. A file whose lines end
 * with CR alone reads, to an LF splitter, as one line that never ends; it must be reported (LINE_ENDING,
 * counted as a skipped line), never silently left out, and offsets stay byte-exact. Every source: memory
 * in chunks, a file through the JavaScript splitter and through the native line source.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude, claudeCore } from '../codecs/claude/index.js';
import { parseSync } from '../cursors/sync.js';
import { newReadInfo, type ReadInfo } from '../cursors/protocol/codec.js';
import type { SessionfoldError } from '../cursors/protocol/errors.js';
import { readEvents } from './helpers/codec-harness.js';

const SID = '0e0e0e0e-1111-4222-8333-444444444444';
const line = (i: number) =>
  JSON.stringify({ type: 'assistant', sessionId: SID, cwd: '/w', uuid: `u${i}`, timestamp: '2026-03-01T00:00:00.000Z', requestId: `r${i}`, message: { id: `m${i}`, role: 'assistant', model: 'claude-opus-4-1', content: [], usage: { input_tokens: 1, output_tokens: 10 + i } } });
const lines = [line(1), line(2), line(3)];

function memory(text: string, chunkSize?: number) {
  const info = newReadInfo();
  const warnings: SessionfoldError[] = [];
  const events = parseSync(claudeCore, text, { file: `/p/${SID}.jsonl`, info, onSkip: (e) => warnings.push(e), ...(chunkSize !== undefined && { chunkSize }) });
  return { events, info, warnings };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-line-ends-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fromFile(text: string, native: boolean) {
  const f = join(dir, `${native ? 'n' : 'j'}-${SID}.jsonl`);
  await writeFile(f, text);
  const was = process.env.SESSIONFOLD_NATIVE_LINES;
  if (!native) process.env.SESSIONFOLD_NATIVE_LINES = '0';
  try {
    const info: ReadInfo = newReadInfo();
    const warnings: SessionfoldError[] = [];
    const events = await readEvents(claude, f, { info, onSkip: (e) => warnings.push(e) });
    return { events, info, warnings };
  } finally {
    if (was === undefined) delete process.env.SESSIONFOLD_NATIVE_LINES;
    else process.env.SESSIONFOLD_NATIVE_LINES = was;
  }
}

describe('lone CR line ends', () => {
  const crOnly = lines.join('\r') + '\r';
  const firstCr = lines[0]!.length;

  it.each([undefined, 1, 2, 3, 7, 64])('reports a CR-only text as one skipped line with code LINE_ENDING (chunks of %s)', (chunk) => {
    const r = memory(crOnly, chunk);
    expect(r.events).toEqual([]);
    expect(r.warnings.map((w) => [w.code, w.byteOffset])).toEqual([['LINE_ENDING', firstCr]]);
    expect(r.warnings[0]!.message).toContain('3 lone CR line ends');
    expect(r.info.skippedLines).toBe(1);
    expect(r.info.bytesCommitted).toBe(0);
  });

  it.each([false, true])('reports it from a file too (native line source: %s), and commits nothing', async (native) => {
    const r = await fromFile(crOnly, native);
    expect(r.events).toEqual([]);
    expect(r.warnings.map((w) => [w.code, w.byteOffset])).toEqual([['LINE_ENDING', firstCr]]);
    expect(r.info.skippedLines).toBe(1);
    expect(r.info.bytesCommitted).toBe(0);
  });

  it('leaves a CR-only file to read() in the native usage engine (which reports it), and reads a CRLF one itself', async () => {
    const projects = join(dir, 'projects', '-w');
    await mkdir(projects, { recursive: true });
    const cr = join(projects, `${SID}.jsonl`);
    await writeFile(cr, crOnly);
    const got = await claude.scanUsage?.([cr]);
    if (got === undefined) return; // no native kernel: the cost scan reads with read(), tested above
    expect(got).toEqual([false]);
    await writeFile(cr, lines.join('\r\n') + '\r\n' + lines[0]);
    const crlf = await claude.scanUsage?.([cr]);
    expect(crlf?.[0] && crlf[0].events.length).toBe(3);
  });

  it.each([false, true])('reads CRLF lines whole and warns of nothing (native: %s)', async (native) => {
    const r = await fromFile(lines.join('\r\n') + '\r\n', native);
    expect(r.events.filter((e) => e.type === 'usage')).toHaveLength(3);
    expect(r.warnings).toEqual([]);
    expect(r.info.bytesCommitted).toBe(Buffer.byteLength(lines.join('\r\n') + '\r\n'));
  });

  it.each([1, 2, 3, 7, 64])('names a lone CR inside LF lines without counting the line twice (chunks of %s)', (chunk) => {
    // The second line holds a lone CR between two records: it is refused as malformed (counted once); the
    // warning says why; the offsets of the lines around it are unchanged.
    const text = `${lines[0]}\n${lines[1]}\r${lines[2]}\n${line(4)}\n`;
    const r = memory(text, chunk);
    expect(r.warnings.map((w) => w.code)).toEqual(['MALFORMED_LINE', 'LINE_ENDING']);
    expect(r.warnings[1]!.byteOffset).toBe(lines[0]!.length + 1 + lines[1]!.length);
    expect(r.info.skippedLines).toBe(1);
    expect(r.events.filter((e) => e.type === 'usage').map((e) => e.offset)).toEqual([0, text.lastIndexOf(line(4))]);
  });

  it('counts a CR at a chunk boundary followed by LF as CRLF, and a final CR as lone', () => {
    const crlf = `${lines[0]}\r\n`;
    for (let k = 1; k <= crlf.length; k++) expect(memory(crlf, k).warnings).toEqual([]);
    const r = memory(`${lines[0]}\n${lines[1]}\r`, 5);
    expect(r.warnings.map((w) => [w.code, w.byteOffset])).toEqual([['LINE_ENDING', lines[0]!.length + 1 + lines[1]!.length]]);
  });
});
