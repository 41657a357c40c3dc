/**
 * The shared codec test harness: every codec runs its fixtures through these.
 * - chunk invariance: identical events whole and in chunks of 1, 2, 3, 7, 64 bytes (stream-json's
 *   `readString(str, quant)` idea), through both the pure core (`parseSync`) and the file reader;
 * - resume equals full read: the file grows cut by cut, each read resumes from the last cursor, the consumer
 *   keeps events as the contract says (drop all on `restarted`, drop `replaced[kind]` trailing events
 *   otherwise), and the kept events per kind equal one full read of the whole file.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { Codec, ReadCursor, ReadOptions, ResumeStart, SessionFile } from '../../cursors/protocol/codec.js';
import { EVENT_KINDS, type EventKind, type SessionfoldEvent } from '../../cursors/protocol/events.js';
import { parseSync } from '../../cursors/sync.js';
import { unitRng } from './rng.js';

export const CHUNK_SIZES = [1, 2, 3, 7, 64] as const;

/** Every session file `codec.discover(roots)` finds, in its order. */
export async function discoverAll(codec: Codec, roots: readonly string[]): Promise<SessionFile[]> {
  const out: SessionFile[] = [];
  for await (const f of codec.discover(roots)) out.push(f);
  return out;
}

export async function readEvents(codec: Codec, file: string, options?: ReadOptions): Promise<SessionfoldEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of codec.read(file, options)) out.push(e);
  return out;
}

/** Events grouped by kind, in order. */
export function byKind(events: readonly SessionfoldEvent[]): Record<EventKind, SessionfoldEvent[]> {
  const out = Object.fromEntries(EVENT_KINDS.map((k) => [k, [] as SessionfoldEvent[]])) as Record<EventKind, SessionfoldEvent[]>;
  for (const e of events) out[e.type].push(e);
  return out;
}

/** Offsets just past every LF, plus 0 and the length. */
export function lineBoundaries(content: Buffer): number[] {
  const cuts = [0];
  for (let i = content.indexOf(10); i !== -1; i = content.indexOf(10, i + 1)) cuts.push(i + 1);
  if (cuts[cuts.length - 1] !== content.length) cuts.push(content.length);
  return cuts;
}

/** Deterministic pseudo-random cut points (mulberry32), mid-line and mid-character included. */
export function randomCuts(length: number, count: number, seed = 1): number[] {
  const rnd = unitRng(seed);
  const cuts = new Set<number>();
  for (let i = 0; i < count; i++) cuts.add(Math.floor(rnd() * (length + 1)));
  return [...cuts].sort((x, y) => x - y);
}

/** Same events whatever the chunking, through the file's own pure core (`lineCoreFor`) and through the file reader. */
export async function expectChunkInvariant(codec: Codec, file: string, options: ReadOptions = {}): Promise<SessionfoldEvent[]> {
  const { resume: _r, bufferSize: _b, ...rest } = options;
  const whole = await readEvents(codec, file, rest);
  const content = await readFile(file);
  const core = codec.lineCoreFor !== undefined ? codec.lineCoreFor(file) : codec.lineCore;
  if (core) {
    for (const chunkSize of CHUNK_SIZES) {
      const events = parseSync(core, content, { ...rest, chunkSize, file });
      expect(events, `parseSync chunkSize ${chunkSize}`).toEqual(whole);
    }
  }
  const fileSizes = content.length <= 64 * 1024 ? [...CHUNK_SIZES, 4096] : [64, 4096, 65536];
  for (const bufferSize of fileSizes) {
    const events = await readEvents(codec, file, { ...rest, bufferSize });
    expect(events, `file read bufferSize ${bufferSize}`).toEqual(whole);
  }
  return whole;
}

export interface ResumeRun {
  /** Per kind, the events a consumer keeps after the last read. */
  kept: Record<EventKind, SessionfoldEvent[]>;
  /** Per kind, one full read of the whole content. */
  full: Record<EventKind, SessionfoldEvent[]>;
  starts: ResumeStart[];
  cursors: ReadCursor[];
}

/**
 * Grow a file cut by cut (each cut a byte length of `content`), resuming each read from the previous cursor
 * (round-tripped through JSON), and keep events as the contract says. `beside`: files laid out around it in
 * both copies (a sidecar, an agent's config), by their paths relative to the folder `fileName` is relative to.
 */
export async function resumeAcrossCuts(
  codec: Codec,
  content: Buffer,
  cuts: readonly number[],
  options: ReadOptions = {},
  fileName = 'session.jsonl',
  beside: Readonly<Record<string, string>> = {},
): Promise<ResumeRun> {
  const dir = await mkdtemp(join(tmpdir(), 'sessionfold-resume-'));
  try {
    // Same file name in two folders: codecs that take the session id from the name see the same id.
    const growing = join(dir, 'growing', fileName);
    const whole = join(dir, 'whole', fileName);
    // fileName may hold folders: codecs that tell their formats apart by the path see the same path
    await mkdir(dirname(growing), { recursive: true });
    await mkdir(dirname(whole), { recursive: true });
    for (const [rel, text] of Object.entries(beside)) {
      for (const copy of ['growing', 'whole']) {
        await mkdir(dirname(join(dir, copy, rel)), { recursive: true });
        await writeFile(join(dir, copy, rel), text);
      }
    }
    await writeFile(whole, content);
    const full = byKind(await readEvents(codec, whole, options));
    const kept = byKind([]);
    const starts: ResumeStart[] = [];
    const cursors: ReadCursor[] = [];
    let cursor: ReadCursor | undefined;
    let written = 0;
    await writeFile(growing, '');
    const points = [...cuts.filter((c) => c >= 0 && c <= content.length), content.length];
    for (const cut of points) {
      if (cut > written) {
        await appendFile(growing, content.subarray(written, cut));
        written = cut;
      }
      let startCalls = 0;
      let cursorCalls = 0;
      const fresh: SessionfoldEvent[] = [];
      for await (const e of codec.read(growing, {
        ...options,
        resume: {
          from: cursor,
          onStart(s) {
            startCalls++;
            expect(fresh.length, 'onStart fires before any event').toBe(0);
            starts.push(s);
            if (s.restarted) for (const k of EVENT_KINDS) kept[k].length = 0;
            else
              for (const [k, n] of Object.entries(s.replaced) as [EventKind, number][]) {
                expect(kept[k].length, `replaced.${k} within what was kept`).toBeGreaterThanOrEqual(n);
                kept[k].length -= n;
              }
          },
          onCursor(u) {
            cursorCalls++;
            cursor = JSON.parse(JSON.stringify(u.cursor)) as ReadCursor;
            cursors.push(cursor);
          },
        },
      })) {
        fresh.push(e);
      }
      expect(startCalls, 'onStart fires exactly once').toBe(1);
      expect(cursorCalls, 'onCursor fires exactly once').toBe(1);
      for (const e of fresh) kept[e.type].push(e);
    }
    return { kept, full, starts, cursors };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Per kind, the kept events of a resumed, growing read equal one full read. */
export async function expectResumeEqualsFull(
  codec: Codec,
  content: Buffer,
  cuts: readonly number[],
  options: ReadOptions = {},
  fileName?: string,
  beside?: Readonly<Record<string, string>>,
): Promise<ResumeRun> {
  const run = await resumeAcrossCuts(codec, content, cuts, options, fileName, beside);
  for (const k of EVENT_KINDS) expect(run.kept[k], `kind ${k}`).toEqual(run.full[k]);
  return run;
}
