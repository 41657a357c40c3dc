/**
 * What every SessionManager method shares: options normalized once, roots per codec, discovery with file
 * stats, the pricer (loaded once, on first need), tags, and a bounded-concurrency map. Nothing here parses a
 * file: discovery is the codec's `discover()`, stats are `fs.stat`.
 */
import { stat } from 'node:fs/promises';
import type { Codec, DiscoverOptions, SessionFile } from '../../cursors/protocol/codec.js';
import { fileStatOf, unreadableMark, unreadableSince, type FileStat } from '../../cursors/list-dir.js';
import { openListingMemo } from '../cache/listing-memo.js';
import { getCachePath } from '../cache/paths.js';
import { checkCostMode, type CostMode } from '../cost/types.js';
import { invalidOption } from '../../cursors/protocol/errors.js';
import type { SourceTally } from '../scan/sources.js';
import { loadTags, type TagIndex } from '../tags.js';
import { bindPricer, loadDefaultPricer, type PriceFn } from './cost.js';
import type { SessionManagerOptions, UsagePricer } from './types.js';

export interface NormalizedManagerOptions {
  env: NodeJS.ProcessEnv;
  roots: Record<string, string[]>;
  costMode: CostMode;
  pricer: UsagePricer | undefined;
  pricesFile: string | undefined;
  concurrency: number;
  cache: boolean;
  cachePath: string | undefined;
}

export function normalizeManagerOptions(user: SessionManagerOptions = {}): NormalizedManagerOptions {
  const costMode = checkCostMode(user.costMode ?? 'auto', 'costMode');
  const concurrency = user.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw invalidOption('concurrency', 'a positive integer', user.concurrency);
  if (user.roots !== undefined && (user.roots === null || typeof user.roots !== 'object')) throw invalidOption('roots', 'an object of agent → string[]', user.roots);
  return {
    env: user.env ?? process.env,
    roots: user.roots ?? {},
    costMode,
    pricer: user.pricer,
    pricesFile: user.pricesFile,
    concurrency,
    cache: user.cache ?? true,
    cachePath: user.cachePath,
  };
}

/** A discovered session file with its stat (the summary cache's identity of it, as the event cache's). */
export interface StatFile extends FileStat {
  codec: Codec;
  file: SessionFile;
}

/** The StatFile of `file` with the stat discovery took as it listed it (a database's records: no inode, no ctime, 0); undefined when it took none. */
export function listedStatFile(codec: Codec, file: SessionFile): StatFile | undefined {
  if (file.size === undefined || file.mtimeMs === undefined) return undefined;
  return { codec, file, size: file.size, mtimeMs: file.mtimeMs, ino: file.ino ?? 0, ctimeMs: file.ctimeMs ?? 0 };
}

/** The StatFile of `file` with a stat taken now. */
export function statFileOf(codec: Codec, file: SessionFile, s: FileStat): StatFile {
  return { codec, file, ...fileStatOf(s) };
}

export class ManagerContext {
  readonly options: NormalizedManagerOptions;
  #price: Promise<PriceFn> | undefined;
  #discover: DiscoverOptions | undefined;

  constructor(options: NormalizedManagerOptions) {
    this.options = options;
  }

  rootsFor(codec: Codec): string[] {
    const o = this.options.roots;
    const explicit = o[codec.id] ?? codec.aliases.map((a) => o[a]).find((r) => r !== undefined);
    return explicit ?? codec.defaultRoots(this.options.env);
  }

  /** The pricing function, built once per manager. */
  price(): Promise<PriceFn> {
    this.#price ??= (async () => {
      const pricer = this.options.pricer ?? (await loadDefaultPricer({ env: this.options.env, pricesFile: this.options.pricesFile }));
      return bindPricer(pricer, this.options.costMode);
    })();
    return this.#price;
  }

  /** Tags, re-read per call so edits to the tags file show up without a new manager. */
  tags(): TagIndex {
    return loadTags(this.options.env);
  }

  /** True when any root of the codec exists (the agent has storage on this machine). */
  async hasStorage(codec: Codec): Promise<boolean> {
    for (const r of this.rootsFor(codec)) if (await stat(r).then(() => true, () => false)) return true;
    return false;
  }

  /** What discovery is given: listings kept beside the cache (src/cache/listing-memo.ts), as a scan keeps them; none without the cache. */
  discoverOptions(): DiscoverOptions {
    this.#discover ??= { listingMemo: this.options.cache ? openListingMemo(this.options.cachePath ?? getCachePath(this.options.env)) : undefined };
    return this.#discover;
  }

  /**
   * The codec's files under `roots`, as discovery yields them. With a tally, each path is counted once under
   * its root, and the folders this discovery could not list are counted as the codec's.
   */
  async discoverFiles(codec: Codec, roots: readonly string[], tally?: SourceTally): Promise<SessionFile[]> {
    const mark = unreadableMark();
    const all: SessionFile[] = [];
    const seen = new Set<string>();
    for await (const f of codec.discover(roots, this.discoverOptions())) {
      all.push(f);
      if (tally === undefined || seen.has(f.path)) continue;
      seen.add(f.path);
      tally.file(codec.id, f.root);
    }
    tally?.unreadable(codec.id, unreadableSince(mark, roots));
    return all;
  }

  /** Every session file of the codec with size and mtime (counted in `tally` as discoverFiles says); missing roots give nothing; vanished files are skipped. */
  async discover(codec: Codec, includeSubagents: boolean, tally?: SourceTally): Promise<StatFile[]> {
    const all = await this.discoverFiles(codec, this.rootsFor(codec), tally);
    const files = includeSubagents ? all : all.filter((f) => f.subagent !== true);
    const out = await mapLimit(files, this.options.concurrency * 4, async (file) => {
      // the stat discovery took as it listed the file, when it took one
      const listed = listedStatFile(codec, file);
      if (listed !== undefined) return listed;
      try {
        return statFileOf(codec, file, await stat(file.path));
      } catch {
        return undefined;
      }
    });
    return out.filter((x): x is StatFile => x !== undefined);
  }
}

/** Map with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
