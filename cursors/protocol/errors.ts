/**
 * One error class with a closed set of codes (the csv-parse / it-ndjson model). Every error sessionfold
 * throws on purpose is a SessionfoldError; anything else is a bug and the CLI prints its stack.
 */

/** Every code sessionfold can throw. Adding one is a minor change; removing one is breaking. */
export type ErrorCode =
  | 'AGENT_NOT_FOUND'
  | 'SESSION_NOT_FOUND'
  | 'PARSE_ERROR'
  | 'CURSOR_INVALID'
  | 'LINE_TOO_LONG'
  | 'LINE_ENDING'
  | 'MALFORMED_LINE'
  | 'INVALID_OPTION'
  | 'IO_ERROR'
  | 'CACHE_ERROR'
  | 'PRICE_ERROR'
  | 'USAGE_ERROR'
  | 'FORMAT_MISMATCH';

/** Every `ErrorCode`, for validation and documentation. */
export const ERROR_CODES: readonly ErrorCode[] = [
  'AGENT_NOT_FOUND',
  'SESSION_NOT_FOUND',
  'PARSE_ERROR',
  'CURSOR_INVALID',
  'LINE_TOO_LONG',
  'LINE_ENDING',
  'MALFORMED_LINE',
  'INVALID_OPTION',
  'IO_ERROR',
  'CACHE_ERROR',
  'PRICE_ERROR',
  'USAGE_ERROR',
  'FORMAT_MISMATCH',
];

/** Where an error happened: the agent, file and byte offset, and what caused it. */
export interface SessionfoldErrorDetails {
  /** The codec (agent id) involved, when one is. */
  agent?: string | undefined;
  /** The file involved, when one is. */
  file?: string | undefined;
  /** Byte offset of the start of the offending line or record. */
  byteOffset?: number | undefined;
  /** 1-based line number, when known. */
  line?: number | undefined;
  /** The offending raw text (cut to 200 characters). */
  raw?: string | undefined;
  cause?: unknown;
}

/**
 * The one error class sessionfold throws on purpose; `code` says what went wrong.
 * @example
 * try { await manager.get('claude', 'nope') } catch (e) {
 *   if (e instanceof SessionfoldError && e.code === 'SESSION_NOT_FOUND') console.log('no such session')
 * }
 */
export class SessionfoldError extends Error {
  override readonly name = 'SessionfoldError';
  readonly code: ErrorCode;
  readonly agent: string | undefined;
  readonly file: string | undefined;
  readonly byteOffset: number | undefined;
  readonly line: number | undefined;
  readonly raw: string | undefined;

  constructor(code: ErrorCode, message: string, details: SessionfoldErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.agent = details.agent;
    this.file = details.file;
    this.byteOffset = details.byteOffset;
    this.line = details.line;
    this.raw = details.raw === undefined ? undefined : details.raw.slice(0, 200);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      agent: this.agent,
      file: this.file,
      byteOffset: this.byteOffset,
      line: this.line,
    };
  }
}

/** True when `e` is a SessionfoldError (with `code`, when given). */
export function isSessionfoldError(e: unknown, code?: ErrorCode): e is SessionfoldError {
  return e instanceof SessionfoldError && (code === undefined || e.code === code);
}

/** `Invalid option X: expected Y, got <json>` */
export function invalidOption(name: string, expected: string, got: unknown): SessionfoldError {
  let shown: string;
  try {
    shown = JSON.stringify(got) ?? String(got);
  } catch {
    shown = String(got);
  }
  return new SessionfoldError('INVALID_OPTION', `Invalid option ${name}: expected ${expected}, got ${shown}`);
}

/** An error saying the file or session is gone (`SESSION_NOT_FOUND`, or a bare `ENOENT`): missing, not unreadable. */
export function isGoneError(e: unknown): boolean {
  const code = e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return code === 'SESSION_NOT_FOUND' || code === 'ENOENT';
}

/** Codes of a failed read that the file's bytes decide (a corrupt `.zst`): the same bytes fail the same way. */
const FILE_BYTES_CODES: ReadonlySet<unknown> = new Set(['PARSE_ERROR', 'FORMAT_MISMATCH', 'MALFORMED_LINE', 'LINE_TOO_LONG', 'LINE_ENDING']);

/** An error the file's bytes decide (`FILE_BYTES_CODES`), not the system (I/O, permissions). */
export function isFileBytesError(e: unknown): boolean {
  return e !== null && typeof e === 'object' && FILE_BYTES_CODES.has((e as { code?: unknown }).code);
}

/**
 * Whether a read's error says the file cannot be read: an errno of the system (a permission, an I/O error),
 * IO_ERROR, or a code its bytes decide (`isFileBytesError`). Any other (a bug, a cache or option error) is not
 * the file's: a caller that leaves unreadable files out and counts them throws it instead of hiding it.
 */
export function isUnreadableError(e: unknown): boolean {
  if (e instanceof SessionfoldError) return e.code === 'IO_ERROR' || isFileBytesError(e);
  const code = e instanceof Error ? (e as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}
