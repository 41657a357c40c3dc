/**
 * Where DeepSeek Harness keeps its sessions (README.md, "Where"). Its JSONL persistence plugin is given a
 * root, `dshHomePath('sessions')` in dsh's own compositions: `$DSH_HOME/sessions`, the home `~/.dsh` when
 * `DSH_HOME` is unset or blank (`~` expanded). The example JSON-RPC composition takes `$DSH_SESSION_ROOT`
 * instead, and Cherry Studio runs dsh with `<userData>/Data/Agents/.dsh/sessions`. Under a root:
 *
 *   <root>/<project dir>/<session dir>/session.jsonl[.zstd]        generation 0
 *   <root>/<project dir>/<session dir>/session.v<N>.jsonl[.zstd]    generation N (1, 2, 3, 4, …)
 *
 * A migration publishes the next generation beside the old ones, which stay byte for byte: the session is
 * its highest generation alone, which holds the whole history (README.md, "Generations"). Every other name
 * (a lock, a relocation's hidden or staged copy, a temporary file) is not a session log.
 */
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { distinctFolders, electronAppData, envDir, envPathList, expandHome } from '../../cursors/env-paths.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'dsh';

/** A generation's file name: `session.jsonl` (0) or `session.v<N>.jsonl` (N without leading zeros), `.zstd` compressed. */
const GENERATION_NAME = /^session(?:\.v([1-9][0-9]{0,8}))?\.jsonl(\.zstd)?$/;

/** The suffix of a compressed generation. */
export const ZSTD_LOG_SUFFIX = '.zstd';

/** Whether a session log is compressed (`….jsonl.zstd`: zstd frames, read through cursors/read-zstd-frames.ts). */
export function isCompressedLog(file: string): boolean {
  return file.endsWith(ZSTD_LOG_SUFFIX);
}

/** A generation file's number and encoding, or undefined for any other name. */
export function generationOf(name: string): { version: number; compressed: boolean } | undefined {
  const m = GENERATION_NAME.exec(name);
  return m === null ? undefined : { version: m[1] === undefined ? 0 : Number(m[1]), compressed: m[2] !== undefined };
}

/** dsh's home: `$DSH_HOME` (blank is unset, `~` expanded, resolved), else `~/.dsh` (`@deepseek-ai/dsh-home-paths`). */
export function dshHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || env.USERPROFILE || homedir();
  const own = env.DSH_HOME; // blank is unset; any other value is taken as written, spaces and all
  return own !== undefined && own.trim() !== '' ? resolve(expandHome(own, home)) : join(home, '.dsh');
}

/**
 * The session roots: `SESSIONFOLD_DSH_DIR` (comma-separated roots) replaces them all; else dsh's own
 * (`$DSH_HOME/sessions`), `$DSH_SESSION_ROOT` when set, and Cherry Studio's runtime folder.
 */
export function getDshRoots(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicit = envPathList(env.SESSIONFOLD_DSH_DIR);
  if (explicit.length > 0) return explicit;
  const home = env.HOME || env.USERPROFILE || homedir();
  const roots = [join(dshHome(env), 'sessions')];
  const sdk = envDir(env, 'DSH_SESSION_ROOT', { home, absolute: true });
  if (sdk !== undefined) roots.push(sdk);
  roots.push(join(electronAppData(env, platform), 'CherryStudio', 'Data', 'Agents', '.dsh', 'sessions'));
  return distinctFolders(roots);
}

/**
 * A session id from its folder's name, undoing dsh's `encodeSegment`: `~XXXX` is one UTF-16 code unit; a
 * name that is not such an encoding is taken as it is. The header's `id` is the session's own (parse.ts).
 */
export function decodeSessionDir(name: string): string {
  if (!name.includes('~')) return name;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const hex = name[i] === '~' ? name.slice(i + 1, i + 5) : '';
    if (/^[0-9A-F]{4}$/.test(hex)) {
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += name[i];
  }
  return out;
}

/** The session id a log's path names: its folder's, decoded (`-`, stdin, has none). */
export function dshSessionIdOf(file: string): string {
  return file === '-' ? '-' : decodeSessionDir(basename(dirname(file)));
}

/** The current generation among a session folder's entries: the highest number; at one number, the compressed file (dsh's default). */
function currentGeneration(names: readonly string[]): string | undefined {
  let best: string | undefined;
  let rank = -1;
  for (const name of names) {
    const g = generationOf(name);
    if (g === undefined) continue;
    const r = g.version * 2 + (g.compressed ? 1 : 0);
    if (r > rank) [best, rank] = [name, r];
  }
  return best;
}

/** The current generation of each session folder under the roots (two levels down), synchronously; missing roots are skipped. */
export function* discoverDshSync(roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const project of listDir(root)) {
      // hidden entries are dsh's relocation intents and other tools' folders, never a project
      if (project.kind !== DIR || project.name.startsWith('.')) continue;
      const projectDir = join(root, project.name);
      for (const session of listDir(projectDir)) {
        if (session.kind !== DIR || session.name.startsWith('.')) continue;
        const dir = join(projectDir, session.name);
        const entries = listDir(dir).filter((e) => e.kind === FILE);
        const name = currentGeneration(entries.map((e) => e.name));
        const entry = entries.find((e) => e.name === name);
        const st = entry === undefined ? undefined : fileStat(dir, entry);
        if (name === undefined || st === undefined) continue;
        const path = join(dir, name);
        if (seen.has(path)) continue;
        seen.add(path);
        yield { agent: CODEC_ID, path, root, sessionId: decodeSessionDir(session.name), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
      }
    }
  }
}

/** Whether `file` is a session log this codec reads: a generation's name in a session folder. */
export function isDshLog(file: string): boolean {
  return generationOf(basename(file)) !== undefined;
}
