/**
 * A codec's golden events may change only together with its parser version: the event cache re-reads a file
 * only when the version it was read under is no longer the codec's, so a parse rule that reads a file
 * differently under the same version leaves cached sessions on the old reading. fixtures/expected/
 * parser-versions.json keeps, per codec with golden files, the version and a digest of each of those files;
 * this test fails when a recorded file changed or went away and the version did not. After bumping
 * PARSER_VERSION, re-record with `UPDATE_PARSER_VERSIONS=1 npx vitest run test/parser-versions.test.ts`; the
 * recorder refuses a changed or removed file under an unchanged version, so re-recording cannot stand in for
 * the bump. A golden file added (new coverage) fails only until it is recorded the same way, with no bump.
 *
 * It sees only what the goldens show: a rule change no fixture exercises still needs its bump by hand.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORE_EVENT_VERSION } from '../cursors/protocol/events.js';
import { BUILTIN_CODECS } from '../src/builtin-codecs.js';
import { goldenDigests, recordProblem, type ParserRecord, type ParserRecords } from './helpers/parser-record.js';

const EXPECTED = new URL('../fixtures/expected/', import.meta.url).pathname;
const RECORD = join(EXPECTED, 'parser-versions.json');
const UPDATE = process.env.UPDATE_PARSER_VERSIONS === '1';

const versionOf = new Map(BUILTIN_CODECS.map((c) => [c.descriptor.id, c.descriptor.parserVersion]));
const goldenDirs = (await readdir(EXPECTED, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();

async function current(id: string, dir = join(EXPECTED, id)): Promise<ParserRecord> {
  return { coreEventVersion: CORE_EVENT_VERSION, parserVersion: versionOf.get(id)!, files: await goldenDigests(dir) };
}

/** The checked-in record; none yet reads as empty, so every codec asks to be recorded. */
async function loadRecords(): Promise<ParserRecords> {
  const text = await readFile(RECORD, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? '{}' : Promise.reject(e)));
  return JSON.parse(text) as ParserRecords;
}

describe('parser versions follow golden events (fixtures/expected/parser-versions.json)', () => {
  it('names a built-in codec with every golden folder', () => {
    expect(goldenDirs.filter((d) => !versionOf.has(d))).toEqual([]);
    expect(goldenDirs.length).toBeGreaterThan(10);
  });

  it('holds each codec’s current version and golden digests (a changed file needs a bumped PARSER_VERSION)', async () => {
    const recorded = await loadRecords();
    const now: ParserRecords = {};
    for (const id of goldenDirs) now[id] = await current(id);
    const problems = goldenDirs.map((id) => recordProblem(id, recorded[id], now[id]!)).filter((p) => p !== undefined);
    if (UPDATE && problems.every((p) => !p.refuse)) {
      await writeFile(RECORD, JSON.stringify(now, null, 2) + '\n');
      return;
    }
    expect(problems.map((p) => p.message)).toEqual([]);
    expect(Object.keys(recorded).sort()).toEqual(goldenDirs);
  });
});

describe('recordProblem', () => {
  const base: ParserRecord = { coreEventVersion: 1, parserVersion: 2, files: { 'a.events.jsonl': 'a'.repeat(64) } };
  const changed: ParserRecord = { ...base, files: { 'a.events.jsonl': 'b'.repeat(64) } };
  const added: ParserRecord = { ...base, files: { ...base.files, 'n.events.jsonl': 'c'.repeat(64) } };
  const tmp: string[] = [];
  afterAll(async () => {
    for (const d of tmp) await rm(d, { recursive: true, force: true });
  });

  it('passes an unchanged record', () => {
    expect(recordProblem('x', base, { ...base, files: { ...base.files } })).toBeUndefined();
  });

  it('refuses a changed or removed golden file under the same version, and says to bump PARSER_VERSION', () => {
    for (const now of [changed, { ...base, files: {} }]) {
      const p = recordProblem('qwen', base, now);
      expect(p?.refuse).toBe(true);
      expect(p?.message).toMatch(/a\.events\.jsonl.*Bump PARSER_VERSION in codecs\/qwen\/descriptor\.ts.*UPDATE_PARSER_VERSIONS=1/);
    }
  });

  it('asks to record a golden file added under the same version, without a bump', () => {
    const p = recordProblem('qwen', base, added);
    expect(p?.refuse).toBe(false);
    expect(p?.message).toMatch(/new golden files \(n\.events\.jsonl\): record them with UPDATE_PARSER_VERSIONS=1.*no PARSER_VERSION bump/);
    expect(p?.message).not.toMatch(/Bump/);
  });

  it('takes a raised parser or core version, with or without changed events, once re-recorded', () => {
    for (const now of [
      { ...base, parserVersion: 3 },
      { ...changed, parserVersion: 3 },
      { ...added, coreEventVersion: 2, files: {} },
    ]) {
      const p = recordProblem('x', base, now);
      expect(p?.refuse).toBe(false);
      expect(p?.message).toMatch(/re-record/);
    }
  });

  it('refuses a version that went down, and a missing entry asks to be recorded', () => {
    expect(recordProblem('x', base, { ...base, parserVersion: 1 })?.refuse).toBe(true);
    expect(recordProblem('x', { ...base, coreEventVersion: 2, parserVersion: 1 }, base)?.refuse).toBe(true);
    expect(recordProblem('x', undefined, base)).toEqual({ message: expect.stringMatching(/no entry/), refuse: false });
  });

  it('sees one changed byte of a real golden file, a golden file removed, and a golden file added', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parser-versions-'));
    tmp.push(dir);
    await cp(join(EXPECTED, 'zcode'), dir, { recursive: true });
    const before = await current('zcode', dir);
    expect(before.files).toEqual((await loadRecords()).zcode?.files);
    const name = (await readdir(dir))[0]!;
    const file = join(dir, name);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/"inputTokens":(\d)/, (_m, d: string) => `"inputTokens":${(Number(d) + 1) % 10}`));
    const edited = await current('zcode', dir);
    expect(edited.files[name]).not.toBe(before.files[name]);
    expect(recordProblem('zcode', before, edited)?.refuse).toBe(true);
    await writeFile(file, text);
    expect((await current('zcode', dir)).files).toEqual(before.files);
    await writeFile(join(dir, 'new.events.jsonl'), '');
    const grown = await current('zcode', dir);
    expect(recordProblem('zcode', before, grown)).toEqual({ message: expect.stringMatching(/new\.events\.jsonl.*record them/), refuse: false });
    await rm(file);
    expect(recordProblem('zcode', before, await current('zcode', dir))?.refuse).toBe(true);
  });
});
