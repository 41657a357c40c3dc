/**
 * The store's folder and its families (store.ts is the public surface): where each member of a family
 * lives, which family is where, the locked mutation with its recovery, and reads and writes of single
 * members. Names reaching here are validated already.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SessionfoldError, invalidOption } from '../../cursors/protocol/errors.js';
import { STORE_ARCHIVE_DIR, STORE_CHILD_MEMBERS, STORE_MEMBERS, STORE_SUBAGENTS, STORE_TRANSCRIPT, storeNameKey } from '../../cursors/protocol/session-store.js';
import { exists, listNames, moveIfPresent, readBytesIfPresent, readIfPresent, removeIfPresent, sweepTemps, syncDir, writeAtomic } from './fs.js';
import { withLock, type LockIntent } from './lock.js';
import { isValidName, validateName, validateWriteName } from './names.js';
import type { StoreMeta } from './types.js';

export const ARCHIVE_DIR = STORE_ARCHIVE_DIR;
export const TRANSCRIPT = STORE_TRANSCRIPT;
export const MEMBERS = STORE_MEMBERS;
export type Member = keyof typeof MEMBERS;
export const SUBAGENTS = STORE_SUBAGENTS;
export const CHILD = STORE_CHILD_MEMBERS;
export const DAY_MS = 86_400_000;
/** The file in a staged family that commits it: the members it holds, and whether it replaces the old ones. */
const STAGE_READY = '.ready';

/** One file of a family to write: its suffix after the name (`.meta.json`, `.subagents/<child>.jsonl`) and its text. */
export type FamilyFile = readonly [suffix: string, data: string | Uint8Array];

interface StagePlan {
  /** The suffixes of the staged members (the subagents folder as one). */
  members: string[];
  /** True: members outside `members` are removed (a whole family); false: they are kept. */
  replace: boolean;
}

/** Options of a SessionStore: how long a change waits for another process's lock. */
export interface SessionStoreOptions {
  /** How long a mutation waits for another process's lock before IO_ERROR. Default 30 s. */
  lockTimeoutMs?: number;
}

export function jsonLines(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

export function parseJson<T>(text: string | undefined, file: string): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new SessionfoldError('PARSE_ERROR', `${file} is not valid JSON`, { file, cause });
  }
}

/**
 * The records of a log member, one JSON object a line ([] when there is none). A line that is not one is
 * PARSE_ERROR naming the file and line: the store writes its logs whole, so such a line is damage, and
 * fewer records than were saved would pass for the log.
 */
export function parseJsonLines<T>(member: { path: string; text: string } | undefined): T[] {
  const out: T[] = [];
  (member?.text ?? '').split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    let cause: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      cause = e;
    }
    if (cause !== undefined || v === null || typeof v !== 'object' || Array.isArray(v)) {
      const file = (member as { path: string }).path;
      throw new SessionfoldError('PARSE_ERROR', `${file} line ${i + 1} is not a JSON object`, { file, line: i + 1, raw: line, cause });
    }
    out.push(v as T);
  });
  return out;
}

export function notFound(name: string, root: string): SessionfoldError {
  return new SessionfoldError('SESSION_NOT_FOUND', `No stored session "${name}" in ${root}`, { agent: 'store' });
}

/** The folder of a store and the families in it (see the file header). */
export class StoreFolder {
  /** The store's root folder (absolute). */
  readonly root: string;
  protected readonly options: SessionStoreOptions;

  protected constructor(root: string, options: SessionStoreOptions) {
    if (typeof root !== 'string' || root === '') throw invalidOption('root', 'a folder path', root);
    this.root = resolve(root);
    this.options = options;
  }

  protected dir(archived: boolean): string {
    return archived ? join(this.root, ARCHIVE_DIR) : this.root;
  }

  /** `<dir>/<name><suffix>`, name already validated. */
  protected path(name: string, suffix: string, archived: boolean): string {
    return join(this.dir(archived), name + suffix);
  }

  protected childPath(parent: string, child: string, suffix: string, archived: boolean): string {
    return join(this.dir(archived), parent + SUBAGENTS, child + suffix);
  }

  /** Where the family of `name` is: false active, true archived, undefined none (by its transcript). */
  protected where(name: string): boolean | undefined {
    if (exists(this.path(name, TRANSCRIPT, false))) return false;
    if (exists(this.path(name, TRANSCRIPT, true))) return true;
    return undefined;
  }

  protected whereOrThrow(name: string): boolean {
    const w = this.where(name);
    if (w === undefined) throw notFound(name, this.root);
    return w;
  }

  /**
   * INVALID_OPTION when a transcript in `dirs` is `name` but for case or Unicode form: on a case-insensitive
   * or normalising file system (macOS, Windows) the two would be one family, elsewhere two that look alike.
   */
  protected refuseLookalike(name: string, what: string, dirs: readonly string[]): void {
    const key = storeNameKey(name);
    for (const dir of dirs) {
      for (const n of listNames(dir)) {
        const stem = n.slice(0, -TRANSCRIPT.length);
        if (!n.endsWith(TRANSCRIPT) || stem === name || !isValidName(stem) || storeNameKey(stem) !== key) continue;
        throw invalidOption(what, `a name no stored session has in another case or Unicode form ("${stem}" is stored)`, name);
      }
    }
  }

  /** Every member path of a family, the transcript last. */
  protected family(name: string, archived: boolean): string[] {
    return [...Object.values(MEMBERS).map((s) => this.path(name, s, archived)), this.path(name, SUBAGENTS, archived), this.path(name, TRANSCRIPT, archived)];
  }

  /**
   * Run a mutation under the store's lock (lock.ts), creating the root first, unless the mutation `needs`
   * a family: without the root that family cannot be there, and it is SESSION_NOT_FOUND with nothing
   * created (a mistyped `--store` stays absent). A write that throws (a full disk, an I/O error) is
   * cleaned up as a crash would be, so no member outlives it for the next family of that name to adopt.
   */
  protected mutate<T>(intent: LockIntent, fn: () => T, needs?: string): T {
    if (needs !== undefined && !exists(this.root)) throw notFound(needs, this.root);
    try {
      mkdirSync(this.root, { recursive: true });
    } catch (cause) {
      throw new SessionfoldError('IO_ERROR', `Cannot create the session store ${this.root}`, { file: this.root, cause });
    }
    const run = (): T => {
      try {
        if ('name' in intent && isValidName(intent.name)) this.settleStage(intent.name);
        return fn();
      } catch (e) {
        if (intent.op === 'write') {
          try {
            this.recover(intent, process.pid);
          } catch {
            // the disk refuses even the cleanup: the next mutation of this name clears what is left
          }
        }
        throw e;
      }
    };
    return withLock(this.root, intent, run, {
      ...(this.options.lockTimeoutMs !== undefined && { timeoutMs: this.options.lockTimeoutMs }),
      recover: (i, pid) => this.recover(i, pid),
    });
  }

  /** Finish what a dead lock holder was doing (see the file header). */
  protected recover(intent: LockIntent, pid: number): void {
    for (const archived of [false, true]) {
      sweepTemps(this.dir(archived), pid);
      if ('name' in intent && isValidName(intent.name)) sweepTemps(this.path(intent.name, SUBAGENTS, archived), pid);
    }
    if (intent.op === 'other' || !isValidName(intent.name)) return;
    if (intent.op === 'write') {
      this.settleStage(intent.name);
      this.clearUncommitted(intent.name);
    }
    if (intent.op === 'archive') this.archiveMembers(intent.name);
    if (intent.op === 'delete') for (const archived of [false, true]) for (const p of this.family(intent.name, archived)) removeIfPresent(p);
  }

  /** Where a family of `name` is staged before it is swapped in (a leading dot: no name, never listed). */
  protected stagePath(name: string): string {
    return join(this.root, `.${name}.staged`);
  }

  /**
   * Write the active family of `name` whole: every file into its stage folder, then the plan (`.ready`,
   * the commit point), then each member renamed into place, the transcript last. `replace` removes the
   * members `files` leaves out; otherwise they stay. A crash before the plan leaves the old family as it
   * was (recovery drops the stage); after it, recovery finishes the swap: the family is old or new.
   */
  protected writeFamily(name: string, files: readonly FamilyFile[], replace: boolean): void {
    const stage = this.stagePath(name);
    removeIfPresent(stage);
    mkdirSync(stage);
    syncDir(this.root);
    const members = new Set<string>();
    for (const [suffix, data] of files) {
      const path = join(stage, name + suffix);
      if (suffix.startsWith(`${SUBAGENTS}/`)) {
        members.add(SUBAGENTS);
        mkdirSync(dirname(path), { recursive: true });
      } else members.add(suffix);
      writeAtomic(path, data);
    }
    const plan: StagePlan = { members: [...members], replace };
    writeAtomic(join(stage, STAGE_READY), JSON.stringify(plan));
    this.settleStage(name);
  }

  /**
   * Finish a staged write of `name`, or drop it: with its plan, move each staged member into place (the
   * transcript last, the subagents folder swapped whole) and remove the members a replacing plan leaves
   * out; without one, the write never committed and the old family stands. Each step can run again.
   */
  protected settleStage(name: string): void {
    const stage = this.stagePath(name);
    if (!exists(stage)) return;
    let plan: StagePlan | undefined;
    try {
      plan = parseJson<StagePlan>(readIfPresent(join(stage, STAGE_READY)), STAGE_READY);
    } catch {
      // torn (the atomic write rules that out) or unreadable: taken as never committed, so a broken stage
      // cannot keep every later mutation (and the breaking of a dead holder's lock) failing
      plan = undefined;
    }
    if (plan !== undefined && Array.isArray(plan.members)) {
      for (const suffix of [...Object.values(MEMBERS), SUBAGENTS, TRANSCRIPT]) {
        const target = this.path(name, suffix, false);
        if (!plan.members.includes(suffix)) {
          if (plan.replace) removeIfPresent(target);
          continue;
        }
        const staged = join(stage, name + suffix);
        if (!exists(staged)) continue; // moved before a crash
        if (suffix === SUBAGENTS) removeIfPresent(target);
        moveIfPresent(staged, target);
      }
      syncDir(this.root);
    }
    removeIfPresent(stage);
  }

  /**
   * Remove the active members of `name` when it has no transcript: a family that never committed. A sidecar
   * stays: `saveSidecar` records one ahead of its family, and a write that never committed must not take it.
   */
  protected clearUncommitted(name: string): void {
    if (exists(this.path(name, TRANSCRIPT, false))) return;
    const sidecar = this.path(name, MEMBERS.sidecar, false);
    for (const p of this.family(name, false)) if (p !== sidecar) removeIfPresent(p);
  }

  /** The sidecar `saveSidecar` recorded for `name` ahead of its family, as a file of the new family ([] when none). */
  protected pendingSidecar(name: string): FamilyFile[] {
    const bytes = readBytesIfPresent(this.path(name, MEMBERS.sidecar, false));
    return bytes === undefined ? [] : [[MEMBERS.sidecar, bytes]];
  }

  protected archiveMembers(name: string): void {
    mkdirSync(this.dir(true), { recursive: true });
    const to = this.family(name, true);
    this.family(name, false).forEach((p, i) => moveIfPresent(p, to[i] as string));
  }

  protected readMeta(name: string, archived: boolean): StoreMeta | undefined {
    const path = this.path(name, MEMBERS.meta, archived);
    try {
      const m = parseJson<StoreMeta>(readIfPresent(path), path);
      return m !== undefined && typeof m === 'object' && m !== null && typeof m.title === 'string' ? m : undefined;
    } catch {
      return undefined; // a meta that cannot be read: the transcript is the session, list it anyway
    }
  }

  /** Write one member of an existing family, where the family is (so it is never split). */
  protected saveMember(name: string, member: Member, data: string): void {
    validateName(name);
    this.mutate({ op: 'other' }, () => writeAtomic(this.path(name, MEMBERS[member], this.whereOrThrow(name)), data), name);
  }

  /** One member's text (active, else archived, or exactly one with `archived`); undefined when absent. */
  protected loadMember(name: string, member: Member, archived?: boolean): string | undefined {
    return this.readMember(name, member, archived)?.text;
  }

  /** `loadMember` with the path it read. */
  protected readMember(name: string, member: Member, archived?: boolean): { path: string; text: string } | undefined {
    validateName(name);
    for (const a of archived === undefined ? [false, true] : [archived]) {
      const path = this.path(name, MEMBERS[member], a);
      const text = readIfPresent(path);
      if (text !== undefined) return { path, text };
    }
    return undefined;
  }

  protected saveChild(parent: string, child: string, suffix: string, data: string): void {
    validateName(parent);
    validateWriteName(child, 'subagent id');
    this.mutate({ op: 'other' }, () => {
      const archived = this.whereOrThrow(parent);
      this.refuseLookalike(child, 'subagent id', [this.path(parent, SUBAGENTS, archived)]);
      mkdirSync(this.path(parent, SUBAGENTS, archived), { recursive: true });
      writeAtomic(this.childPath(parent, child, suffix, archived), data);
    }, parent);
  }

  protected loadChild(parent: string, child: string, suffix: string, archived?: boolean): string | undefined {
    validateName(parent);
    validateName(child, 'subagent id');
    if (archived !== undefined) return readIfPresent(this.childPath(parent, child, suffix, archived));
    return readIfPresent(this.childPath(parent, child, suffix, false)) ?? readIfPresent(this.childPath(parent, child, suffix, true));
  }
}
