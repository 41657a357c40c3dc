/**
 * Discovery: every selected codec's files under its roots, each stat'ed once (`FileStat`: size, mtimeMs, ino,
 * ctimeMs, the event cache's identity of the file; src/scan/classify.ts `isUnchanged`) with its parse
 * dependencies' fingerprints, then the `since` filter. The Claude and Codex codecs stat their files as they
 * list them (cursors/list-dir.ts: one native call per directory); other files are stat'ed here. Stats are
 * synchronous: for thousands of small files a tight loop is several times faster than as many promises
 * through libuv's pool.
 */
import { closeSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute } from 'node:path';
import type { Codec, CodecListing, DiscoverOptions, SessionFile } from '../../cursors/protocol/codec.js';
import type { NormalizedScanOptions } from './options.js';
import { fileStatOf, unreadableMark, unreadableSince, type FileStat } from '../../cursors/list-dir.js';
import { settledBefore, walStamp } from '../../cursors/listing-memo.js';
import { DETECT_HEAD_BYTES, type DetectCandidate, loadCodec, mostSure } from '../registry.js';

export interface ScanFile extends FileStat {
  codec: Codec;
  path: string;
  root: string;
  /** JSON of the dependencies' fingerprints (`fingerprintDependencies`). */
  deps: string;
}

/**
 * A SQLite journal beside a database (`-wal`, `-journal`, `-shm`): SQLite as root re-owns it on every open
 * (unix VFS `robustFchown`), which moves its ctime and nothing else, so a read by sessionfold itself would
 * change a ctime in its fingerprint (cursors/listing-memo.ts `walStamp` says the same of a listing's stamp).
 * A commit writes it, moving its size or mtime; a `-wal` written within RACY_MS is fingerprinted by `walStamp`,
 * whose salts and WAL index counter also tell two commits apart that a restarted log wrote at one size within
 * one mtime tick.
 */
const SQLITE_SIDECAR = /-(wal|journal|shm)$/;

/** The codec members a dependency fingerprint takes (a codec's, or its descriptor's listing's). */
export type DependencyStamper = Pick<Codec, 'getParseDependencies' | 'dependencyStamp'>;

/**
 * `[[path, size, mtimeMs, ino, ctimeMs] | [path, stamp] | [path, null]]` as JSON: a missing dependency is
 * recorded as missing. A dependency the codec stamps by content (`Codec.dependencyStamp`) is its stamp, a
 * string; any other is keyed as a session file is (`FileStat`: a rewrite with its mtime put back is a
 * change), but a SQLite journal without its ctime (SQLITE_SIDECAR). `options`: the discovery's, whose
 * listing memo may keep a codec's stamps between runs.
 */
export function fingerprintDependencies(codec: DependencyStamper, path: string, options?: DiscoverOptions): string {
  const deps = codec.getParseDependencies(path);
  if (deps.length === 0) return '[]';
  const stampOf = codec.dependencyStamp;
  return JSON.stringify(
    deps.map((d) => {
      const stamp = stampOf?.call(codec, path, d, options);
      if (stamp !== undefined) return [d, stamp];
      const started = Date.now();
      const s = statSync(d, { throwIfNoEntry: false });
      if (s === undefined) return [d, null];
      // A -wal written within RACY_MS is stamped by its header and WAL index too (walStamp): two commits in one
      // mtime tick can leave its stat as it was. Once settled, a later commit moves its mtime, and the stat is
      // enough (a fifth of the time: each session of a database fingerprints its -wal).
      if (d.endsWith('-wal') && !settledBefore(s.mtimeMs, started)) return [d, walStamp(d).id];
      return SQLITE_SIDECAR.test(d) ? [d, s.size, s.mtimeMs, s.ino] : [d, s.size, s.mtimeMs, s.ino, s.ctimeMs];
    }),
  );
}

export interface Discovery {
  /** Files to scan. */
  files: ScanFile[];
  /** Paths found on disk per codec id (since-skipped ones included), to tell deleted cached files. */
  seen: Map<string, Set<string>>;
}

/** One file of a source, stat'ed: what discovery knows before the `since` filter. */
export interface FoundFile extends FileStat {
  path: string;
  root: string;
  deps: string;
}

/**
 * A discovered file's stat: the one discovery took as it listed the file (`SessionFile.size`, `mtimeMs`, `ino`,
 * `ctimeMs`; a listing of database records gives no inode or ctime, which count as 0), else one taken now;
 * undefined when it is gone.
 */
function statOf(f: SessionFile): FileStat | undefined {
  if (f.size !== undefined && f.mtimeMs !== undefined) return { size: f.size, mtimeMs: f.mtimeMs, ino: f.ino ?? 0, ctimeMs: f.ctimeMs ?? 0 };
  const s = statSync(f.path, { throwIfNoEntry: false });
  return s === undefined ? undefined : fileStatOf(s);
}

/** One file with its stat (`statOf`) and its dependencies' fingerprints; undefined when it is gone. */
export function statFound(codec: DependencyStamper, f: SessionFile, options?: DiscoverOptions): FoundFile | undefined {
  const s = statOf(f);
  return s === undefined ? undefined : { path: f.path, root: f.root, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs, deps: fingerprintDependencies(codec, f.path, options) };
}

/**
 * Every file of one codec under its roots, in the codec's order (each path once), through `found`: a stat
 * by default; the server's discovery keeps a file it knows unchanged instead. A file `found` gives no entry
 * for (gone between the listing and its stat) is left out: deleted.
 */
export async function discoverSource(
  codec: Pick<Codec, 'discoverSync'> & DependencyStamper & { discover?: Codec['discover'] },
  roots: readonly string[],
  found: (f: SessionFile) => FoundFile | undefined = (f) => statFound(codec, f, options),
  options?: DiscoverOptions,
): Promise<FoundFile[]> {
  const out: FoundFile[] = [];
  if (roots.length === 0) return out;
  const paths = new Set<string>();
  const add = (f: SessionFile): void => {
    if (paths.has(f.path)) return;
    paths.add(f.path);
    const entry = found(f);
    if (entry !== undefined) out.push(entry);
  };
  const listed = codec.discoverSync?.(roots, options);
  if (listed !== undefined) for (const f of listed) add(f);
  else if (codec.discover !== undefined) for await (const f of codec.discover(roots, options)) add(f);
  return out;
}

/**
 * A process-wide stand-in for `discoverSource`: `sessionfold serve` installs one that answers from what
 * file-system notifications say changed (src/serve/watch.ts), calling `full` when it cannot tell. Its answer
 * must equal `full()`'s at the time of the call.
 */
export interface DiscoveryCache {
  source(codec: Codec, roots: readonly string[], full: () => Promise<FoundFile[]>): Promise<FoundFile[]>;
}

let installed: DiscoveryCache | undefined;

/** Install (or, with undefined, remove) the process's discovery cache. */
export function setDiscoveryCache(cache: DiscoveryCache | undefined): void {
  installed = cache;
}

/**
 * Warn about the folders discovery could not list (their sessions are not in the answer), and count them. A
 * root itself is left to the source report when one is asked for: its reader names it once.
 */
function warnUnreadable(opts: NormalizedScanOptions, dirs: [string, string][]): void {
  const roots = new Set(opts.sourceReport === undefined ? [] : opts.sources.flatMap((s) => s.roots));
  for (const [dir, why] of dirs) {
    opts.stats.unreadableFolders++;
    // The report names a root it could not open (an errno, not a folder); a root whose walk stopped at its
    // bounds opened fine, so only the scan can say what was left out of it.
    const reportSaysIt = roots.has(dir) && /^(E[A-Z]+\b|not a (folder|directory))/.test(why);
    if (!reportSaysIt) opts.onWarning(`Cannot list ${dir} (${why}): the sessions in it are left out`);
  }
}

/**
 * The folders `codec`'s discovery could not list since `mark` under its `roots` (cursors/list-dir.ts), kept for
 * the source report when one is asked for.
 */
function unreadableOf(opts: NormalizedScanOptions, codec: Codec, mark: number, roots: readonly string[]): [string, string][] {
  const found = unreadableSince(mark, roots);
  return opts.sourceReport?.tally.unreadable(codec.id, found) ?? found;
}

/** Write the source report, when one is asked for (`ScanOptions.sources`). */
function writeSourceReport(opts: NormalizedScanOptions): void {
  opts.sourceReport?.tally.report(opts.sources, opts.env, opts.sourceReport.out);
}

/** A file's real path (links and `.`/`..` resolved, only read), else undefined. */
function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The kept paths (`ScanOptions.keep`) as discovery meets them: `of(path)` is the kept path a listed file is,
 * spelled as given or otherwise (through a linked folder, `//`, `..`: the same real path), and `listed` the
 * kept paths met so far. A kept path is compared by its real path only with the listed files of the same name
 * (a file linked under another name is not told), so a listing of thousands of files costs no more stats.
 */
class KeptPaths {
  readonly listed = new Set<string>();
  readonly #keep: NonNullable<NormalizedScanOptions['keep']>;
  /** Real path → kept path, by the real path's base name; made at the first file of a name (lazily). */
  #byName: Map<string, Map<string, string>> | undefined;

  constructor(keep: NonNullable<NormalizedScanOptions['keep']>) {
    this.#keep = keep;
  }

  of(path: string): string | undefined {
    if (this.#keep.paths.has(path)) {
      this.listed.add(path);
      return path;
    }
    if (this.#byName === undefined) {
      this.#byName = new Map();
      for (const kept of this.#keep.paths) {
        const real = isAbsolute(kept) ? realPath(kept) : undefined;
        if (real === undefined) continue;
        const named = this.#byName.get(basename(real)) ?? new Map<string, string>();
        named.set(real, kept);
        this.#byName.set(basename(real), named);
      }
    }
    const named = this.#byName.get(basename(path));
    if (named === undefined) return undefined;
    const real = realPath(path);
    const kept = real === undefined ? undefined : named.get(real);
    if (kept === undefined || this.listed.has(kept)) return undefined;
    this.listed.add(kept);
    this.#keep.listedAs?.set(kept, path);
    return kept;
  }
}

/** The scan's kept paths, when it has any. */
function keptPaths(opts: NormalizedScanOptions): KeptPaths | undefined {
  return opts.keep === undefined || opts.keep.paths.size === 0 ? undefined : new KeptPaths(opts.keep);
}

/**
 * Whether `since` skips a file of this mtime (counted in `skippedSince`): never a kept one (`ScanOptions.keep`;
 * `kept`, its path as the caller gave it), which is noted in `keep.beforeSince` instead. `skipByMtime`: the
 * scan has a `since` and the codec's events precede its files' mtimes.
 */
function skippedBySince(opts: NormalizedScanOptions, skipByMtime: boolean, kept: string | undefined, mtimeMs: number): boolean {
  if (!skipByMtime || mtimeMs >= (opts.since as number)) return false;
  if (kept !== undefined) {
    opts.keep?.beforeSince.add(kept);
    return false;
  }
  opts.stats.skippedSince++;
  return true;
}

/** The stat of a regular file at an absolute path, else undefined (missing, unreadable, a folder, a FIFO…). */
function regularFile(path: string): Stats | undefined {
  if (!isAbsolute(path)) return undefined;
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isFile() === true ? st : undefined;
  } catch {
    return undefined;
  }
}

/** The first bytes of a file, as `detectCodec` hands them to the codecs (opened read-only), or undefined. */
function headOf(path: string, size: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(Math.min(size, DETECT_HEAD_BYTES));
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const UNLISTED_MARK = 'unlisted\0';

/**
 * The root an unlisted kept file's cache row holds: its folder behind a marker. The folder alone could equal
 * a real root (a copied transcript lying directly in `~/.claude/projects`, which Claude's discovery does not
 * list, or a root given one level up), and a cached scan of that root would then take the row for one of its
 * own: once the copy is gone, its usage would count as retained spend no report ever counted. A path holds
 * no NUL byte, so no root equals this.
 */
export function unlistedRoot(path: string): string {
  return `${UNLISTED_MARK}${dirname(path)}`;
}

/** Whether a cache row's root is an unlisted kept file's (`unlistedRoot`). */
export function isUnlistedRoot(root: string): boolean {
  return root.startsWith(UNLISTED_MARK);
}

/**
 * The kept files no selected codec's roots list, when the scan asks for them (`KeepFiles.unlisted`), each
 * with the selected codec that claims it: the highest `detect` score of its head, the first on a tie; a file
 * none claims is left out. Its root is `unlistedRoot`, which no scan of the agent's roots names, so a cached
 * scan of those roots never takes its cache row for one of theirs. Only its stat and head are read.
 */
async function unlistedKept(opts: NormalizedScanOptions, kept: KeptPaths | undefined): Promise<ScanFile[]> {
  const unlisted = opts.keep?.unlisted;
  if (opts.keep === undefined || unlisted === undefined || kept === undefined) return [];
  const out: ScanFile[] = [];
  const candidates = opts.sources.map((s) => s.codec);
  let loaded: DetectCandidate<Codec>[] | undefined;
  for (const path of opts.keep.paths) {
    if (kept.listed.has(path)) continue;
    const st = regularFile(path);
    const head = st === undefined ? undefined : headOf(path, st.size);
    if (st === undefined || head === undefined) continue;
    loaded ??= await Promise.all(candidates.map(async (codec) => ({ codec, loaded: await loadCodec(codec) })));
    const best = mostSure(loaded, path, head);
    if (best === undefined) continue;
    unlisted.add(path);
    opts.stats.files++;
    out.push({ codec: best, path, root: unlistedRoot(path), ...fileStatOf(st), deps: fingerprintDependencies(best, path, opts.discover) });
  }
  return out;
}

/** A lazy codec's listing while its module is not loaded (src/lazy-codec.ts `unloadedListing`). */
interface Unloaded {
  unloadedListing?: CodecListing | undefined;
  loadFor?(roots: readonly string[]): Promise<void>;
}

/**
 * What a discovery `withoutParsers` left unloaded, loaded: the codecs whose module `discover()` would have
 * loaded (of those in `only`, when given). Call it before anything but the files' stats is asked of the codecs
 * (a scan: the cached scan loads only the codecs of the files it reads, src/scan/cached.ts).
 */
export async function loadListedCodecs(opts: NormalizedScanOptions, only?: ReadonlySet<Codec>): Promise<void> {
  await Promise.all(opts.sources.filter((s) => only === undefined || only.has(s.codec)).map(({ codec, roots }) => (codec as Unloaded).loadFor?.(roots)));
}

/**
 * Every selected file, stat'ed, with its dependencies' fingerprints. `withoutParsers`: a lazy codec whose
 * descriptor has a listing lists its files with it, without loading its module, for a caller that may need
 * only the stats (src/cost/incremental.ts); it calls `loadListedCodecs` before using the codecs for more.
 */
export async function discoverFiles(opts: NormalizedScanOptions, withoutParsers = false): Promise<Discovery> {
  const seen = new Map<string, Set<string>>();
  const files: ScanFile[] = [];
  const stats = opts.stats;
  const tally = opts.sourceReport?.tally;
  tally?.begin();
  const unreadable: [string, string][] = [];
  const kept = keptPaths(opts);
  for (const { codec, roots } of opts.sources) {
    const mark = unreadableMark();
    const listing = withoutParsers && installed === undefined ? (codec as Unloaded).unloadedListing : undefined;
    const found =
      listing !== undefined
        ? await discoverSource(listing, roots, undefined, opts.discover)
        : installed !== undefined
          ? await installed.source(codec, roots, () => discoverSource(codec, roots, undefined, opts.discover))
          : await discoverSource(codec, roots, undefined, opts.discover);
    unreadable.push(...unreadableOf(opts, codec, mark, roots));
    const paths = new Set<string>();
    seen.set(codec.id, paths);
    const skipByMtime = opts.since !== undefined && codec.capabilities.eventsPrecedeMtime === true;
    for (const f of found) {
      paths.add(f.path);
      stats.files++;
      tally?.file(codec.id, f.root);
      if (skippedBySince(opts, skipByMtime, kept?.of(f.path), f.mtimeMs)) continue;
      files.push({ codec, path: f.path, root: f.root, size: f.size, mtimeMs: f.mtimeMs, ino: f.ino, ctimeMs: f.ctimeMs, deps: f.deps });
    }
  }
  for (const f of await unlistedKept(opts, kept)) {
    files.push(f);
    seen.get(f.codec.id)?.add(f.path);
  }
  warnUnreadable(opts, unreadable);
  writeSourceReport(opts);
  return { files, seen };
}

/** True when discovery can hand files over as it finds them (no DiscoveryCache answers for it). */
export function canDiscoverStreaming(): boolean {
  return installed === undefined;
}

/**
 * `discoverFiles` for a scan that starts reading before the listing ends: files go to `onFiles` in chunks of
 * `chunk`, in the codecs' order, and the event loop turns between chunks (so that reads started on the ones
 * handed over complete and are folded meanwhile). Only without a DiscoveryCache (`canDiscoverStreaming`).
 */
export async function discoverStreaming(opts: NormalizedScanOptions, onFiles: (files: ScanFile[]) => boolean, chunk = 64): Promise<void> {
  const stats = opts.stats;
  const tally = opts.sourceReport?.tally;
  tally?.begin();
  const unreadable: [string, string][] = [];
  let pending: ScanFile[] = [];
  // The first chunks are small, so that reading starts as soon as a few files are known.
  let size = Math.min(8, chunk);
  /** Hand `pending` over; false when the consumer wants no more (its scan ended): discovery stops. */
  const flush = async (): Promise<boolean> => {
    if (pending.length === 0) return true;
    const out = pending;
    pending = [];
    size = Math.min(chunk, size * 2);
    if (!onFiles(out)) return false;
    await new Promise<void>((r) => setImmediate(r));
    return true;
  };
  const kept = keptPaths(opts);
  for (const { codec, roots } of opts.sources) {
    if (roots.length === 0) continue;
    const mark = unreadableMark();
    const paths = new Set<string>();
    const skipByMtime = opts.since !== undefined && codec.capabilities.eventsPrecedeMtime === true;
    /** Take one discovered file; true when it went to `pending`. */
    const take = (d: SessionFile): boolean => {
      if (paths.has(d.path)) return false;
      paths.add(d.path);
      const s = statOf(d);
      if (s === undefined) return false;
      stats.files++;
      tally?.file(codec.id, d.root);
      if (skippedBySince(opts, skipByMtime, kept?.of(d.path), s.mtimeMs)) return false;
      pending.push({ codec, path: d.path, root: d.root, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs, deps: fingerprintDependencies(codec, d.path, opts.discover) });
      return true;
    };
    // A codec that lists synchronously is iterated without a promise per file.
    const listed = codec.discoverSync?.(roots, opts.discover);
    if (listed !== undefined) {
      for (const d of listed) if (take(d) && pending.length >= size && !(await flush())) return;
    } else for await (const d of codec.discover(roots, opts.discover)) if (take(d) && pending.length >= size && !(await flush())) return;
    unreadable.push(...unreadableOf(opts, codec, mark, roots));
  }
  pending.push(...(await unlistedKept(opts, kept)));
  warnUnreadable(opts, unreadable);
  writeSourceReport(opts);
  await flush();
}
