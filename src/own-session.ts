/**
 * A file's usage belongs to its own session; a file can also hold another session's usage, relayed into it
 * (a Claude transcript's agent_progress copies of its subagents' responses), which is counted from that
 * session's own file, so counting it here as well would count it twice. This class holds the rule that drops
 * it; its users feed it different records, so they name the session the same way only where those agree:
 *
 * - The session views (src/sessions/fold.ts) see every event: the first event with a string sessionId names
 *   the session (`claim`), and the first session event names it again over that (`name`). A usage record read
 *   before the first session event is judged against the id known then.
 * - The usage scan behind `list --sort cost` (src/sessions/usage-scan.ts) and the status line
 *   (src/cost/statusline.ts) see usage records only: the first usage record with a string sessionId names it.
 * - The peek's tail (src/sessions/peek.ts) takes the head's id when it has one; else the tail's first usage
 *   record names it, and the tail's first session event names it again over that.
 *
 * So a session costs the same in each when its file's first usage record carries the id its first session
 * event names (and no earlier event names another). A file whose first usage record is relayed from another
 * session, or whose session event names an id its usage records do not carry, is counted differently by the
 * views than by the usage scan and the status line.
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
