/**
 * The layout of sessionfold's session store on disk: shared by the side that writes it (src/store/) and the
 * one that reads it as the `store` agent (codecs/sessionfold-jsonl/store.ts), as `sessionfold-jsonl.ts` is
 * for the transcripts themselves.
 *
 *   <root>/<name>.jsonl                                  a transcript (sessionfold-jsonl)
 *   <root>/<name><member suffix>                         the family's other members (STORE_MEMBERS)
 *   <root>/<name>.subagents/<child>.jsonl                a stored subagent (plus CHILD_MEMBERS)
 *   <root>/archived/…                                    the same, archived
 */

export const STORE_ARCHIVE_DIR = 'archived';
export const STORE_TRANSCRIPT = '.jsonl';
export const STORE_SUBAGENTS = '.subagents';

/** A family's members besides its transcript and its subagents folder. */
export const STORE_MEMBERS = {
  meta: '.meta.json',
  sidecar: '.sidecar.jsonl',
  usage: '.usage.jsonl',
  modelChanges: '.model-changes.jsonl',
  git: '.git.json',
  tree: '.tree.json',
  fork: '.fork.json',
} as const;

/** A stored subagent's files in `<name>.subagents/`. */
export const STORE_CHILD_MEMBERS = { transcript: '.jsonl', sidecar: '.sidecar.jsonl', lineage: '.lineage.json' } as const;

/**
 * UTF-8 bytes a name may take: its longest file, a temp copy of a subagent's lineage
 * (`.<child>.lineage.json.<pid>.<hex>.tmp`), stays under the 255-byte name limit of common file systems.
 */
export const MAX_STORE_NAME_BYTES = 128;

/**
 * The middle parts of member file names (`<name>.<kind>.<ext>`). A name whose last dot-separated part is one
 * of them would make its transcript another session's member (`a.usage` → `a.usage.jsonl`), so it is refused.
 */
const MEMBER_KINDS: ReadonlySet<string> = new Set(['meta', 'sidecar', 'usage', 'model-changes', 'git', 'tree', 'fork', 'subagents', 'lineage', 'lock', 'tmp']);

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `name` cannot be a session name or subagent id of the store, or undefined when it can. A valid name is
 * one file stem: it cannot leave the folder, hide (leading dot), collide with a member of another family,
 * or fail to be written as the same bytes (lone surrogates).
 */
export function storeNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'not a string';
  if (name === '') return 'empty';
  if (Buffer.byteLength(name, 'utf8') > MAX_STORE_NAME_BYTES) return `longer than ${MAX_STORE_NAME_BYTES} bytes`;
  if (name.startsWith('.')) return 'starts with a dot';
  if (name.includes('..')) return 'holds ".."';
  if (name.includes('/') || name.includes('\\')) return 'holds a path separator';
  // NUL and the other C0/C1 controls: never in a file name we make, and a terminal would act on them
  if (CONTROL.test(name)) return 'holds a control character';
  if (LONE_SURROGATE.test(name)) return 'holds an unpaired surrogate';
  if (name.endsWith('.') || name.endsWith(' ')) return 'ends with a dot or a space';
  const dot = name.lastIndexOf('.');
  if (dot >= 0 && MEMBER_KINDS.has(name.slice(dot + 1).toLowerCase())) return `ends with ".${name.slice(dot + 1)}", the suffix of a family member`;
  return undefined;
}

/** Characters Windows refuses in a file name (the path separators and the controls are refused already). */
const WINDOWS_FORBIDDEN = /[:*?<>|"]/;
/** Format characters (`\p{Cf}`): zero-width ones and bidi controls make two names look alike, or one read backwards. */
const FORMAT = /\p{Cf}/u;
/** The device names Windows reserves, with or without an extension (`nul.jsonl` opens the device too). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$) *(\.|$)/i;

/**
 * Why `name` cannot be written as a session name or subagent id, or undefined when it can: a valid name
 * (`storeNameProblem`) that every common file system can also hold as itself, and no one can mistake for
 * another. The store refuses the rest when it writes a name; a family stored earlier under one stays
 * readable, and can be archived and deleted.
 */
export function storeWriteNameProblem(name: unknown): string | undefined {
  const problem = storeNameProblem(name);
  if (problem !== undefined || typeof name !== 'string') return problem;
  if (WINDOWS_FORBIDDEN.test(name)) return 'holds one of :*?<>|", which Windows refuses in a file name';
  if (FORMAT.test(name)) return 'holds an invisible format character (zero-width or bidi control)';
  if (WINDOWS_RESERVED.test(name)) return 'is a device name Windows reserves';
  return undefined;
}

/**
 * What two names share when a case-insensitive or normalising file system (macOS, Windows) would take them
 * for one file: their NFC form, lowercased. The store refuses to write a name whose key another family's has.
 */
export function storeNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase().normalize('NFC');
}
