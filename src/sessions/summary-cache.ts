/**
 * `list()`'s summary cache: what list learned about each session file, kept in the event cache database
 * (src/cache/summaries.ts), so a warm `list` costs a stat per file instead of a head-and-tail read.
 *
 * Per file up to three levels, each the plain data list.ts computes from the file (types in list.ts):
 * - `peek` (SummaryData, or null for a file with no event of the codec's format): the lazy summary;
 * - `usage` (UsageData): cost and models of a usage-only read of the whole file;
 * - `whole` (SummaryData): the exact summary of a full fold.
 * Tags are not stored (they come from the tags file, read per call), nor anything derived from the path or the
 * stat (agent, unifiedId, file, sizeBytes). list.ts builds every summary from such data with `fromData()`,
 * on the cold path too, so a cached summary and a fresh one are the same object, key order included.
 *
 * Loaded by list.ts with a dynamic import (it pulls in better-sqlite3), as the scan engine is.
 *
 * Validity, as for the usage rows: the parser string, size, mtimeMs, inode, ctimeMs and dependency
 * fingerprints of the file (src/scan/classify.ts `isUnchanged` says why the inode and ctime),
 * plus the fold key (`getFoldKey`): SUMMARY_VERSION (the rules of fold.ts / peek.ts / list.ts), the versions
 * of sessionfold and of the bundled price data, the cost mode and the bytes of the price-override file in
 * effect. Costs are priced when a row is written, so any change to what prices them makes the rows stale
 * (one cold run rebuilds them). A caller-supplied `pricer` has no fingerprint: the cache is then not used.
 */
import { nodeCrypto } from '../../cursors/builtins.js';
import { readFileSync } from 'node:fs';
import { getParserString, type Codec, type DiscoverOptions } from '../../cursors/protocol/codec.js';
import { getCachePath } from '../cache/paths.js';
import { guardSummaries, isCurrentRow, SummaryStore, type SummaryKey, type SummaryRow, type SummaryWrite } from '../cache/summaries.js';
import { getPricesPath } from '../cost/overrides.js';
import { priceDataVersion } from '../cost/pricing.js';
import { sessionfoldVersion } from '../../cursors/versions.js';
import { fingerprintDependencies } from '../scan/discover.js';
import type { NormalizedManagerOptions, StatFile } from './context.js';
import type { SummaryData, UsageData } from './types.js';

/** Goes up whenever fold.ts, peek.ts or list.ts would summarize an unchanged file differently. */
export const SUMMARY_VERSION = 9; // 2: subagent rows see their sidecar (Codec.lineCoreFor); 3: a Claude file named otherwise than its id takes its lines' id; 4: usageUnknown; 5: the head read goes past a preamble to the first prompt; 6: the tail window skips usage of another session than the head's; 7: usageRecorded from session events; 8: usage marked `copied` in copiedCost, not cost; 9: a head's own usageUnknown (an export's header), Copilot CLI sessions folded whole

/** Stored JSON, or undefined (a miss: the file is read again) when it does not parse. */
function parse<T>(json: string): T | undefined {
  try {
    return JSON.parse(json) as T;
  } catch {
    return undefined;
  }
}

/** `sessionfold@x genai-prices@y`. */
function packageVersions(): string {
  return `sessionfold@${sessionfoldVersion()} genai-prices@${priceDataVersion()}`;
}

/**
 * The fold key of the manager's options: what, besides the file, a cached summary depends on. Undefined
 * (no cache) with a caller-supplied pricer. The override file is hashed byte for byte, so an edit, a new file
 * or a removed one changes the key; a file that would fail to load gives a key no row was written under.
 */
export function getFoldKey(o: NormalizedManagerOptions): string | undefined {
  if (o.pricer !== undefined) return undefined;
  const { path, required } = getPricesPath(o.env, o.pricesFile);
  let prices: string;
  try {
    const bytes = readFileSync(path); // first: without a prices file (the usual case) node:crypto never loads
    prices = nodeCrypto().createHash('sha256').update(bytes).digest('hex');
  } catch (e) {
    prices = `unreadable:${(e as NodeJS.ErrnoException).code ?? '?'}`;
  }
  return `s${SUMMARY_VERSION} ${packageVersions()} ${o.costMode} ${required ? 'required' : 'optional'}:${path} ${prices}`;
}

/**
 * One `list()` call's view of the summary cache: rows loaded once, lookups validated against the file's
 * stat, new levels collected and written in one transaction by `finish()`.
 */
export class ListCache {
  readonly #store: SummaryStore;
  readonly #agent: string;
  readonly #parser: string;
  readonly #foldKey: string;
  readonly #codec: Codec;
  readonly #rows: Map<string, SummaryRow>;
  readonly #keys = new Map<string, SummaryKey>();
  readonly #writes = new Map<string, SummaryWrite>();
  readonly #discover: DiscoverOptions | undefined;

  private constructor(store: SummaryStore, codec: Codec, foldKey: string, rows: Map<string, SummaryRow>, discover: DiscoverOptions | undefined) {
    this.#store = store;
    this.#discover = discover;
    this.#codec = codec;
    this.#agent = codec.id;
    this.#parser = getParserString(codec);
    this.#foldKey = foldKey;
    this.#rows = rows;
  }

  /**
   * The cache for one list call, or undefined when it is off, has no fold key, or cannot be opened.
   * `discover`: the options the files were discovered with (a codec's dependency stamps may be kept in them).
   */
  static open(o: NormalizedManagerOptions, codec: Codec, discover?: DiscoverOptions): ListCache | undefined {
    if (!o.cache) return undefined;
    const foldKey = getFoldKey(o);
    if (foldKey === undefined) return undefined;
    let store: SummaryStore;
    try {
      store = SummaryStore.open(o.cachePath ?? getCachePath(o.env), () => undefined);
    } catch {
      return undefined; // a read-only home, a cache that stays unusable: list without it
    }
    const rows = guardSummaries(store, (s) => s.load(codec.id, getParserString(codec), foldKey));
    if (rows === undefined) {
      store.close();
      return undefined;
    }
    return new ListCache(store, codec, foldKey, rows, discover);
  }

  #key(sf: StatFile): SummaryKey {
    let k = this.#keys.get(sf.file.path);
    if (k === undefined) {
      k = { parser: this.#parser, size: sf.size, mtimeMs: sf.mtimeMs, ino: sf.ino, ctimeMs: sf.ctimeMs, deps: fingerprintDependencies(this.#codec, sf.file.path, this.#discover), foldKey: this.#foldKey };
      this.#keys.set(sf.file.path, k);
    }
    return k;
  }

  #row(sf: StatFile): SummaryRow | undefined {
    const row = this.#rows.get(sf.file.path);
    return row !== undefined && isCurrentRow(row, this.#key(sf)) ? row : undefined;
  }

  /** The cached peek: data, null (a file with nothing of the codec's format), or undefined (not cached). */
  peek(sf: StatFile): SummaryData | null | undefined {
    const json = this.#row(sf)?.peek;
    return json === undefined || json === null ? undefined : parse<SummaryData | null>(json);
  }

  /** The cached `usage` or `whole` level of files, by path (files without one are absent). */
  level(level: 'usage', files: readonly StatFile[]): Map<string, UsageData>;
  level(level: 'whole', files: readonly StatFile[]): Map<string, SummaryData>;
  level(level: 'usage' | 'whole', files: readonly StatFile[]): Map<string, UsageData | SummaryData> {
    const out = new Map<string, UsageData | SummaryData>();
    const ids = new Map<number, string>();
    const keys = new Map<number, SummaryKey>();
    for (const sf of files) {
      const row = this.#row(sf);
      if (row === undefined) continue;
      ids.set(row.id, sf.file.path);
      keys.set(row.id, this.#key(sf));
    }
    if (ids.size === 0) return out;
    const got = guardSummaries(this.#store, (s) => s.level(level, keys));
    for (const [id, json] of got ?? []) {
      const path = ids.get(id);
      const data = json === null ? undefined : parse<UsageData | SummaryData>(json);
      if (data !== undefined && data !== null && path !== undefined) out.set(path, data);
    }
    return out;
  }

  /** Remember a level computed by this run, for `finish()`. */
  put(sf: StatFile, level: 'peek', data: SummaryData | null): void;
  put(sf: StatFile, level: 'usage', data: UsageData): void;
  put(sf: StatFile, level: 'whole', data: SummaryData): void;
  put(sf: StatFile, level: 'peek' | 'usage' | 'whole', data: SummaryData | UsageData | null): void {
    let w = this.#writes.get(sf.file.path);
    if (w === undefined) this.#writes.set(sf.file.path, (w = { agent: this.#agent, path: sf.file.path, key: this.#key(sf), levels: {} }));
    w.levels[level] = JSON.stringify(data);
  }

  /**
   * Write what this run computed, drop the rows of files that are gone (cached, not among `discovered`, and
   * missing on disk), close. Never throws: a cache that cannot be written is simply not updated.
   */
  finish(discovered: ReadonlySet<string>, exists: (path: string) => boolean): void {
    const prune: [string, string][] = [];
    for (const path of this.#rows.keys()) if (!discovered.has(path) && !exists(path)) prune.push([this.#agent, path]);
    guardSummaries(this.#store, (s) => s.write([...this.#writes.values()], prune));
    this.#store.close();
  }
}
