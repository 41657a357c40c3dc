/**
 * The codec registry: codecs register under their id and aliases. Built-in codecs are listed in
 * `src/builtin-codecs.ts` and held as descriptors whose modules load when their files are listed or read
 * (src/lazy-codec.ts); `loadCodec()` loads one where a caller needs more than that. `registerCodec()` adds a
 * plugin codec at run time.
 */
import { promises } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { Codec } from '../cursors/protocol/codec.js';
import { SessionfoldError } from '../cursors/protocol/errors.js';
import { directoryError, openError } from '../cursors/open-file.js';
import { BUILTIN_CODECS } from './builtin-codecs.js';
import { LazyCodec } from './lazy-codec.js';

const byName = new Map<string, Codec>();
const ordered: Codec[] = [];

/** Register a codec under its id and aliases (and an extra adapter name, if given). Replaces an earlier one with the same id. */
export function registerCodec(codec: Codec, adapterName?: string): void {
  const existing = ordered.findIndex((c) => c.id === codec.id);
  if (existing >= 0) ordered.splice(existing, 1, codec);
  else ordered.push(codec);
  for (const name of [codec.id, ...codec.aliases, ...(adapterName ? [adapterName] : [])]) byName.set(name.toLowerCase(), codec);
}

/** The codec registered under `name` (id or alias), or undefined. */
export function findCodec(name: string): Codec | undefined {
  return byName.get(name.toLowerCase());
}

/** The codec registered under `name`, or AGENT_NOT_FOUND. */
export function getCodec(name: string): Codec {
  const c = findCodec(name);
  if (!c) throw new SessionfoldError('AGENT_NOT_FOUND', `Unknown agent "${name}". Known: ${ordered.map((x) => x.id).join(', ')}`, { agent: name });
  return c;
}

/** Every registered codec, built-ins first, in registration order. */
export function listCodecs(): readonly Codec[] {
  return ordered;
}

const builtins = new Set<Codec>(BUILTIN_CODECS.map((b) => new LazyCodec(b)));
for (const c of builtins) registerCodec(c);

/** A codec that ships with sessionfold (as the registry holds it): the scan's workers know it by name. */
export function isBuiltinCodec(codec: Codec): boolean {
  return builtins.has(codec);
}

/**
 * The codec with its module loaded: every member usable at once (a built-in codec otherwise loads it on the
 * first listing or read; its other members need it loaded). The same object, for a codec registered whole.
 */
export async function loadCodec(codec: Codec): Promise<Codec> {
  if (codec instanceof LazyCodec) await codec.load();
  return codec;
}

/**
 * Hand the registry's lazy entries codec objects already loaded (the package's entry imports them all): each
 * entry whose id they share takes its object at once, as `loadCodec` would after its import. Objects that are
 * not a registered lazy entry's are left alone.
 */
export function adoptCodecs(codecs: readonly unknown[]): void {
  for (const c of codecs) {
    if (typeof c !== 'object' || c === null || typeof (c as Codec).id !== 'string') continue;
    const entry = ordered.find((x) => x.id === (c as Codec).id);
    if (entry instanceof LazyCodec) entry.adopt(c as Codec);
  }
}

/** Every registered codec, loaded (see `loadCodec`). */
export async function loadCodecs(): Promise<readonly Codec[]> {
  await Promise.all(ordered.map(loadCodec));
  return ordered;
}

/** How much of a file `detectCodec` hands the codecs: a Codex 0.137+ first line alone is 40 KB and more. */
export const DETECT_HEAD_BYTES = 256 * 1024;

function under(file: string, root: string): boolean {
  const r = resolve(root);
  return file === r || file.startsWith(r.endsWith(sep) ? r : r + sep);
}

/** A codec `mostSure` may pick (`codec`, what it answers with) and that codec loaded (`loaded`, what it asks). */
export interface DetectCandidate<C> {
  readonly codec: C;
  readonly loaded: Codec;
}

/**
 * Of `candidates`, the one whose loaded codec is most sure that it wrote `path` from its first bytes:
 * `Codec.detect`'s score, plus `bonus` for a codec that claims it at all, the first on a tie; undefined when
 * none claims it. `detectCodec`'s rule, and the scan's for a file outside every root (src/scan/discover.ts).
 */
export function mostSure<C>(candidates: readonly DetectCandidate<C>[], path: string, head: Buffer, bonus: (c: Codec) => number = () => 0): C | undefined {
  let best: C | undefined;
  let bestScore = 0;
  for (const { codec, loaded } of candidates) {
    const score = loaded.detect?.(path, head) ?? 0;
    if (score === 0) continue;
    const total = score + bonus(loaded);
    if (total > bestScore) [best, bestScore] = [codec, total];
  }
  return best;
}

/**
 * The codec that wrote `file`, from its path and first bytes: a file under a codec's default roots is that
 * codec's when the codec does not refuse its head; otherwise the codec most sure of the head (`Codec.detect`)
 * wins, the first registered on a tie. AGENT_NOT_FOUND when no codec claims it.
 */
export async function detectCodec(file: string, env: NodeJS.ProcessEnv = process.env): Promise<Codec> {
  const path = resolve(file);
  let head: Buffer;
  // fs.promises at the call, not an import of node:fs/promises: that loads it (and the ten internal modules
  // it takes) on every start of the CLI's CommonJS bundle, where the registry is in the first chunks.
  // a missing file is what a codec's read() says it is (SESSION_NOT_FOUND); any other failure to open, IO_ERROR
  const fh = await promises.open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw openError(file, e);
  });
  try {
    const buf = Buffer.alloc(DETECT_HEAD_BYTES);
    // a directory opens and then refuses its first read: said so, not as a file no agent claims
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EISDIR') throw directoryError(file);
      return { bytesRead: 0 };
    });
    head = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const codecs = await loadCodecs();
  const candidates = codecs.map((codec) => ({ codec, loaded: codec }));
  const best = mostSure(candidates, path, head, (codec) => (codec.defaultRoots(env).some((r) => under(path, r)) ? 2 : 0));
  if (best === undefined) {
    throw new SessionfoldError('AGENT_NOT_FOUND', `Cannot tell which agent wrote ${file}; pass --agent <id> (known: ${ordered.map((x) => x.id).join(', ')})`, { file });
  }
  return best;
}
