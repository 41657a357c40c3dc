/**
 * One directory's entries for discovery, sorted by name, with each regular file's stat (`FileStat`). With the
 * native kernel a directory is one call (native/walk.c: getdents and fstatat, no Dirent or Stats object per
 * entry); without it, `readdirSync` and a `statSync` per file when a codec asks for its stat. Both answer
 * alike: the kinds of a Dirent (a symlink is neither a file nor a directory), Node's mtimeMs, ctimeMs and ino,
 * an unreadable directory as empty, and a file gone between the listing and its stat as gone.
 */
import { isUtf8 } from 'node:buffer';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { aligned8, nativeKernel } from './native.js';

/** Entry kinds (native/walk.c's LD_ values). */
export const OTHER = 0;
export const FILE = 1;
export const DIR = 2;
const GONE = 3;
const STAT_FAILED = 4;

export interface DirEntry {
  name: string;
  /** FILE, DIR or OTHER (a gone file is FILE with a stat of undefined). */
  kind: number;
  /** The stat of a FILE: from the listing, else taken by `fileStat` (undefined there until then). */
  stat: FileStat | undefined | null;
}

/**
 * What discovery keeps of a file's stat: the event cache's identity of the file (src/scan/classify.ts). The
 * size and mtime say a write; the ctime and inode, which no user sets, say a rewrite whose mtime was put back
 * (`cp -p`, `rsync -t`, `touch -d`) or a file renamed over it. `ino` is Node's number (exact below 2^53; 0 where
 * the file system has none, as on some Windows volumes: then the ctime alone says it).
 */
export interface FileStat {
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
}

/** A Node stat's FileStat. */
export function fileStatOf(s: Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'ctimeMs'>): FileStat {
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
}

/** Doubles per entry of a listing block (native/walk.c LD_PER): kind, then a FILE's size, mtimeMs, ino, ctimeMs. */
const PER_ENTRY = 5;
/** Doubles per entry of a tree listing (`TreeListing.nums`): its depth, then PER_ENTRY. */
export const TREE_STRIDE = 1 + PER_ENTRY;

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** An entry from a kernel block's doubles from `at` (kind, then a file's stat). */
function entryOf(name: string, nums: Float64Array, at: number): DirEntry {
  const kind = nums[at] as number;
  if (kind === FILE) return { name, kind, stat: statAt(nums, at) };
  if (kind === GONE) return { name, kind: FILE, stat: null };
  if (kind === STAT_FAILED) return { name, kind: FILE, stat: undefined };
  return { name, kind, stat: null };
}

/** The FileStat of a block's entry whose kind is at `at` (its stat follows it). */
function statAt(nums: Float64Array, at: number): FileStat {
  return { size: nums[at + 1] as number, mtimeMs: nums[at + 2] as number, ino: nums[at + 3] as number, ctimeMs: nums[at + 4] as number };
}

/** A kernel listing block (native/walk.c): `per` doubles per entry, its last PER_ENTRY the kind and a file's stat. */
function readListing(raw: Buffer, per: number): { n: number; nums: Float64Array; names: string[] } {
  const b = aligned8(raw);
  const head = new Float64Array(b.buffer, b.byteOffset, 2);
  const n = head[0] as number;
  const at = 16 + 8 * per * n;
  return { n, nums: new Float64Array(b.buffer, b.byteOffset + 16, per * n), names: b.toString('utf8', at, at + (head[1] as number) - 1).split('\0') };
}

/** The kernel's listing block as entries. */
function fromBlock(raw: Buffer): DirEntry[] {
  const { n, nums, names } = readListing(raw, PER_ENTRY);
  const out: DirEntry[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = entryOf(names[i] as string, nums, PER_ENTRY * i);
  return out;
}

/**
 * Folders that exist but could not be listed (permissions, I/O), with why, each with its place in the order
 * they were noted: discovery reports them, so that the sessions inside are never left out without a word. A
 * discovery takes a mark before it lists and asks for the folders noted since under its roots
 * (`unreadableSince`), so discoveries that interleave (two requests to `serve`) each get their own and none
 * takes another's away. The last NOTES_KEPT notes are kept.
 */
const notes: { seq: number; dir: string; why: string }[] = [];
let noted = 0;
const NOTES_KEPT = 1000;

/** The mark a discovery takes before it lists (see `unreadableSince`). */
export function unreadableMark(): number {
  return noted;
}

/** Whether `dir` is `root`, inside it, or a folder above it (a discovery may list a root's parent). */
function related(dir: string, root: string): boolean {
  const [a, b] = dir.length >= root.length ? [dir, root] : [root, dir];
  return a === b || (a.startsWith(b) && (a[b.length] === sep || b.endsWith(sep)));
}

/** The folders noted unreadable since `mark` under one of `roots` (all, when none are given), each once. */
export function unreadableSince(mark: number, roots?: readonly string[]): [dir: string, why: string][] {
  const out = new Map<string, string>();
  for (const n of notes) if (n.seq > mark && (roots === undefined || roots.some((r) => related(n.dir, r)))) out.set(n.dir, n.why);
  return [...out];
}

function note(dir: string, why: string): void {
  notes.push({ seq: ++noted, dir, why });
  if (notes.length > NOTES_KEPT) notes.splice(0, notes.length - NOTES_KEPT);
}

/** Note `dir` as unreadable when it is there (a missing folder is no news); `why` an errno code, if known. */
function noteUnreadable(dir: string, why?: string): void {
  if (why === 'ENOENT' || why === 'ENOTDIR') return;
  try {
    if (!statSync(dir).isDirectory()) return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
  }
  note(dir, why ?? 'cannot be listed');
}

/**
 * Note a folder (or a root that is not one) whose sessions discovery leaves out for a reason of its own (a
 * bound it will not walk past), reported as `unreadableSince` reports the folders it could not list.
 */
export function noteLeftOut(dir: string, why: string): void {
  note(dir, why);
}

/** The kernel's listing of `dir` (unsorted), or null when it cannot be read; undefined without the kernel. */
export function listDirNative(dir: string): DirEntry[] | null | undefined {
  const k = nativeKernel();
  if (k === undefined) return undefined;
  const raw = k.listDir(dir);
  if (raw === null) noteUnreadable(dir);
  return raw === null ? null : fromBlock(raw);
}

/** `readdirSync`'s listing of `dir` (unsorted, stats left to `fileStat`), or null when it cannot be read. */
export function listDirJs(dir: string): DirEntry[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, kind: e.isFile() ? FILE : e.isDirectory() ? DIR : OTHER, stat: undefined }));
  } catch (e) {
    noteUnreadable(dir, (e as NodeJS.ErrnoException).code);
    return null;
  }
}

/**
 * What a symbolic link (or another non-file entry) at `path` leads to: a regular file's stat, 'dir', or
 * undefined (a FIFO, a socket, a device, a dangling or looping link: nothing discovery reads). A stat, not an
 * open, so a FIFO never blocks.
 */
export function followEntry(path: string): FileStat | 'dir' | undefined {
  try {
    const s = statSync(path);
    if (s.isDirectory()) return 'dir';
    return s.isFile() ? fileStatOf(s) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `dir`'s entries sorted by name (UTF-16 code units, as `<` compares); [] when it cannot be read. The
 * kernel lists it unless `SESSIONFOLD_NATIVE_LISTING=0` (or `SESSIONFOLD_NATIVE=0`, which loads no kernel).
 * A symbolic link is followed (`followEntry`): to a folder, a DIR; to a file, a FILE with the target's
 * stat. One level only: a caller that walks deeper bounds its depth, so a looping link cannot recur forever.
 */
export function listDir(dir: string): DirEntry[] {
  const entries = listDirLinks(dir);
  for (const e of entries) {
    if (e.kind !== OTHER) continue;
    const t = followEntry(join(dir, e.name));
    if (t === 'dir') e.kind = DIR;
    else if (t !== undefined) {
      e.kind = FILE;
      e.stat = t;
    }
  }
  return entries;
}

/** `listDir` with links left as OTHER (a tree walk's listing: a tree cannot loop). */
function listDirLinks(dir: string): DirEntry[] {
  const native = process.env.SESSIONFOLD_NATIVE_LISTING !== '0' ? listDirNative(dir) : undefined;
  const entries = native === undefined ? listDirJs(dir) : native;
  return entries === null ? [] : entries.filter((e) => !isUnnamable(dir, e.name)).sort(byName);
}

/**
 * True (and noted, so discovery warns) when `name`, as listed in `dir`, stands for a name whose bytes are not
 * valid UTF-8. Listings decode names as UTF-8, an invalid byte as U+FFFD, and a path built from that string
 * names another file (or none): such an entry can be neither opened nor read by its path, so it is named in
 * a warning with its bytes escaped (`\xff`) instead of being left out without a word.
 */
export function isUnnamable(dir: string, name: string): boolean {
  if (!name.includes('\uFFFD')) return false;
  let raw: Buffer[];
  try {
    raw = readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return false;
  }
  const bad = raw.find((b) => !isUtf8(b) && b.toString('utf8') === name);
  if (bad === undefined) return false;
  noteLeftOut(join(dir, escapeName(bad)), 'its name is not valid UTF-8, so it cannot be opened by path: rename it to read it');
  return true;
}

/** A file name's bytes as text: printable ASCII as it is, every other byte as `\xNN`. */
export function escapeName(b: Uint8Array): string {
  let out = '';
  for (const c of b) out += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
  return out;
}

/**
 * The stat of a FILE entry of `dir`'s listing (a `statSync` when the listing has none: the JavaScript
 * listing, or a stat the kernel could not take, whose error this throws as Node does); undefined when the
 * file is gone.
 */
export function fileStat(dir: string, e: DirEntry): FileStat | undefined {
  if (e.stat === undefined) {
    const s = statSync(join(dir, e.name), { throwIfNoEntry: false });
    e.stat = s === undefined ? null : fileStatOf(s);
  }
  return e.stat ?? undefined;
}

/** An entry of `listTree`: a DirEntry and its depth (0: the root's own entries). */
export interface TreeEntry extends DirEntry {
  depth: number;
}

/**
 * A tree listing by columns, read without an object per entry: entry i's depth and kind are
 * `nums[TREE_STRIDE * i]` and the next, a FILE's stat the following ones (`treeStat`), its name `names[i]`. The kernel's block as it is; the JavaScript walk fills it alike, its
 * files with kind NEEDS_STAT (their stats left to `statEntry`).
 */
export interface TreeListing {
  n: number;
  nums: Float64Array;
  names: string[];
}

/** A FILE whose stat is still to take (a stat the kernel could not take, or the JavaScript walk's files). */
export const NEEDS_STAT = STAT_FAILED;

/**
 * Make entry `i` of `t` (a file of `dir`) a FILE with its stat, taking it now when the listing has none
 * (a `statSync`, whose errors other than a missing file it throws, as Node does); false when it is gone.
 */
export function statEntry(t: TreeListing, i: number, dir: string): boolean {
  const at = TREE_STRIDE * i + 1;
  const kind = t.nums[at] as number;
  if (kind === FILE) return true;
  if (kind === GONE) return false;
  const s = statSync(dir + sep + (t.names[i] as string), { throwIfNoEntry: false });
  t.nums[at] = s === undefined ? GONE : FILE;
  if (s === undefined) return false;
  t.nums.set([s.size, s.mtimeMs, s.ino, s.ctimeMs], at + 1);
  return true;
}

/** The stat of entry `i` of `t`, a FILE (`statEntry` said so). */
export function treeStat(t: TreeListing, i: number): FileStat {
  return statAt(t.nums, TREE_STRIDE * i + 1);
}

function walkJs(dir: string, depth: number, only: readonly string[], maxDepth: number, out: { depth: number; kind: number; name: string }[]): void {
  for (const e of listDirLinks(dir)) {
    out.push({ depth, kind: e.kind === FILE ? NEEDS_STAT : e.kind, name: e.name });
    if (depth + 1 >= maxDepth) continue;
    const want = only[depth] ?? '';
    if (want === '' ? e.kind === DIR : e.name === want) walkJs(join(dir, e.name), depth + 1, only, maxDepth, out);
  }
}

/**
 * A whole tree under `root`, depth first, each directory's entries sorted by name and followed by its own:
 * at depth d < maxDepth − 1, a directory is entered when `only[d]` is empty (or absent), or when its name is
 * `only[d]` (then followed if it is a link, as a listing of its path is). Symlinks are otherwise neither files
 * nor directories, so a tree cannot loop. Empty when the root cannot be read. One native call where the
 * kernel is built (its stats taken as it lists); else `listDir` per directory, the stats left to `statEntry`.
 */
export function listTreeColumns(root: string, only: readonly string[], maxDepth: number): TreeListing {
  const k = process.env.SESSIONFOLD_NATIVE_LISTING !== '0' ? nativeKernel() : undefined;
  if (k !== undefined) {
    const raw = k.listTree(root, only, maxDepth);
    if (raw === null) noteUnreadable(root);
    return raw === null ? { n: 0, nums: new Float64Array(0), names: [] } : withoutUnnamable(root, readListing(raw, TREE_STRIDE));
  }
  const out: { depth: number; kind: number; name: string }[] = [];
  walkJs(root, 0, only, maxDepth, out);
  const nums = new Float64Array(TREE_STRIDE * out.length).fill(Number.NaN);
  out.forEach((e, i) => {
    nums[TREE_STRIDE * i] = e.depth;
    nums[TREE_STRIDE * i + 1] = e.kind;
  });
  return { n: out.length, nums, names: out.map((e) => e.name) };
}

/**
 * A tree listing with every entry whose name is not valid UTF-8 (`isUnnamable`, which names it in a warning)
 * made OTHER, and everything under such a folder too: no path string reaches them.
 */
function withoutUnnamable(root: string, t: TreeListing): TreeListing {
  if (!t.names.some((n) => n.includes('\uFFFD'))) return t;
  const dirs: string[] = [root];
  let below = Infinity;
  for (let i = 0; i < t.n; i++) {
    const depth = t.nums[TREE_STRIDE * i] as number;
    const name = t.names[i] as string;
    dirs[depth + 1] = (dirs[depth] as string) + sep + name;
    if (depth <= below) below = Infinity;
    if (depth > below || isUnnamable(dirs[depth] as string, name)) {
      t.nums[TREE_STRIDE * i + 1] = OTHER;
      if (depth < below) below = depth;
    }
  }
  return t;
}

/** `listTreeColumns` as entries (a FILE's stat taken when the listing has none; a gone one has none). */
export function listTree(root: string, only: readonly string[], maxDepth: number): TreeEntry[] {
  const t = listTreeColumns(root, only, maxDepth);
  const out: TreeEntry[] = new Array(t.n);
  const dirs: string[] = [root];
  for (let i = 0; i < t.n; i++) {
    const depth = t.nums[TREE_STRIDE * i] as number;
    const name = t.names[i] as string;
    const kind = t.nums[TREE_STRIDE * i + 1] as number;
    dirs[depth + 1] = (dirs[depth] as string) + sep + name; // a link entered by name (`only`) is a folder too
    const file = kind === FILE || kind === GONE || kind === NEEDS_STAT;
    const stat = file && statEntry(t, i, dirs[depth] as string) ? treeStat(t, i) : null;
    out[i] = { depth, name, kind: file ? FILE : kind, stat };
  }
  return out;
}
