/**
 * `SessionStore`: sessionfold's own store of sessions, in one folder (cursors/protocol/session-store.ts):
 *
 *   <root>/<name>.jsonl                the transcript, in the sessionfold-jsonl format (the `store` agent reads it)
 *   <root>/<name>.meta.json            title and recorded stats (StoreMeta)
 *   <root>/<name>.sidecar.jsonl        a caller's full-fidelity sidecar, verbatim
 *   <root>/<name>.usage.jsonl          the usage events as the origin's codec yielded them
 *   <root>/<name>.model-changes.jsonl  where the model changed
 *   <root>/<name>.git.json             git metadata
 *   <root>/<name>.tree.json            the message tree
 *   <root>/<name>.fork.json            fork provenance
 *   <root>/<name>.subagents/<child>.jsonl, .sidecar.jsonl, .lineage.json   stored subagents with their lineage
 *   <root>/archived/…                  the same layout, for archived families
 *
 * A family exists when its transcript does (a sidecar may be recorded ahead of it: `saveSidecar`); it
 * lives wholly in the root or wholly in `archived/`. Every name is checked (names.ts) before any I/O.
 * Every write is atomic (fs.ts); every mutation holds the store's lock (lock.ts) and names its intent
 * there, so the next process to take the lock after a crash finishes an archive or a delete; a write is
 * staged whole and swapped in (family.ts `writeFamily`), so recovery leaves its family entirely old or
 * entirely new. A write that throws is recovered the same way at once. Reads take no lock: each file they
 * read is whole, old or new.
 *
 * `at(root)` touches nothing (a lookup never creates an empty store, nor does a change of a session that
 * is not there, `saveSidecar` aside); `open(root)` creates the folder; a write of a family creates what it
 * needs. The folder's mechanics (paths, the locked mutation, recovery, staged writes, single members) are
 * in family.ts. Where it differs from its seed (session-store.md), and why: ARCHITECTURE.md, "Against its
 * seed".
 */
import { mkdirSync } from 'node:fs';
import { storeNameKey } from '../../cursors/protocol/session-store.js';
import { SessionfoldError, invalidOption } from '../../cursors/protocol/errors.js';
import { CHILD, DAY_MS, jsonLines, MEMBERS, notFound, parseJson, parseJsonLines, StoreFolder, SUBAGENTS, TRANSCRIPT, type FamilyFile, type Member, type SessionStoreOptions } from './family.js';
import { exists, listNames, listNamesIfPresent, probeFile, readBytesIfPresent, readIfPresent, removeIfPresent, writeAtomic } from './fs.js';
import { isValidName, isWritableName, validateName, validateWriteName } from './names.js';
import { countMessages, cutMessages, headerOf, readHead, setHeader } from './transcript.js';
import {
  STORE_RECORD_VERSION,
  type FamilyInfo,
  type FamilyWrite,
  type ForkProvenance,
  type GitMetadataRecord,
  type ModelChangeRecord,
  type SessionInfo,
  type SessionTree,
  type StoreMeta,
  type SubagentLineage,
  type UsageLogRecord,
} from './types.js';

export type { SessionStoreOptions } from './family.js';

/**
 * A folder of sessions kept by sessionfold: transcripts in sessionfold JSONL with their family of side records,
 * archived, forked with provenance, pruned; `at(root)` touches nothing, `open(root)` creates the folder.
 */
export class SessionStore extends StoreFolder {
  /** Address a store at `root` without touching the file system. */
  static at(root: string, options: SessionStoreOptions = {}): SessionStore {
    return new SessionStore(root, options);
  }

  /** Open (creating the folder if needed) a store at `root`. */
  static async open(root: string, options: SessionStoreOptions = {}): Promise<SessionStore> {
    const store = new SessionStore(root, options);
    try {
      mkdirSync(store.root, { recursive: true });
    } catch (cause) {
      throw new SessionfoldError('IO_ERROR', `Cannot create the session store ${store.root}`, { file: store.root, cause });
    }
    return store;
  }

  /** The transcript path of `name` in the active (or, with `archived`, the archived) family. */
  sessionPath(name: string, archived = false): string {
    validateName(name);
    return this.path(name, TRANSCRIPT, archived);
  }

  /** Where `name`'s sidecar lives (or would live). */
  sidecarPath(name: string, archived = false): string {
    validateName(name);
    return this.path(name, MEMBERS.sidecar, archived);
  }

  /** Where a stored subagent's transcript lives (or would live). */
  subagentTranscriptPath(parent: string, child: string, archived = false): string {
    validateName(parent);
    validateName(child, 'subagent id');
    return this.childPath(parent, child, CHILD.transcript, archived);
  }

  /* ---- transcripts ---- */

  /**
   * Save (or overwrite) a session's transcript and title. A transcript in the sessionfold-jsonl format gets
   * `title` in its header too, so every reader of the store agent shows it. Over an existing family only
   * the transcript and the meta (rewritten, keeping `createdAtMs`) change, with any member `extra` gives;
   * its sidecar, fork record, subagents and other members stay (only `delete` removes them).
   */
  async save(name: string, title: string, transcript: string, extra: Omit<FamilyWrite, 'title' | 'transcript'> = {}): Promise<void> {
    this.#write(name, { ...extra, title, transcript }, true, false);
  }

  /**
   * Write a whole family in one locked step, staged and swapped in (old or new after any crash). Every
   * name and subagent id is checked, and duplicates refused, before the first write. INVALID_OPTION when
   * the name is taken by an archived family, or by an active one without `overwrite` (which replaces it
   * whole: the members `family` leaves out go).
   */
  async saveFamily(name: string, family: FamilyWrite, options: { overwrite?: boolean } = {}): Promise<void> {
    this.#write(name, family, options.overwrite === true, true);
  }

  /** `family` over `name`: over an existing one only with `overwrite`, and keeping the members it leaves out unless `replace`. */
  #write(name: string, family: FamilyWrite, overwrite: boolean, replace: boolean): void {
    validateWriteName(name);
    if (typeof family.title !== 'string') throw invalidOption('title', 'a string', family.title);
    if (typeof family.transcript !== 'string') throw invalidOption('transcript', 'a string', family.transcript);
    const keys = new Set<string>();
    for (const c of family.subagents ?? []) {
      validateWriteName(c.id, 'subagent id');
      if (keys.has(storeNameKey(c.id))) throw invalidOption('subagents', 'ids distinct in case and Unicode form', c.id);
      keys.add(storeNameKey(c.id));
    }
    const now = Date.now();
    this.mutate({ op: 'write', name }, () => {
      if (this.where(name) === true) throw invalidOption('name', `a name no archived session has (delete or rename "${name}" first)`, name);
      this.refuseLookalike(name, 'name', [this.dir(false), this.dir(true)]);
      let createdAtMs = now;
      const existed = exists(this.path(name, TRANSCRIPT, false));
      if (existed) {
        if (!overwrite) throw invalidOption('name', `a name not in use ("${name}" is stored already)`, name);
        createdAtMs = this.readMeta(name, false)?.createdAtMs ?? now;
      }
      const files: FamilyFile[] = [];
      const put = (m: Member, data: string) => files.push([MEMBERS[m], data]);
      if (family.sidecar !== undefined) put('sidecar', family.sidecar);
      else if (!existed) files.push(...this.pendingSidecar(name));
      if (family.usage !== undefined) put('usage', jsonLines(family.usage));
      if (family.modelChanges !== undefined) put('modelChanges', jsonLines(family.modelChanges));
      if (family.git !== undefined) put('git', JSON.stringify(family.git, null, 2) + '\n');
      if (family.tree !== undefined) put('tree', JSON.stringify(family.tree) + '\n');
      if (family.fork !== undefined) put('fork', JSON.stringify(family.fork, null, 2) + '\n');
      for (const c of family.subagents ?? []) {
        const child = (suffix: string, data: string) => files.push([`${SUBAGENTS}/${c.id}${suffix}`, data]);
        if (c.lineage !== undefined) child(CHILD.lineage, JSON.stringify(c.lineage, null, 2) + '\n');
        if (c.sidecar !== undefined) child(CHILD.sidecar, c.sidecar);
        child(CHILD.transcript, c.transcript);
      }
      const meta: StoreMeta = {
        version: STORE_RECORD_VERSION,
        title: family.title,
        createdAtMs,
        updatedAtMs: now,
        ...(family.origin !== undefined && { origin: family.origin }),
        messageCount: countMessages(family.transcript),
        ...(family.stats !== undefined && { stats: family.stats }),
      };
      put('meta', JSON.stringify(meta, null, 2) + '\n');
      files.push([TRANSCRIPT, setHeader(family.transcript, { title: family.title })]);
      // a new family replaces whatever its name held (members a failed write left are not its own), but
      // keeps a sidecar recorded ahead of it
      this.writeFamily(name, files, replace || !existed);
    });
  }

  /** A session's transcript (active, else archived). SESSION_NOT_FOUND when neither exists. */
  async load(name: string): Promise<string> {
    const t = await this.loadIfPresent(name);
    if (t === undefined) throw notFound(name, this.root);
    return t;
  }

  /** A transcript from exactly the active (or archived) family. SESSION_NOT_FOUND when absent. */
  async loadFrom(name: string, archived: boolean): Promise<string> {
    const t = await this.loadIfPresentFrom(name, archived);
    if (t === undefined) throw notFound(name, this.root);
    return t;
  }

  /**
   * A session's transcript when an entry for it exists (active, else archived); undefined when neither does.
   * A dangling symlink, a folder in the transcript's place or a permission failure is IO_ERROR (its cause
   * the errno error), not absence.
   */
  async loadIfPresent(name: string): Promise<string | undefined> {
    validateName(name);
    return readIfPresent(this.path(name, TRANSCRIPT, false)) ?? readIfPresent(this.path(name, TRANSCRIPT, true));
  }

  /** `loadIfPresent` for exactly one of the two families. */
  async loadIfPresentFrom(name: string, archived: boolean): Promise<string | undefined> {
    validateName(name);
    return readIfPresent(this.path(name, TRANSCRIPT, archived));
  }

  /** The transcript's mtime (active, else archived), if it is there. */
  async transcriptMtime(name: string): Promise<Date | undefined> {
    validateName(name);
    for (const archived of [false, true]) {
      const p = probeFile(this.path(name, TRANSCRIPT, archived));
      if (p.kind === 'file') return new Date(p.mtimeMs);
    }
    return undefined;
  }

  /** The meta record (active, else archived); undefined when none was saved. */
  async loadMeta(name: string): Promise<StoreMeta | undefined> {
    validateName(name);
    const w = this.where(name);
    return w === undefined ? undefined : this.readMeta(name, w);
  }

  /** Every stored session, active then archived, each sorted by name. */
  async list(): Promise<SessionInfo[]> {
    const out: SessionInfo[] = [];
    for (const archived of [false, true]) {
      const names = listNames(this.dir(archived))
        .filter((n) => n.endsWith(TRANSCRIPT) && isValidName(n.slice(0, -TRANSCRIPT.length)))
        .map((n) => n.slice(0, -TRANSCRIPT.length))
        .sort();
      for (const name of names) {
        const path = this.path(name, TRANSCRIPT, archived);
        const p = probeFile(path);
        if (p.kind !== 'file') continue;
        const meta = this.readMeta(name, archived);
        let fork: ForkProvenance | undefined;
        try {
          fork = parseJson<ForkProvenance>(readIfPresent(this.path(name, MEMBERS.fork, archived)), path);
        } catch {
          fork = undefined;
        }
        const title = meta?.title ?? headerOf(readHead(path))?.title;
        out.push({
          name,
          archived,
          title: typeof title === 'string' ? title : '',
          path,
          sizeBytes: p.size,
          mtimeMs: p.mtimeMs,
          ...(meta?.origin !== undefined && { origin: meta.origin }),
          ...(typeof fork?.from === 'string' && { forkedFrom: fork.from }),
          ...(typeof meta?.messageCount === 'number' && { messageCount: meta.messageCount }),
        });
      }
    }
    return out;
  }

  /**
   * One family at a glance: where it is, its meta and fork provenance, the members present (file names)
   * and its stored subagents with their lineage. SESSION_NOT_FOUND when there is none.
   */
  async describe(name: string): Promise<FamilyInfo> {
    validateName(name);
    const archived = this.whereOrThrow(name);
    const members = this.family(name, archived).filter(exists).map((p) => p.slice(this.dir(archived).length + 1));
    const subagents = [];
    for (const id of await this.listSubagentIds(name, archived)) subagents.push({ id, lineage: await this.loadSubagentLineage(name, id, archived) });
    const meta = this.readMeta(name, archived);
    const fork = await this.loadForkProvenance(name, archived);
    return { name, archived, path: this.path(name, TRANSCRIPT, archived), ...(meta !== undefined && { meta }), ...(fork !== undefined && { fork }), members, subagents };
  }

  /* ---- archive, delete, title, fork, prune ---- */

  /**
   * Move the whole family into `archived/`, tolerating absent members. Archiving an archived session does
   * nothing; SESSION_NOT_FOUND when there is none.
   */
  async archive(name: string): Promise<void> {
    validateName(name);
    this.mutate({ op: 'archive', name }, () => {
      if (this.whereOrThrow(name)) return;
      this.archiveMembers(name);
    }, name);
  }

  /** Delete the whole family (active and archived), tolerating absent members. SESSION_NOT_FOUND when none. */
  async delete(name: string): Promise<void> {
    validateName(name);
    this.mutate({ op: 'delete', name }, () => {
      const any = [false, true].some((a) => this.family(name, a).some(exists));
      if (!any) throw notFound(name, this.root);
      for (const archived of [false, true]) for (const p of this.family(name, archived)) removeIfPresent(p);
    }, name);
  }

  /**
   * Merge `stats` into the meta's recorded stats (a reduced view's byte and stub counts, …), keeping the
   * title and everything else. SESSION_NOT_FOUND without the session.
   */
  async setStats(name: string, stats: Record<string, unknown>): Promise<void> {
    validateName(name);
    if (stats === null || typeof stats !== 'object' || Array.isArray(stats)) throw invalidOption('stats', 'an object', stats);
    this.mutate({ op: 'other' }, () => {
      const archived = this.whereOrThrow(name);
      const now = Date.now();
      const meta: StoreMeta = this.readMeta(name, archived) ?? { version: STORE_RECORD_VERSION, title: '', createdAtMs: now, updatedAtMs: now };
      writeAtomic(this.path(name, MEMBERS.meta, archived), JSON.stringify({ ...meta, stats: { ...meta.stats, ...stats } }, null, 2) + '\n');
    }, name);
  }

  /** Change the title, keeping every other recorded stat (and the transcript's mtime). */
  async setTitle(name: string, title: string): Promise<void> {
    validateName(name);
    if (typeof title !== 'string') throw invalidOption('title', 'a string', title);
    this.mutate({ op: 'other' }, () => {
      const archived = this.whereOrThrow(name);
      const path = this.path(name, TRANSCRIPT, archived);
      const now = Date.now();
      const meta: StoreMeta = this.readMeta(name, archived) ?? { version: STORE_RECORD_VERSION, title, createdAtMs: now, updatedAtMs: now };
      writeAtomic(this.path(name, MEMBERS.meta, archived), JSON.stringify({ ...meta, title }, null, 2) + '\n');
      const p = probeFile(path);
      const text = readIfPresent(path);
      if (text !== undefined && p.kind === 'file') {
        const retitled = setHeader(text, { title });
        if (retitled !== text) writeAtomic(path, retitled, p.mtimeMs);
      }
    }, name);
  }

  /**
   * Copy `from` (active or archived) into a new active session `to`, keeping its first `truncateAtMessage`
   * messages (all when undefined), and record where it came from in `<to>.fork.json`. `from` is only read.
   * The copy is the source's bytes, as the seed has it: byte-identical without a cut, else the exact prefix
   * before message n. So the header keeps the source's title (until `setTitle`); the fork's title is in its
   * meta, its provenance in the fork record, and a fork can be checked against its source byte for byte.
   * SESSION_NOT_FOUND without `from`; INVALID_OPTION when `to` is taken.
   */
  async fork(from: string, to: string, title: string, truncateAtMessage: number | undefined, timestampMs: number): Promise<ForkProvenance> {
    validateName(from);
    validateWriteName(to, 'fork name');
    if (truncateAtMessage !== undefined && (!Number.isSafeInteger(truncateAtMessage) || truncateAtMessage < 0)) throw invalidOption('truncateAtMessage', 'a non-negative integer', truncateAtMessage);
    if (!Number.isFinite(timestampMs)) throw invalidOption('timestampMs', 'a finite number', timestampMs);
    let prov: ForkProvenance | undefined;
    const now = Date.now();
    this.mutate({ op: 'write', name: to }, () => {
      const archived = this.whereOrThrow(from);
      if (this.where(to) !== undefined) throw invalidOption('to', `a name not in use ("${to}" is stored already)`, to);
      this.refuseLookalike(to, 'to', [this.dir(false), this.dir(true)]);
      const source = readBytesIfPresent(this.path(from, TRANSCRIPT, archived));
      if (source === undefined) throw notFound(from, this.root);
      const cut = cutMessages(source, truncateAtMessage);
      const origin = this.readMeta(from, archived)?.origin;
      prov = {
        version: STORE_RECORD_VERSION,
        from,
        fromArchived: archived,
        ...(origin !== undefined && { fromOrigin: origin }),
        to,
        ...(truncateAtMessage !== undefined && { truncatedAtMessage: truncateAtMessage }),
        messagesKept: cut.kept,
        sourceMessages: cut.total,
        forkedAtMs: timestampMs,
      };
      const meta: StoreMeta = { version: STORE_RECORD_VERSION, title, createdAtMs: now, updatedAtMs: now, ...(origin !== undefined && { origin }), messageCount: cut.kept };
      this.writeFamily(
        to,
        [
          [MEMBERS.fork, JSON.stringify(prov, null, 2) + '\n'],
          [MEMBERS.meta, JSON.stringify(meta, null, 2) + '\n'],
          ...this.pendingSidecar(to),
          [TRANSCRIPT, cut.bytes],
        ],
        true,
      );
    }, from);
    return prov as ForkProvenance;
  }

  /**
   * Delete every archived session whose transcript is older than `retentionDays` days at `now` (never an
   * active one). Returns the names deleted. `0` prunes nothing.
   */
  async pruneExpired(retentionDays: number, now: Date | number = Date.now()): Promise<string[]> {
    if (!Number.isSafeInteger(retentionDays) || retentionDays < 0) throw invalidOption('retentionDays', 'a non-negative integer', retentionDays);
    const nowMs = typeof now === 'number' ? now : now.getTime();
    if (!Number.isFinite(nowMs)) throw invalidOption('now', 'a valid time', now);
    if (retentionDays === 0) return [];
    const cutoff = nowMs - retentionDays * DAY_MS;
    const pruned: string[] = [];
    for (const info of (await this.list()).filter((s) => s.archived && s.mtimeMs < cutoff)) {
      // each family under its own lock, checked again there: another process may have deleted or replaced it
      const gone = this.mutate({ op: 'delete', name: info.name }, () => {
        const p = probeFile(this.path(info.name, TRANSCRIPT, true));
        if (p.kind !== 'file' || p.mtimeMs >= cutoff) return false;
        for (const path of this.family(info.name, true)) removeIfPresent(path);
        return true;
      });
      if (gone) pruned.push(info.name);
    }
    return pruned;
  }

  /* ---- the other members ---- */

  /**
   * Overwrite (or create) `name`'s sidecar with `sidecarJsonl` verbatim, where its family is. With no family
   * it is recorded ahead of one, in the root: the seed's reduced-mode resume records a sidecar before any
   * transcript is saved under the name. It is not a session (no transcript: not listed, not archivable);
   * the family saved or forked to the name later keeps it, and `delete` removes it.
   */
  async saveSidecar(name: string, sidecarJsonl: string): Promise<void> {
    validateName(name);
    if (typeof sidecarJsonl !== 'string') throw invalidOption('sidecarJsonl', 'a string', sidecarJsonl);
    if (!isWritableName(name) && this.where(name) === undefined) validateWriteName(name); // before any write
    this.mutate({ op: 'other' }, () => {
      let archived = this.where(name);
      if (archived === undefined) {
        validateWriteName(name);
        this.refuseLookalike(name, 'name', [this.dir(false), this.dir(true)]);
        archived = false;
      }
      writeAtomic(this.path(name, MEMBERS.sidecar, archived), sidecarJsonl);
    });
  }
  async loadSidecar(name: string, archived?: boolean): Promise<string | undefined> {
    return this.loadMember(name, 'sidecar', archived);
  }
  async saveUsageLog(name: string, records: readonly UsageLogRecord[]): Promise<void> {
    this.saveMember(name, 'usage', jsonLines(records));
  }
  /** `[]` when no usage log was saved; PARSE_ERROR on a line that is no JSON object. */
  async loadUsageLog(name: string, archived?: boolean): Promise<UsageLogRecord[]> {
    return parseJsonLines<UsageLogRecord>(this.readMember(name, 'usage', archived));
  }
  async saveModelChangeLog(name: string, records: readonly ModelChangeRecord[]): Promise<void> {
    this.saveMember(name, 'modelChanges', jsonLines(records));
  }
  /** `[]` when no model-change log was saved; PARSE_ERROR on a line that is no JSON object. */
  async loadModelChangeLog(name: string, archived?: boolean): Promise<ModelChangeRecord[]> {
    return parseJsonLines<ModelChangeRecord>(this.readMember(name, 'modelChanges', archived));
  }
  async saveGitMetadata(name: string, record: GitMetadataRecord): Promise<void> {
    this.saveMember(name, 'git', JSON.stringify(record, null, 2) + '\n');
  }
  async loadGitMetadata(name: string, archived?: boolean): Promise<GitMetadataRecord | undefined> {
    return parseJson<GitMetadataRecord>(this.loadMember(name, 'git', archived), `${name}${MEMBERS.git}`);
  }
  async saveTree(name: string, tree: SessionTree): Promise<void> {
    this.saveMember(name, 'tree', JSON.stringify(tree) + '\n');
  }
  async loadTree(name: string, archived?: boolean): Promise<SessionTree | undefined> {
    return parseJson<SessionTree>(this.loadMember(name, 'tree', archived), `${name}${MEMBERS.tree}`);
  }
  async saveForkProvenance(name: string, provenance: ForkProvenance): Promise<void> {
    this.saveMember(name, 'fork', JSON.stringify(provenance, null, 2) + '\n');
  }
  /** undefined when `name` was not made by a fork. */
  async loadForkProvenance(name: string, archived?: boolean): Promise<ForkProvenance | undefined> {
    return parseJson<ForkProvenance>(this.loadMember(name, 'fork', archived), `${name}${MEMBERS.fork}`);
  }

  /* ---- subagents ---- */

  /** Store a subagent's transcript (sessionfold-jsonl, read by the store agent as `<parent>/<child>`). */
  async saveSubagentTranscript(parent: string, child: string, transcript: string): Promise<void> {
    this.saveChild(parent, child, CHILD.transcript, transcript);
  }
  async loadSubagentTranscript(parent: string, child: string, archived?: boolean): Promise<string | undefined> {
    return this.loadChild(parent, child, CHILD.transcript, archived);
  }
  async saveSubagentSidecar(parent: string, child: string, sidecarJsonl: string): Promise<void> {
    this.saveChild(parent, child, CHILD.sidecar, sidecarJsonl);
  }
  async loadSubagentSidecar(parent: string, child: string, archived?: boolean): Promise<string | undefined> {
    return this.loadChild(parent, child, CHILD.sidecar, archived);
  }
  async saveSubagentLineage(parent: string, child: string, record: SubagentLineage): Promise<void> {
    this.saveChild(parent, child, CHILD.lineage, JSON.stringify(record, null, 2) + '\n');
  }
  async loadSubagentLineage(parent: string, child: string, archived?: boolean): Promise<SubagentLineage | undefined> {
    return parseJson<SubagentLineage>(this.loadChild(parent, child, CHILD.lineage, archived), `${parent}${SUBAGENTS}/${child}${CHILD.lineage}`);
  }

  /**
   * The ids of the stored subagents of `parent` (active and archived, deduplicated, sorted); [] without any.
   * IO_ERROR when a subagents folder is there but cannot be listed (no folder, no permission).
   */
  async listSubagentIds(parent: string, archived?: boolean): Promise<string[]> {
    validateName(parent);
    const ids = new Set<string>();
    for (const a of archived === undefined ? [false, true] : [archived]) {
      for (const n of listNamesIfPresent(this.path(parent, SUBAGENTS, a))) {
        if (!n.endsWith(CHILD.transcript) || n.endsWith(CHILD.sidecar)) continue;
        const id = n.slice(0, -CHILD.transcript.length);
        if (isValidName(id)) ids.add(id);
      }
    }
    return [...ids].sort();
  }
}

