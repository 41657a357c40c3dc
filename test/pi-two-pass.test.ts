/**
 * pi's two-pass conversation read (codecs/pi/README.md, "Branches and resume"): a core whose threshold is 0
 * reads every file in two passes, one whose threshold is Infinity in one. On every real pi fixture and on
 * generated sessions (branches, compactions, a branch back past the open nodes, a new root, a huge line,
 * malformed lines), both give the same events in the same order, all kinds, usage only and raw, whatever
 * the chunks, and the same cursors at every line boundary and random cuts, so a resumed two-pass read
 * equals a full read exactly as the one-pass read does.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiCore, OPEN_BYTES, OPEN_NODES, pi, TWO_PASS_BYTES } from '../codecs/pi/index.js';
import type { Codec, ReadOptions } from '../cursors/protocol/codec.js';
import { createJsonlRead } from '../cursors/read-jsonl.js';
import { generatePiSession } from '../fixtures/generate/pi.js';
import { Rng } from '../fixtures/generate/prng.js';
import { expectChunkInvariant, lineBoundaries, randomCuts, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';
import { assistant, HEADER, jsonl, PI_SESSIONS, REAL_PI, user } from './pi-helpers.js';

function piWith(twoPassBytes: number): Codec {
  const core = createPiCore({ agent: 'pi', twoPassBytes });
  return { ...pi, lineCore: core, read: createJsonlRead(pi, core) };
}
const twoPass = piWith(0);
const onePass = piWith(Infinity);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-pi-two-pass-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Did the two-pass core really take two passes? Count the lines its core sees. */
function countingCore(twoPassBytes: number): { codec: Codec; lines: () => number } {
  const core = createPiCore({ agent: 'pi', twoPassBytes });
  let n = 0;
  const counted = { ...core, line: (...a: Parameters<typeof core.line>) => (n++, core.line(...a)) };
  return { codec: { ...pi, lineCore: counted, read: createJsonlRead(pi, counted) }, lines: () => n };
}

async function expectSameReads(file: string, chunks = true): Promise<void> {
  for (const options of [{}, { kinds: ['usage'] }, { kinds: ['message', 'usage'] }, { raw: true }] as ReadOptions[]) {
    const one = await readEvents(onePass, file, options);
    expect(await readEvents(twoPass, file, options), JSON.stringify(options)).toEqual(one);
    for (const bufferSize of chunks ? [7, 4096] : [65536]) expect(await readEvents(twoPass, file, { ...options, bufferSize })).toEqual(one);
    if (chunks) expect(await expectChunkInvariant(twoPass, file, options)).toEqual(one);
  }
  expect(await readEvents(twoPass, file)).toEqual(await readEvents(pi, file));
}

async function expectSameResume(content: Buffer, cuts: readonly number[], options: ReadOptions = {}, name?: string): Promise<void> {
  const one = await resumeAcrossCuts(onePass, content, cuts, options, name);
  const two = await resumeAcrossCuts(twoPass, content, cuts, options, name);
  expect(two.full).toEqual(one.full);
  expect(two.kept).toEqual(two.full);
  expect(two.starts).toEqual(one.starts);
  expect(two.cursors).toEqual(one.cursors);
}

const cutsOf = (content: Buffer, n = 30) => [...new Set([...lineBoundaries(content), ...randomCuts(content.length, n, content.length)])].sort((a, b) => a - b);

async function generated(name: string, bytes: number): Promise<string> {
  const file = join(dir, name, '2026-05-01T09-00-00-000Z_gen.jsonl');
  generatePiSession(file, bytes, new Rng(`two-pass/${name}`));
  return file;
}

describe('pi two-pass read: the same as one pass', () => {
  it('the default threshold keeps small files in one pass and takes two for large ones', async () => {
    expect(TWO_PASS_BYTES).toBeGreaterThan(0);
    const file = await generated('count', 40_000);
    const lines = (await readFile(file)).toString().split('\n').filter((l) => l.length > 0).length;
    const one = countingCore(Infinity);
    await readEvents(one.codec, file);
    expect(one.lines()).toBe(lines);
    const two = countingCore(0);
    await readEvents(two.codec, file);
    expect(two.lines()).toBe(2 * lines);
    const usageOnly = countingCore(0);
    await readEvents(usageOnly.codec, file, { kinds: ['usage'] });
    expect(usageOnly.lines()).toBeLessThanOrEqual(lines);
  });

  it.each(PI_SESSIONS)('%s (real): same events whatever the chunks, all kinds, usage only and raw', async (name) => {
    await expectSameReads(`${REAL_PI}${name}.jsonl`);
  });

  it.each(PI_SESSIONS)('%s (real): same cursors and events resuming at every line boundary and random cuts', async (name) => {
    const content = await readFile(`${REAL_PI}${name}.jsonl`);
    await expectSameResume(content, cutsOf(content), {}, `${name}.jsonl`);
  });

  it('a generated session with branches, compactions and model changes', async () => {
    const file = await generated('gen', 800_000);
    const messages = async (options: ReadOptions) => (await readEvents(onePass, file, options)).filter((e) => e.type === 'message').length;
    expect(await messages({ raw: true }), 'some messages are off the branch').toBeGreaterThan(await messages({}));
    await expectSameReads(file);
    const content = await readFile(file);
    await expectSameResume(content, [...lineBoundaries(content).filter((_, i) => i % 4 === 0), ...randomCuts(content.length, 10, 3)].sort((a, b) => a - b));
    await expectSameResume(content, randomCuts(content.length, 12, 7), { kinds: ['message', 'usage'] });
  });

  it(`branches back past ${OPEN_NODES} entries, a new root, a line over ${OPEN_BYTES} bytes and malformed lines`, async () => {
    const records: unknown[] = [HEADER];
    let parent: string | null = null;
    for (let i = 0; i < OPEN_NODES + 3; i++) {
      records.push(user(`u${i}`, parent, `q${i}`), assistant(`a${i}`, `u${i}`, `r${i}`, 10 + i, 5));
      parent = `a${i}`;
    }
    const big = { type: 'message', id: 'big', parentId: 'a2', timestamp: '2026-01-01T01:00:00.000Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'x'.repeat(OPEN_BYTES + 10) }], isError: false } };
    records.push(user('late', 'a1', 'back'), assistant('late-a', 'late', 'again'), big, user('root2', null, 'fresh'), assistant('r2a', 'root2', 'ok', 7, 3), user('tail', 'late-a', 'tail'));
    const text = jsonl(records).toString().split('\n');
    text.splice(5, 0, '{not json', '[1,2]');
    const content = Buffer.from(text.join('\n'));
    const file = join(dir, 'deep.jsonl');
    await writeFile(file, content);
    await expectSameReads(file, false);
    const one = await readEvents(onePass, file);
    expect(one.filter((e) => e.type === 'message').length).toBeGreaterThan(0);
    await expectSameResume(content, lineBoundaries(content).filter((_, i) => i % 3 === 0 || i > text.length - 10));
  });

  it('lines the first pass\'s field scanner leaves to JSON.parse, and ones it answers for', async () => {
    const lines = [
      JSON.stringify(HEADER),
      JSON.stringify(user('u1', null, 'q1')),
      // an escaped key spelling `parentId`, tabs and a CR around the JSON, a duplicate key (the last wins)
      '{"type":"message","id":"a1","\\u0070arentId":"u1","timestamp":"2026-01-01T00:10:00.000Z","message":{"role":"assistant","content":[],"usage":{"input":3,"output":4}}}',
      '\t{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:11:00.000Z","message":{"role":"user","content":"q2"}}\r',
      '{"type":"message","id":"u3","parentId":"u1","parentId":"u2","timestamp":"2026-01-01T00:12:00.000Z","message":{"role":"user","content":"q3"}}',
      // escaped values of projected fields, and a session_info named with escapes
      '{"type":"session_info","id":"s\\u0031","parentId":"u3","name":"na\\u006De \\"q\\""}',
      '"a string"',
      '{"type":"message","id":"u4","parentId":"s1","message":{"role":"user","content":"x"},}',
      '{"type":"model_change","id":"m1","parentId":"s1","provider":"openai","modelId":"gpt-5"}',
      JSON.stringify(assistant('a2', 'm1', 'r2', 5, 6)),
    ];
    const content = Buffer.from(lines.join('\n') + '\n');
    const file = join(dir, 'scanner.jsonl');
    await writeFile(file, content);
    await expectSameReads(file);
    const events = await readEvents(twoPass, file);
    expect(events.filter((e) => e.type === 'message').length).toBeGreaterThan(3);
    expect(events.some((e) => e.type === 'session' && e.title === 'name "q"')).toBe(true);
    await expectSameResume(content, cutsOf(content));
  });

  it('a strict read fails at the same malformed line, after the same events', async () => {
    const content = Buffer.from(jsonl([HEADER, user('a', null, 'A'), assistant('b', 'a', 'B')]).toString() + '{broken\n' + jsonl([user('c', 'b', 'C')]).toString());
    const file = join(dir, 'strict.jsonl');
    await writeFile(file, content);
    const outcome = async (codec: Codec) => {
      const seen: string[] = [];
      try {
        for await (const e of codec.read(file, { strict: true })) seen.push(e.type);
        return { seen, error: undefined };
      } catch (e) {
        return { seen, error: (e as { code?: string }).code };
      }
    };
    const one = await outcome(onePass);
    expect(one.error).toBe('PARSE_ERROR');
    expect(await outcome(twoPass)).toEqual(one);
  });
});
