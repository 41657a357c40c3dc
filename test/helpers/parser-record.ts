/**
 * The record that ties each codec's golden events to its parser version (fixtures/expected/parser-versions.json):
 * per codec, the version its events were recorded under and a digest of each of its golden files. The event
 * cache keeps a file's events until the codec's version changes, so a golden file that changed or went away
 * under an unchanged version means cached files would go on showing the old reading. A golden file added is
 * new coverage, not a new reading: it is recorded without a bump (a bump would re-read that agent in every
 * user's cache for nothing).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface ParserRecord {
  /** CORE_EVENT_VERSION: the shape every codec's events share. */
  readonly coreEventVersion: number;
  /** The codec's descriptor's parserVersion. */
  readonly parserVersion: number;
  /** sha256 of each golden file's bytes, by its path under the codec's golden folder ('/'-separated). */
  readonly files: Readonly<Record<string, string>>;
}

export type ParserRecords = Record<string, ParserRecord>;

export const RECORDER = 'UPDATE_PARSER_VERSIONS=1 npx vitest run test/parser-versions.test.ts';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The digest of each file under `dir` (one codec's golden folder), keyed by its path there, in name order. */
export async function goldenDigests(dir: string): Promise<Record<string, string>> {
  const files = (await filesUnder(dir)).map((p) => [relative(dir, p).split('\\').join('/'), p] as const);
  files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Record<string, string> = {};
  for (const [name, path] of files) out[name] = createHash('sha256').update(await readFile(path)).digest('hex');
  return out;
}

/** -1, 0 or 1 as version `a` is below, equal to or above `b` (core first, then the codec's own). */
function compareVersions(a: ParserRecord, b: ParserRecord): number {
  if (a.coreEventVersion !== b.coreEventVersion) return a.coreEventVersion < b.coreEventVersion ? -1 : 1;
  if (a.parserVersion !== b.parserVersion) return a.parserVersion < b.parserVersion ? -1 : 1;
  return 0;
}

/**
 * What is wrong with codec `id`'s record given what its descriptor and golden files say now, or undefined.
 * `refuse` marks what re-recording must not paper over: a recorded golden file changed or removed under the
 * same version, or a version that went down (a cache would take events written by a later parser as current).
 * Golden files added under the same version only ask to be recorded.
 */
export function recordProblem(id: string, recorded: ParserRecord | undefined, now: ParserRecord): { message: string; refuse: boolean } | undefined {
  const where = `codecs/${id}/descriptor.ts (or the engine's descriptor it takes its version from)`;
  if (recorded === undefined) return { message: `${id} has golden files but no entry in parser-versions.json: record it with ${RECORDER}`, refuse: false };
  const order = compareVersions(now, recorded);
  if (order < 0) {
    return { message: `${id}'s parser version went down (n${recorded.coreEventVersion}.p${recorded.parserVersion} recorded, n${now.coreEventVersion}.p${now.parserVersion} now): versions only go up`, refuse: true };
  }
  if (order === 0) {
    const moved = Object.keys(recorded.files).filter((name) => now.files[name] !== recorded.files[name]);
    if (moved.length > 0) {
      return {
        message:
          `${id}'s golden events changed or were removed (${moved.join(', ')}) but its parser version did not (still ` +
          `p${now.parserVersion}): files cached under the old rules would never be re-read. Bump PARSER_VERSION in ` +
          `${where}, then re-record with ${RECORDER}`,
        refuse: true,
      };
    }
    const added = Object.keys(now.files).filter((name) => !Object.hasOwn(recorded.files, name));
    if (added.length > 0) {
      return {
        message: `${id} has new golden files (${added.join(', ')}): record them with ${RECORDER} (new coverage needs no PARSER_VERSION bump)`,
        refuse: false,
      };
    }
    return undefined;
  }
  if (order > 0) return { message: `${id}'s parser version rose to p${now.parserVersion}: re-record parser-versions.json with ${RECORDER}`, refuse: false };
  return undefined;
}
