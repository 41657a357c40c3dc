/**
 * A small TOML reader for the one TOML file this codec reads, kimi-cli's `config.toml`: pure and synchronous.
 * It reads TOML 1.0's syntax (tables, arrays of tables, dotted and quoted keys, the four kinds of strings with
 * their escapes, arrays and inline tables over several lines, comments) into plain objects, and keeps every
 * other scalar (numbers, booleans, dates) as its text, which nothing here reads. It does not validate what it
 * does not need: a file it reads may still be one a full parser refuses. Anything it cannot read throws, and
 * `parseToml` then answers undefined: a broken config names no model, it never fails a session's read.
 *
 * Why not a package: the config is read for two keys, and a dependency for them would be the project's
 * first TOML parser; kimi-cli writes the file with tomlkit (`config.py` `save_config`), whose output, and the
 * hand-written shapes of its docs, this reads. test/kimi-toml.test.ts holds it to Python's tomllib's answers
 * for the same texts. Where it is more lenient, on purpose: a byte-order mark, newlines inside an inline table
 * (TOML 1.1), scalars checked for their shape only (not a date's range); it refuses nesting deeper than
 * MAX_DEPTH, which tomllib follows.
 */

/** A TOML table: a plain object without a prototype, so a key such as `__proto__` is only a key. */
export type TomlTable = { [key: string]: TomlValue };
export type TomlValue = string | boolean | TomlValue[] | TomlTable;

/** Arrays and inline tables nested deeper than this are refused (a bound on the recursion). */
const MAX_DEPTH = 32;

const BARE_KEY = /[A-Za-z0-9_-]/;
const HEX = /^[0-9A-Fa-f]+$/;
/** Integers and floats (decimal with `_` between digits and no leading zero, hex, octal, binary, inf, nan): checked, not read. */
const NUMBER = /^(?:[+-]?(?:(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?|inf|nan)|0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*)$/;
/** A date, with a time and an offset where given; a time alone (seconds optional, as TOML 1.1 allows). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

class TomlSyntaxError extends Error {}

const table = (): TomlTable => Object.create(null) as TomlTable;
const isTable = (v: TomlValue | undefined): v is TomlTable => v !== undefined && typeof v === 'object' && !Array.isArray(v);

/** The document's tables and values; undefined for text this reader cannot read as TOML. */
export function parseToml(text: string): TomlTable | undefined {
  try {
    return new Reader(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).document();
  } catch (e) {
    if (e instanceof TomlSyntaxError || e instanceof RangeError) return undefined;
    throw e;
  }
}

class Reader {
  #s: string;
  #i = 0;
  /** Tables a `[header]` or a dotted key defined: TOML defines each once. */
  #defined = new Set<TomlTable>();
  /** Inline tables and arrays: closed for good once written. */
  #frozen = new Set<object>();

  constructor(s: string) {
    this.#s = s;
  }

  #fail(what: string): never {
    throw new TomlSyntaxError(`${what} at ${this.#i}`);
  }

  #skipSpace(): void {
    while (this.#s[this.#i] === ' ' || this.#s[this.#i] === '\t') this.#i++;
  }

  #skipComment(): void {
    if (this.#s[this.#i] !== '#') return;
    while (this.#i < this.#s.length && this.#s[this.#i] !== '\n') this.#i++;
  }

  /** Spaces, newlines and comments, as between an array's values. */
  #skipBlank(): void {
    for (;;) {
      this.#skipSpace();
      this.#skipComment();
      if (this.#s[this.#i] === '\n') this.#i++;
      else if (this.#s[this.#i] === '\r' && this.#s[this.#i + 1] === '\n') this.#i += 2;
      else return;
    }
  }

  /** The end of a line: spaces, a comment, then a newline or the end. */
  #endOfLine(): void {
    this.#skipSpace();
    this.#skipComment();
    if (this.#i >= this.#s.length) return;
    if (this.#s[this.#i] === '\n') this.#i++;
    else if (this.#s[this.#i] === '\r' && this.#s[this.#i + 1] === '\n') this.#i += 2;
    else this.#fail('expected the end of the line');
  }

  document(): TomlTable {
    const root = table();
    let current = root;
    for (;;) {
      this.#skipBlank();
      if (this.#i >= this.#s.length) return root;
      if (this.#s.startsWith('[[', this.#i)) {
        this.#i += 2;
        const path = this.#key();
        if (!this.#s.startsWith(']]', this.#i)) this.#fail('expected ]]');
        this.#i += 2;
        current = this.#arrayTable(root, path);
      } else if (this.#s[this.#i] === '[') {
        this.#i++;
        const path = this.#key();
        if (this.#s[this.#i] !== ']') this.#fail('expected ]');
        this.#i++;
        current = this.#headerTable(root, path);
      } else {
        this.#keyValue(current);
      }
      this.#endOfLine();
    }
  }

  /**
   * The table `path` names from `t`, made where missing; through an array of tables, its last one. `dotted`:
   * the path of a dotted key, which defines each table it passes (a `[header]` cannot define them again).
   */
  #descend(t: TomlTable, path: readonly string[], dotted = false): TomlTable {
    let at = t;
    for (const k of path) {
      let next = at[k];
      if (next === undefined) at[k] = next = table();
      if (Array.isArray(next)) {
        if (this.#frozen.has(next)) this.#fail(`key ${k} is an array`);
        next = next[next.length - 1];
      }
      if (!isTable(next) || this.#frozen.has(next)) this.#fail(`key ${k} is not a table`);
      if (dotted) this.#defined.add(next);
      at = next;
    }
    return at;
  }

  #headerTable(root: TomlTable, path: string[]): TomlTable {
    const t = this.#descend(root, path);
    if (this.#defined.has(t)) this.#fail(`table ${path.join('.')} defined twice`);
    this.#defined.add(t);
    return t;
  }

  #arrayTable(root: TomlTable, path: string[]): TomlTable {
    const parent = this.#descend(root, path.slice(0, -1));
    const last = path[path.length - 1] as string;
    const list = parent[last] ?? (parent[last] = []);
    if (!Array.isArray(list) || this.#frozen.has(list)) this.#fail(`key ${last} is not an array of tables`);
    const t = table();
    list.push(t);
    this.#defined.add(t);
    return t;
  }

  #keyValue(into: TomlTable, depth = 0): void {
    const path = this.#key();
    if (this.#s[this.#i] !== '=') this.#fail('expected =');
    this.#i++;
    this.#skipSpace();
    const value = this.#value(depth);
    const parent = this.#descend(into, path.slice(0, -1), true);
    const last = path[path.length - 1] as string;
    if (last in parent) this.#fail(`key ${last} defined twice`);
    parent[last] = value;
  }

  /** A key, dotted or not, and the spaces after it. */
  #key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.#skipSpace();
      const c = this.#s[this.#i];
      if (c === '"') parts.push(this.#basicString());
      else if (c === "'") parts.push(this.#literalString());
      else {
        const start = this.#i;
        while (this.#i < this.#s.length && BARE_KEY.test(this.#s[this.#i] as string)) this.#i++;
        if (this.#i === start) this.#fail('expected a key');
        parts.push(this.#s.slice(start, this.#i));
      }
      this.#skipSpace();
      if (this.#s[this.#i] !== '.') return parts;
      this.#i++;
    }
  }

  #value(depth: number): TomlValue {
    if (depth > MAX_DEPTH) this.#fail('nested too deep');
    const s = this.#s;
    const c = s[this.#i];
    if (c === '"') return s.startsWith('"""', this.#i) ? this.#multilineString('"') : this.#basicString();
    if (c === "'") return s.startsWith("'''", this.#i) ? this.#multilineString("'") : this.#literalString();
    if (c === '[') return this.#array(depth);
    if (c === '{') return this.#inlineTable(depth);
    return this.#scalar();
  }

  #array(depth: number): TomlValue[] {
    this.#i++;
    const out: TomlValue[] = [];
    for (;;) {
      this.#skipBlank();
      if (this.#s[this.#i] === ']') break;
      out.push(this.#value(depth + 1));
      this.#skipBlank();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] !== ']') this.#fail('expected , or ]');
    }
    this.#i++;
    this.#frozen.add(out);
    return out;
  }

  /** `{k = v, ...}`; newlines and a trailing comma inside are taken too (TOML 1.1). */
  #inlineTable(depth: number): TomlTable {
    this.#i++;
    const t = table();
    for (;;) {
      this.#skipBlank();
      if (this.#s[this.#i] === '}') break;
      this.#keyValue(t, depth + 1);
      this.#skipBlank();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] !== '}') this.#fail('expected , or }');
    }
    this.#i++;
    this.#freeze(t);
    return t;
  }

  #freeze(t: TomlTable): void {
    this.#frozen.add(t);
    for (const v of Object.values(t)) if (isTable(v)) this.#freeze(v);
  }

  /** A number, boolean or date, kept as its text (a date with a space before its time included). */
  #scalar(): string | boolean {
    const s = this.#s;
    const start = this.#i;
    while (this.#i < s.length && !' \t\r\n,]}#'.includes(s[this.#i] as string)) this.#i++;
    if (this.#i === start) this.#fail('expected a value');
    let text = s.slice(start, this.#i);
    if (/^\d{4}-\d{2}-\d{2}$/.test(text) && s[this.#i] === ' ' && /^\d{2}:/.test(s.slice(this.#i + 1, this.#i + 4))) {
      this.#i++;
      while (this.#i < s.length && !' \t\r\n,]}#'.includes(s[this.#i] as string)) this.#i++;
      text = s.slice(start, this.#i);
    }
    if (text === 'true') return true;
    if (text === 'false') return false;
    if (!NUMBER.test(text) && !DATE_TIME.test(text) && !TIME.test(text)) this.#fail('not a value');
    return text;
  }

  #literalString(): string {
    const start = ++this.#i;
    const end = this.#s.indexOf("'", start);
    const nl = this.#s.indexOf('\n', start);
    if (end < 0 || (nl >= 0 && nl < end)) this.#fail('unterminated string');
    this.#i = end + 1;
    return this.#s.slice(start, end);
  }

  #basicString(): string {
    this.#i++;
    let out = '';
    for (;;) {
      const c = this.#s[this.#i];
      if (c === undefined || c === '\n') this.#fail('unterminated string');
      this.#i++;
      if (c === '"') return out;
      out += c === '\\' ? this.#escape() : c;
    }
  }

  /** `"""…"""` or `'''…'''`: a newline right after the opening dropped, up to two quotes before the closing kept. */
  #multilineString(q: '"' | "'"): string {
    const s = this.#s;
    this.#i += 3;
    if (s[this.#i] === '\n') this.#i++;
    else if (s[this.#i] === '\r' && s[this.#i + 1] === '\n') this.#i += 2;
    let out = '';
    for (;;) {
      const c = s[this.#i];
      if (c === undefined) this.#fail('unterminated string');
      if (c === q && s.startsWith(q.repeat(3), this.#i)) {
        let n = 3;
        while (n < 5 && s[this.#i + n] === q) n++;
        this.#i += n;
        return out + q.repeat(n - 3);
      }
      this.#i++;
      if (c === '\\' && q === '"') {
        const rest = /^[ \t]*\r?\n/.exec(s.slice(this.#i, this.#i + 256));
        if (rest !== null) {
          this.#i += rest[0].length;
          while (/[ \t\r\n]/.test(s[this.#i] ?? '')) this.#i++;
        } else out += this.#escape();
      } else out += c;
    }
  }

  #escape(): string {
    const c = this.#s[this.#i++];
    switch (c) {
      case 'b':
        return '\b';
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'f':
        return '\f';
      case 'r':
        return '\r';
      case 'e':
        return '\x1b';
      case '"':
        return '"';
      case '\\':
        return '\\';
      case 'x':
      case 'u':
      case 'U': {
        const n = c === 'x' ? 2 : c === 'u' ? 4 : 8;
        const hex = this.#s.slice(this.#i, this.#i + n);
        if (hex.length !== n || !HEX.test(hex)) this.#fail('bad escape');
        this.#i += n;
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.#fail('bad escape');
        return String.fromCodePoint(cp);
      }
      default:
        return this.#fail('bad escape');
    }
  }
}
