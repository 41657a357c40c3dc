/**
 * Where each selected agent's history was looked for and what was there: one `SourceReport` per (agent, root),
 * found (and how many session files), unreadable (and why), or missing, with the agent's own variable when
 * that is what named the root. A scan fills one as it discovers (`ScanOptions.sources`); `surveySources`
 * takes one without scanning, for the commands that list sessions. The CLI prints them (src/cli/sources.ts)
 * so that no folder is skipped without a word.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { sep } from 'node:path';
import type { Codec } from '../../cursors/protocol/codec.js';
import { unreadableMark, unreadableSince } from '../../cursors/list-dir.js';

export type SourceStatus = 'found' | 'unreadable' | 'missing';

export interface SourceReport {
  /** Codec id. */
  agent: string;
  root: string;
  status: SourceStatus;
  /** Why an unreadable root is (an errno code such as `EACCES`, or `not a directory`). */
  reason?: string;
  /** The agent's own variable (`CLAUDE_CONFIG_DIR`, …) that named this root, when one did. */
  variable?: string;
  /** Session files found under the root. */
  files: number;
  /** Folders under the root that could not be listed and files that could not be read: left out. */
  unreadable: number;
  /** `false` for an agent that records no token usage (Cursor): its sessions' usage is unknown, not $0. */
  usageRecorded?: false;
}

/** A root's state on disk: a folder this process can list, something else (and why), or nothing. */
export function rootState(root: string): Pick<SourceReport, 'status' | 'reason'> {
  try {
    // A missing root is the common case (agents not installed), once per root per report: no exception built.
    const st = statSync(root, { throwIfNoEntry: false });
    if (st === undefined) return { status: 'missing' };
    if (!st.isDirectory()) return { status: 'unreadable', reason: 'not a directory' };
    accessSync(root, constants.R_OK | constants.X_OK);
    return { status: 'found' };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'unreadable', reason: code ?? 'cannot be read' };
  }
}

/** The variable of `codec.rootVariables` that put `root` among its default roots under `env`, if any. */
export function variableOf(codec: Codec, root: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of codec.rootVariables ?? []) {
    if (!env[name]?.trim()) continue;
    if (!codec.defaultRoots({ ...env, [name]: undefined }).includes(root)) return name;
  }
  return undefined;
}

function under(path: string, root: string): boolean {
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The counts behind a source report, taken as discovery goes: files per root, the folders it could not
 * list (per codec, from cursors/list-dir.ts), and files a read could not open. `report()` may come before
 * the last failed read (a scan reads while it discovers): a later failure counts in the report it gave.
 * One per report (`tallyOf`): a cached report discovers, reads and answers from the cache through separate
 * normalizations of its options, and a failure any of them counts belongs in the one report.
 */
export class SourceTally {
  readonly #files = new Map<string, number>();
  readonly #failed = new Map<string, number>();
  readonly #folders = new Map<string, string[]>();
  #out: SourceReport[] | undefined;

  /** A discovery starts: what an earlier one of the same report counted is not this one's. */
  begin(): void {
    this.#files.clear();
    this.#failed.clear();
    this.#folders.clear();
    this.#out = undefined;
  }

  /** One session file found under `root`. */
  file(agent: string, root: string): void {
    const k = `${agent}\0${root}`;
    this.#files.set(k, (this.#files.get(k) ?? 0) + 1);
  }

  /** The folders `agent`'s discovery could not list (cursors/list-dir.ts `unreadableSince`); returned for the caller to warn. */
  unreadable(agent: string, found: [dir: string, why: string][]): [dir: string, why: string][] {
    const dirs = this.#folders.get(agent) ?? [];
    for (const [dir] of found) dirs.push(dir);
    this.#folders.set(agent, dirs);
    return found;
  }

  /** A file of `agent` under `root` that a read could not open. */
  failed(agent: string, root: string): void {
    const entry = this.#out?.find((s) => s.agent === agent && s.root === root);
    if (entry !== undefined) entry.unreadable++;
    else this.#failed.set(`${agent}\0${root}`, (this.#failed.get(`${agent}\0${root}`) ?? 0) + 1);
  }

  /** The report of `sources` (each codec with its roots, in order), written into `out` (its old entries replaced). */
  report(sources: readonly { codec: Codec; roots: readonly string[] }[], env: NodeJS.ProcessEnv, out: SourceReport[] = []): SourceReport[] {
    out.length = 0;
    for (const { codec, roots } of sources) {
      const folders = this.#folders.get(codec.id) ?? [];
      roots.forEach((root, i) => {
        const k = `${codec.id}\0${root}`;
        const files = this.#files.get(k) ?? 0;
        // A root the codec listed sessions from is found, a file among them (a database `OPENCODE_DB` names).
        const state = files > 0 ? ({ status: 'found' } as const) : rootState(root);
        // A folder outside every root (reached through a link) counts under the agent's first root.
        const inside = folders.filter((d) => (under(d, root) || (i === 0 && !roots.some((r) => d === r || under(d, r)))) && d !== root).length;
        const variable = variableOf(codec, root, env);
        out.push({
          agent: codec.id,
          root,
          ...state,
          ...(variable !== undefined && { variable }),
          files,
          // an unreadable root says it for everything under it
          unreadable: (state.status === 'unreadable' ? 0 : inside) + (this.#failed.get(k) ?? 0),
          ...(codec.capabilities.recordsUsage === false && { usageRecorded: false as const }),
        });
      });
    }
    this.#failed.clear();
    this.#out = out;
    return out;
  }
}

const tallies = new WeakMap<SourceReport[], SourceTally>();

/** The tally that fills `out`: the same for every scan given that array (`ScanOptions.sources`). */
export function tallyOf(out: SourceReport[]): SourceTally {
  let t = tallies.get(out);
  if (t === undefined) tallies.set(out, (t = new SourceTally()));
  return t;
}

/** The source report of `codecs` under their default roots, from a discovery of its own (no file is read). */
export async function surveySources(codecs: readonly Codec[], env: NodeJS.ProcessEnv): Promise<SourceReport[]> {
  const tally = new SourceTally();
  const sources = codecs.map((codec) => ({ codec, roots: [...new Set(codec.defaultRoots(env))] }));
  for (const { codec, roots } of sources) {
    const mark = unreadableMark();
    const seen = new Set<string>();
    for await (const f of codec.discoverSync?.(roots) ?? codec.discover(roots)) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      tally.file(codec.id, f.root);
    }
    tally.unreadable(codec.id, unreadableSince(mark, roots));
  }
  return tally.report(sources, env);
}
