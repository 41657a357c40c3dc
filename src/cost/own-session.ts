/**
 * A file's usage belongs to its own session: the one its first record names. A file can also hold another
 * session's usage, relayed into it (a Claude transcript's agent_progress copies of its subagents' responses);
 * that usage is the other session's, counted from that session's own file, so counting it here as well would
 * count it twice. The session views (src/sessions/fold.ts), the usage scan behind `list --sort cost`
 * (src/sessions/usage-scan.ts) and the status line (src/cost/statusline.ts) all decide it here, so a session
 * costs the same in each.
 */
export class OwnSession {
  #id: string | undefined;
  readonly #keep: (id: string) => string;

  /** `keep` makes the copy of an id that is held (a slice of a batch's string table would pin the table). */
  constructor(keep: (id: string) => string = (id) => id) {
    this.#keep = keep;
  }

  /** The file's session, once a record has named it. */
  get id(): string | undefined {
    return this.#id;
  }

  /**
   * A file's first session event names its session, over what earlier records said (a Claude summary line
   * ahead of the first line with a sessionId carries the file name); undefined leaves it to the next record.
   */
  name(sessionId: string | undefined): void {
    this.#id = sessionId === undefined ? undefined : this.#keep(sessionId);
  }

  /**
   * Whether a record of `sessionId` is the file's session's. The first record with a string id names the
   * session when nothing has; until then every record is the file's own.
   */
  claim(sessionId: unknown): boolean {
    if (this.#id === undefined) {
      if (typeof sessionId === 'string') this.#id = this.#keep(sessionId);
      return true;
    }
    return sessionId === this.#id;
  }
}
