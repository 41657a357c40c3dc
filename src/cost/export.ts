/**
 * Bulk export of usage events (`sessionfold events export`): every selected usage event once, as one flat
 * line with its computed cost, in constant memory. The line shape is `schema/usage-event.schema.json`.
 *
 * Dedup is streaming: a dedup key is exported once, and again (a correction) whenever a later copy beats the
 * exported one by the totals fold's rule (`beatsCopy`: more output tokens, then more tokens in all, then the
 * lowest rank (a live copy before a retained one, a session's own copy before one copied from it), then the
 * smallest (file, offset)), so that keeping the last line per dedupKey gives the copy the totals fold counts
 * (which can wait for the end), in any arrival order. Copies across files are normally the same response
 * re-recorded, so corrections are rare. The seen-set is a KeyTable of 64-bit hashes, each naming a row of
 * the exported copy's output tokens, tokens in all, file and offset.
 *
 * Incremental export (`--after <cursor-file>`): the cursor file keeps the hashes of every key ever exported
 * (the authority: a resumed session that copies old responses into a new file re-exports only the copies the
 * fold prefers) plus a per-file watermark (highest line offset exported and event count) that records where
 * each file's export stands. It is written atomically (temp, fsync, rename) only after the export's output
 * was flushed. Per key it also keeps the exported copy (its output tokens, tokens in all, file and offset),
 * and a later run weighs each copy against it by the same rule as within a run: a response exported while
 * the agent was still writing it is exported again, once, when a later run sees its final copy, and so is a
 * copy the fold prefers that appears in another file later (a correction; consumers keep the last line per
 * dedupKey). A tied copy in the exported copy's own file is that response moved (a rewrite, renumbered
 * messages), not a correction: else every rewrite of a whole-document chat would export it all again.
 * Cursors that kept only the output tokens (or nothing) per key weigh those keys by output tokens alone (or
 * never export them again).
 */
import { readFile } from 'node:fs/promises';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { UsageRecord } from '../scan/types.js';
import { writeFileAtomic } from '../../cursors/store.js';
import { createRecordSelector, hashRecordKey, normalizeCostOptions, recordTime, type CostFoldOptions, type NormalizedCostOptions, type RecordSelector } from './filter.js';
import { csvField } from './csv.js';
import { HASH, KeyTable } from '../key-table.js';
import { beatsCopy, copyRank, copyTotal, Interner } from './fold-ledger.js';
import type { PriceSource } from './pricing.js';
import type { TokenCounts } from '../../cursors/protocol/events.js';

export { csvField } from './csv.js';

/** One exported usage event (schema/usage-event.schema.json). */
export interface UsageExportLine extends TokenCounts {
  type: 'usage';
  agent: string;
  sessionId: string;
  file: string;
  offset: number;
  cwd?: string;
  timestamp: string;
  model: string;
  modelFallback?: boolean;
  provider?: string;
  singleRequest: boolean;
  dedupKey: string;
  messageId?: string;
  /** The cost the agent recorded, if any. */
  costUsd?: number;
  /** Non-standard inference speed (e.g. Anthropic fast mode, billed at a multiple). */
  speed?: string;
  /** Server-side web searches, billed per search. */
  webSearchRequests?: number;
  /** Kept by the event cache after its file was rewritten or deleted. */
  retained?: boolean;
  /** The cost in the chosen mode; null when unpriced. */
  usd: number | null;
  costSource: PriceSource;
  unpriced: boolean;
}

/** CSV columns of the export, in order (the same names as the NDJSON fields). */
export const EXPORT_CSV_COLUMNS = [
  'agent',
  'sessionId',
  'file',
  'offset',
  'cwd',
  'timestamp',
  'model',
  'provider',
  'inputTokens',
  'outputTokens',
  'reasoningTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cacheWrite1hTokens',
  'singleRequest',
  'dedupKey',
  'messageId',
  'costUsd',
  'speed',
  'webSearchRequests',
  'usd',
  'costSource',
  'unpriced',
] as const satisfies readonly (keyof UsageExportLine)[];

/** The CSV header line of the export. */
export function exportCsvHeader(): string {
  return EXPORT_CSV_COLUMNS.join(',');
}

/** One export line as a CSV row (RFC 4180 quoting; absent fields empty). */
export function exportCsvRow(l: UsageExportLine): string {
  return EXPORT_CSV_COLUMNS.map((c) => csvField(l[c])).join(',');
}

/** Version of the export-cursor document. */
export const EXPORT_CURSOR_VERSION = 1;
/** `type` of the export-cursor document (tells it from a read cursor store). */
export const EXPORT_CURSOR_TYPE = 'sessionfold.export-cursor';

/** Per-file watermark of an incremental export. */
export interface ExportFileMark {
  agent: string;
  /** Highest line offset exported from the file. */
  offset: number;
  /** Events exported from the file, all runs together. */
  events: number;
}

/** The export-cursor document. */
export interface ExportCursorDocument {
  version: typeof EXPORT_CURSOR_VERSION;
  type: typeof EXPORT_CURSOR_TYPE;
  /** ISO-8601 time of the run that wrote it. */
  updatedAt: string;
  /** Events exported, all runs together. */
  exported: number;
  files: Record<string, ExportFileMark>;
  /** The exported dedup keys, as 64-bit xxhashes (8 bytes each, big-endian), base64. */
  keys: {
    hash: 'xxh64';
    count: number;
    data: string;
    /**
     * Per key, in the order of `data`: 1 + the output tokens of the exported copy (4 bytes each, big-endian),
     * base64; 0 for keys of cursors written before it existed (never re-exported).
     */
    values?: string;
    /**
     * Per key, in the order of `data`, the rest of the exported copy that `beatsCopy` weighs: its tokens in all
     * and offset (float64 each) and the index of its file in `files` (uint32, 0xffffffff when not recorded),
     * 20 bytes, big-endian, base64. Absent in cursors written before it existed: their keys are weighed by
     * `values` alone. `ranks`: per key its copy's `copyRank`, a byte each, base64 (absent: 0 for every key).
     */
    copies?: { files: string[]; data: string; ranks?: string };
  };
}

/** The state of an incremental export, loaded from and saved to its cursor file. */
export class ExportCursor {
  readonly path: string;
  readonly files: Map<string, ExportFileMark>;
  exported: number;

  private constructor(path: string, files: Map<string, ExportFileMark>, exported: number, copies: ExportedCopies) {
    this.path = path;
    this.files = files;
    this.exported = exported;
    CURSOR_COPIES.set(this, copies);
  }

  /** Dedup keys exported, all runs together. */
  get keyCount(): number {
    return copiesOf(this).size;
  }

  /** Load a cursor file; a missing one starts empty; an unreadable or foreign one is CURSOR_INVALID. */
  static async load(path: string): Promise<ExportCursor> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new ExportCursor(path, new Map(), 0, new ExportedCopies());
      throw new SessionfoldError('IO_ERROR', `Cannot read export cursor ${path}: ${(e as Error).message}`, { file: path, cause: e });
    }
    let doc: ExportCursorDocument;
    try {
      doc = JSON.parse(text) as ExportCursorDocument;
    } catch {
      throw new SessionfoldError('CURSOR_INVALID', `Export cursor ${path} is not valid JSON; delete it to export everything again`, { file: path });
    }
    if (doc === null || typeof doc !== 'object' || doc.type !== EXPORT_CURSOR_TYPE || doc.version !== EXPORT_CURSOR_VERSION || typeof doc.keys?.data !== 'string') {
      throw new SessionfoldError('CURSOR_INVALID', `${path} is not a sessionfold export cursor (version ${EXPORT_CURSOR_VERSION})`, { file: path });
    }
    const copies = ExportedCopies.fromCursor(doc.keys);
    return new ExportCursor(path, new Map(Object.entries(doc.files ?? {})), typeof doc.exported === 'number' ? doc.exported : copies.size, copies);
  }

  /** Record an exported line. */
  mark(l: UsageExportLine): void {
    this.exported++;
    const m = this.files.get(l.file);
    if (m) {
      m.events++;
      if (l.offset > m.offset) m.offset = l.offset;
    } else this.files.set(l.file, { agent: l.agent, offset: l.offset, events: 1 });
  }

  /** Write the cursor atomically. */
  async save(now: Date = new Date()): Promise<void> {
    const files: Record<string, ExportFileMark> = {};
    for (const k of [...this.files.keys()].sort()) files[k] = this.files.get(k) as ExportFileMark;
    const doc: ExportCursorDocument = {
      version: EXPORT_CURSOR_VERSION,
      type: EXPORT_CURSOR_TYPE,
      updatedAt: now.toISOString(),
      exported: this.exported,
      files,
      keys: copiesOf(this).toCursor(),
    };
    await writeFileAtomic(this.path, JSON.stringify(doc) + '\n');
  }
}

/** Per cursor, the keys it exported and their copies (kept off the public class). */
const CURSOR_COPIES = new WeakMap<ExportCursor, ExportedCopies>();
const copiesOf = (cursor: ExportCursor): ExportedCopies => CURSOR_COPIES.get(cursor) as ExportedCopies;
/** `copies.data`: no file recorded for the key. */
const NO_FILE = 0xffffffff;
/** A row's file id when the cursor recorded only the copy's output tokens (or nothing) for its key. */
const UNRECORDED = -1;

/** Options of `exportUsage`: the fold's selection (no grouping), plus an incremental cursor. */
export interface UsageExportOptions extends Omit<CostFoldOptions, 'groupBy'> {
  /** Continue an incremental export: skip keys it exported, and mark what this one exports. */
  cursor?: ExportCursor;
}

type RecordSource = AsyncIterable<UsageRecord | readonly UsageRecord[]> | Iterable<UsageRecord | readonly UsageRecord[]>;

/**
 * The selected, deduplicated, priced usage events of `records` (records or record batches, e.g.
 * `scanUsageBatches()`), as export lines, one array per input batch (empty arrays skipped).
 */
export async function* exportUsageBatches(records: RecordSource, options: UsageExportOptions = {}): AsyncGenerator<UsageExportLine[]> {
  const n = normalizeCostOptions(options);
  const cursor = options.cursor;
  const st: ExportState = { n, sel: createRecordSelector(n), copies: cursor !== undefined ? copiesOf(cursor) : new ExportedCopies(), cursor };
  for await (const batch of records) {
    const lines = toExportLines(Array.isArray(batch) ? (batch as readonly UsageRecord[]) : [batch as UsageRecord], st);
    if (lines.length > 0) yield lines;
  }
}

/**
 * The selected, deduplicated, priced usage events of `records`, one export line at a time.
 * @example
 * for await (const line of exportUsage(scanUsage({}), { since: new Date('2026-01-01') })) out.write(JSON.stringify(line) + '\n');
 */
export async function* exportUsage(records: RecordSource, options: UsageExportOptions = {}): AsyncGenerator<UsageExportLine> {
  for await (const lines of exportUsageBatches(records, options)) yield* lines;
}

interface ExportState {
  n: NormalizedCostOptions;
  sel: RecordSelector;
  /** The copy exported last per key, by this run or (with a cursor) an earlier one. */
  copies: ExportedCopies;
  cursor: ExportCursor | undefined;
}

/**
 * Per key exported (by this run, or by the earlier runs of a cursor), the copy exported last: what a later
 * copy must beat to be exported again. One table serves the run and the cursor: a key's hash names a row of
 * typed-array columns. Per key, by the layout: the hash table's 16-byte slots at a load of 1/4 to 1/2
 * (32-64 bytes) and a row of 30 bytes in columns grown twofold (30-60), so 62-124 bytes.
 */
class ExportedCopies {
  /** Key hash → row. */
  readonly #rows = new KeyTable();
  readonly #files = new Interner();
  readonly #fileName = (id: number): string => this.#files.values[id] as string;
  /**
   * Per row: output tokens, tokens in all, offset. A key whose copy a cursor did not record (`UNRECORDED`)
   * keeps its recorded output tokens, or -1 when it recorded none.
   */
  #f = new Float64Array(3 * 1024);
  /** Per row: the interned file, or `UNRECORDED`. */
  #file = new Int32Array(1024);
  /** Per row: 1 when its copy was exported by an earlier run (loaded from a cursor). */
  #earlier = new Uint8Array(1024);
  /** Per row: its copy's `copyRank`. */
  #rank = new Uint8Array(1024);

  get size(): number {
    return this.#rows.size;
  }

  /**
   * Keep `r` as the key's copy when the key is new or `r` beats its copy (`beatsCopy`, the totals fold's
   * rule): then it is to be exported. Two exceptions, for copies an earlier run exported: a key whose copy the
   * cursor did not record is beaten only by more output tokens (if it recorded those); and a copy tied on
   * tokens and rank in the same file is the same response moved (a file rewritten in place, or a format whose offsets
   * are row or message indexes), not a correction.
   */
  offer(hi: number, lo: number, r: UsageRecord): boolean {
    let row = this.#rows.getHash(hi, lo);
    if (row < 0) row = this.#append(hi, lo);
    else if (!this.#beats(row, r)) return false;
    this.#set(row, r.outputTokens, copyTotal(r), this.#files.id(r.file), r.offset);
    this.#rank[row] = copyRank(r);
    this.#earlier[row] = 0;
    return true;
  }

  #beats(row: number, r: UsageRecord): boolean {
    // A cursor keeps output tokens capped (`OUTPUT_CAP`), so both sides are capped before they are
    // compared; on a tie there the rest of `beatsCopy` decides. Else a count over the cap would beat its own
    // recorded copy on every run.
    const mine = Math.min(r.outputTokens, OUTPUT_CAP);
    const theirs = Math.min(this.#f[3 * row] as number, OUTPUT_CAP);
    const file = this.#file[row] as number;
    if (file === UNRECORDED) return theirs >= 0 && mine > theirs;
    if (mine !== theirs) return mine > theirs;
    const total = this.#f[3 * row + 1] as number;
    const rank = this.#rank[row] as number;
    if (this.#earlier[row] === 1 && copyTotal(r) === total && copyRank(r) === rank && r.file === this.#fileName(file)) return false;
    return beatsCopy(r, r.outputTokens, total, rank, file, this.#f[3 * row + 2] as number, this.#fileName);
  }

  #append(hi: number, lo: number): number {
    const row = this.#rows.size;
    if (row >= this.#file.length) this.#grow();
    this.#rows.setHash(hi, lo, row);
    return row;
  }

  #set(row: number, out: number, total: number, file: number, offset: number): void {
    this.#f[3 * row] = out;
    this.#f[3 * row + 1] = total;
    this.#f[3 * row + 2] = offset;
    this.#file[row] = file;
  }

  /** The keys a cursor recorded, each with its copy (`keys.copies`) or its output tokens (`keys.values`). */
  static fromCursor(keys: ExportCursorDocument['keys']): ExportedCopies {
    const hashes = Buffer.from(keys.data, 'base64');
    const n = Math.floor(hashes.length / 8);
    const recorded = keys.copies;
    const values = typeof keys.values === 'string' ? Buffer.from(keys.values, 'base64') : undefined;
    const sizes = values?.length === n * 4 ? values : undefined;
    const bytes = typeof recorded?.data === 'string' && Array.isArray(recorded.files) ? Buffer.from(recorded.data, 'base64') : undefined;
    // A damaged entry (not 20 bytes per key) records nothing: its keys are weighed as an old cursor's.
    const data = bytes?.length === n * 20 ? bytes : undefined;
    const files = recorded?.files ?? [];
    const ranked = typeof recorded?.ranks === 'string' ? Buffer.from(recorded.ranks, 'base64') : undefined;
    const ranks = ranked?.length === n ? ranked : undefined;
    const copies = new ExportedCopies();
    for (let i = 0; i < n; i++) {
      const hi = hashes.readUInt32BE(8 * i);
      const lo = hashes.readUInt32BE(8 * i + 4);
      if ((hi === 0 && lo === 0) || copies.#rows.getHash(hi, lo) >= 0) continue;
      const size = sizes === undefined ? 0 : sizes.readUInt32BE(4 * i);
      const name = data === undefined ? undefined : files[data.readUInt32BE(20 * i + 16)];
      const row = copies.#append(hi, lo);
      copies.#earlier[row] = 1;
      copies.#rank[row] = ranks?.[i] ?? 0;
      if (size === 0 || typeof name !== 'string') copies.#set(row, size - 1, 0, UNRECORDED, 0);
      else copies.#set(row, size - 1, data?.readDoubleBE(20 * i) as number, copies.#files.id(name), data?.readDoubleBE(20 * i + 8) as number);
    }
    return copies;
  }

  /** The `keys` entry of a cursor document: every key, its copy's output tokens, and its copy when recorded. */
  toCursor(): ExportCursorDocument['keys'] {
    const hashes = this.#rows.toBytes();
    const rows = this.#rows.valuesToBytes();
    const n = hashes.length / 8;
    const files = new Interner();
    const values = Buffer.alloc(n * 4);
    const data = Buffer.alloc(n * 20);
    const ranks = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      const row = rows.readUInt32BE(4 * i);
      ranks[i] = this.#rank[row] as number;
      const out = this.#f[3 * row] as number;
      const file = this.#file[row] as number;
      values.writeUInt32BE(out < 0 ? 0 : Math.min(out, OUTPUT_CAP) + 1, 4 * i);
      if (file === UNRECORDED) {
        data.writeUInt32BE(NO_FILE, 20 * i + 16);
        continue;
      }
      data.writeDoubleBE(this.#f[3 * row + 1] as number, 20 * i);
      data.writeDoubleBE(this.#f[3 * row + 2] as number, 20 * i + 8);
      data.writeUInt32BE(files.id(this.#fileName(file)), 20 * i + 16);
    }
    return { hash: 'xxh64', count: n, data: hashes.toString('base64'), values: values.toString('base64'), copies: { files: files.values, data: data.toString('base64'), ranks: ranks.toString('base64') } };
  }

  #grow(): void {
    const f = new Float64Array(this.#f.length * 2);
    f.set(this.#f);
    this.#f = f;
    const file = new Int32Array(this.#file.length * 2);
    file.set(this.#file);
    this.#file = file;
    const earlier = new Uint8Array(this.#earlier.length * 2);
    earlier.set(this.#earlier);
    this.#earlier = earlier;
    const rank = new Uint8Array(this.#rank.length * 2);
    rank.set(this.#rank);
    this.#rank = rank;
  }
}

/** The largest output count a cursor keeps (its values are int32, 0 marking an old cursor's key). */
const OUTPUT_CAP = 0x7ffffffe;

/** The export lines of a batch of records (selected, not seen before, priced); marks them seen. */
function toExportLines(records: readonly UsageRecord[], { n, sel, copies, cursor }: ExportState): UsageExportLine[] {
  const out: UsageExportLine[] = [];
  for (const r of records) {
    if (!sel.accepts(r, sel.needsTime ? recordTime(r) : NaN)) continue;
    hashRecordKey(r);
    const hi = HASH[0] as number;
    const lo = HASH[1] as number;
    // Exported before (by this run or an earlier one of the cursor): skip it, unless this copy beats the
    // one exported as the totals fold decides: then it is exported again, a correction, so that keeping the
    // last line per key gives the fold's copy. The last response of a file an agent is still writing can be
    // exported while it streams (Claude Code writes one response over several lines, output tokens growing);
    // its final copy is such a correction.
    if (!copies.offer(hi, lo, r)) continue;
    const p = n.pricer.price(r, n.mode);
    const line: UsageExportLine = {
      type: 'usage',
      agent: r.agent,
      sessionId: r.sessionId,
      file: r.file,
      offset: r.offset,
      ...(r.cwd !== undefined && { cwd: r.cwd }),
      timestamp: r.timestamp,
      model: r.model,
      ...(r.modelFallback === true && { modelFallback: true }),
      ...(r.provider !== undefined && { provider: r.provider }),
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      reasoningTokens: r.reasoningTokens,
      cacheReadTokens: r.cacheReadTokens,
      cacheWriteTokens: r.cacheWriteTokens,
      cacheWrite1hTokens: r.cacheWrite1hTokens,
      singleRequest: r.singleRequest,
      dedupKey: r.dedupKey,
      ...(r.messageId !== undefined && { messageId: r.messageId }),
      ...(typeof r.costUsd === 'number' && { costUsd: r.costUsd }),
      ...(r.speed !== undefined && { speed: r.speed }),
      ...(typeof r.webSearchRequests === 'number' && { webSearchRequests: r.webSearchRequests }),
      ...(r.retained === true && { retained: true }),
      // 12 decimals: drops float noise (0.031110000000000002) far below a nano-dollar.
      usd: p.usd === undefined ? null : Math.round(p.usd * 1e12) / 1e12,
      costSource: p.source,
      unpriced: p.unpriced,
    };
    cursor?.mark(line);
    out.push(line);
  }
  return out;
}
