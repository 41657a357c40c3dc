/**
 * Matching and scoring for `search()`.
 *
 * Query: whitespace-separated terms, `"quoted phrases"` kept together; every term must occur in the session
 * (its message texts or its title). Matching is case-insensitive with non-Unicode RegExp case folding, under
 * which no non-ASCII character folds to an ASCII one, so the raw-byte pre-filter below agrees with it.
 *
 * Relevance, in [0, 1], computed from the normalized messages only, so it is comparable across agents:
 *
 *   score = 0.45 · (1 − e^(−hits/4))           hits: occurrences of all terms in texts and title
 *         + 0.20 · min(1, 3 · blocksHit/blocks)  share of text blocks that mention a term (a third saturates)
 *         + 0.25 · titleShare                    share of terms found in the title
 *         + 0.10 · phrase                        1 when the terms occur together, in order, somewhere
 *
 * Pre-filter: before parsing, a line-format file's raw bytes are searched for the query's ASCII words
 * (latin1 view, same case folding). JSON keeps such words as they are unless the writer escaped printable
 * ASCII (`\u0041`) or `/` (`\/`); a file holding such escapes is always parsed. A file missing a word
 * cannot match and is skipped unparsed. This assumes what a codec yields as text comes from the file's
 * JSON strings (joined with whitespace when it joins parts), which holds for every JSONL agent format.
 */
import { open } from 'node:fs/promises';
import { invalidOption } from '../../cursors/protocol/errors.js';

export interface Terms {
  /** Lowercased terms (a phrase is one term with single spaces). */
  terms: string[];
  /** One regex per term (global, case-insensitive; phrases match any whitespace between words). */
  regexes: RegExp[];
  /** The most characters between two consecutive terms that still make a phrase (the phrase bonus). */
  phraseGap: number;
  /** ASCII words every matching file must hold (may be empty: no pre-filter). */
  prefilterWords: string[];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Printable ASCII without JSON's structural characters: such a word cannot straddle a JSON string boundary
 * or a value the codec re-serialized, so if a text holds it, the raw bytes do too (escapes aside).
 */
function isPrefilterWord(w: string): boolean {
  return /^[\x21-\x7e]+$/.test(w) && !/["\\{}[\]:,]/.test(w);
}

/** Parse a query text into terms; INVALID_OPTION for an empty one. */
export function parseTerms(text: unknown): Terms {
  if (typeof text !== 'string' || text.trim() === '') throw invalidOption('text', 'a non-empty search text', text);
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const t = (m[1] ?? m[2] ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
    if (t !== '' && !terms.includes(t)) terms.push(t);
  }
  if (terms.length === 0) throw invalidOption('text', 'a non-empty search text', text);
  const regexes = terms.map((t) => new RegExp(t.split(' ').map(escapeRe).join('\\s+'), 'gi'));
  const words = new Set<string>();
  for (const t of terms) for (const w of t.split(' ')) if (isPrefilterWord(w)) words.add(w);
  return { terms, regexes, phraseGap: PHRASE_GAP, prefilterWords: [...words] };
}

const MAX_HITS_PER_TEXT = 1000;
/** Characters allowed between consecutive terms of a phrase. */
const PHRASE_GAP = 40;

/**
 * Whether the terms occur in order, each within `gap` characters after the end of the one before, given each
 * term's occurrences `[start, end]` in ascending order: one sweep per pair of consecutive terms over the
 * occurrences reachable so far, so linear in the occurrences whatever the query (a RegExp of the terms
 * joined by `[\s\S]{0,40}?` backtracks exponentially in their number).
 */
export function hasPhrase(occurrences: readonly (readonly [number, number])[][], gap: number): boolean {
  let reach = occurrences[0] ?? [];
  for (let i = 1; i < occurrences.length && reach.length > 0; i++) {
    const next: (readonly [number, number])[] = [];
    let k = 0;
    // the earliest end reachable so far up to each candidate start: ends of `reach` are ascending
    let best = -Infinity;
    for (const occ of occurrences[i] as (readonly [number, number])[]) {
      while (k < reach.length && (reach[k] as readonly [number, number])[1] <= occ[0]) best = Math.max(best, (reach[k++] as readonly [number, number])[1]);
      if (occ[0] - best <= gap) next.push(occ);
    }
    reach = next;
  }
  return reach.length > 0;
}

interface SnippetCandidate {
  text: string;
  index: number;
  length: number;
  distinct: number;
  hits: number;
}

/** Folds texts as they stream past; `result(title)` says whether the session matched and how well. */
export class SearchScorer {
  readonly #t: Terms;
  readonly #termHits: number[];
  #blocks = 0;
  #blocksHit = 0;
  #phrase = false;
  #best: SnippetCandidate | undefined;

  constructor(terms: Terms) {
    this.#t = terms;
    this.#termHits = terms.terms.map(() => 0);
  }

  /** One text block (a message event's text, a tool output). */
  text(text: string): void {
    if (text === '') return;
    this.#blocks++;
    let distinct = 0;
    let hits = 0;
    let first = -1;
    let firstLen = 0;
    const occurrences: [number, number][][] = [];
    this.#t.regexes.forEach((re, i) => {
      re.lastIndex = 0;
      let n = 0;
      const occ: [number, number][] = [];
      occurrences.push(occ);
      for (let m = re.exec(text); m !== null && n < MAX_HITS_PER_TEXT; m = re.exec(text)) {
        if (n === 0 && (first === -1 || m.index < first)) {
          first = m.index;
          firstLen = m[0].length;
        }
        occ.push([m.index, m.index + m[0].length]);
        n++;
        if (m[0].length === 0) re.lastIndex++;
      }
      if (n > 0) {
        distinct++;
        hits += n;
        this.#termHits[i] = (this.#termHits[i] ?? 0) + n;
      }
    });
    if (distinct === 0) return;
    this.#blocksHit++;
    if (!this.#phrase && (this.#t.terms.length === 1 || hasPhrase(occurrences, this.#t.phraseGap))) this.#phrase = true;
    const b = this.#best;
    if (b === undefined || distinct > b.distinct || (distinct === b.distinct && hits > b.hits)) {
      this.#best = { text, index: first, length: firstLen, distinct, hits };
    }
  }

  /** Undefined when some term occurs nowhere; else the score and snippet. */
  result(title: string): { score: number; snippet: string } | undefined {
    let titleTerms = 0;
    let hits = 0;
    const inTitleAt: [number, number][][] = [];
    for (let i = 0; i < this.#t.terms.length; i++) {
      const re = this.#t.regexes[i] as RegExp;
      re.lastIndex = 0;
      let inTitle = 0;
      const occ: [number, number][] = [];
      inTitleAt.push(occ);
      for (let m = re.exec(title); m !== null && inTitle < MAX_HITS_PER_TEXT; m = re.exec(title)) {
        occ.push([m.index, m.index + m[0].length]);
        inTitle++;
      }
      if (inTitle > 0) titleTerms++;
      const total = (this.#termHits[i] ?? 0) + inTitle;
      if (total === 0) return undefined;
      hits += total;
    }
    const density = this.#blocks === 0 ? 0 : Math.min(1, (3 * this.#blocksHit) / this.#blocks);
    const titleShare = titleTerms / this.#t.terms.length;
    const phrase = this.#phrase || hasPhrase(inTitleAt, this.#t.phraseGap) ? 1 : 0;
    const raw = 0.45 * (1 - Math.exp(-hits / 4)) + 0.2 * density + 0.25 * titleShare + 0.1 * phrase;
    const score = Math.round(Math.min(1, Math.max(0, raw)) * 10000) / 10000;
    const b = this.#best;
    return { score, snippet: b === undefined ? title : makeSnippet(b.text, b.index, b.length) };
  }
}

const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 100;

/** The text around [index, index+length), whitespace collapsed, `…` where cut. */
export function makeSnippet(text: string, index: number, length: number): string {
  let from = Math.max(0, index - SNIPPET_BEFORE);
  let to = Math.min(text.length, index + length + SNIPPET_AFTER);
  // Never split a surrogate pair.
  if (from > 0 && /[\udc00-\udfff]/.test(text.charAt(from))) from--;
  if (to < text.length && /[\udc00-\udfff]/.test(text.charAt(to))) to++;
  const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}`;
}

const ESCAPE_PREFIX = Buffer.from('\\u00');
const ESCAPED_SLASH = Buffer.from('\\/');
const PREFILTER_CHUNK = 1 << 20;

/** `\u00XX` escaping a printable ASCII character (0x20-0x7f) somewhere in `b`. */
function hasEscapedAscii(b: Buffer): boolean {
  for (let i = b.indexOf(ESCAPE_PREFIX); i !== -1 && i + 5 < b.length; i = b.indexOf(ESCAPE_PREFIX, i + 1)) {
    const d = b[i + 4] as number;
    if (d >= 0x32 && d <= 0x37) return true;
  }
  return false;
}

/**
 * True when the file's raw bytes could hold a match (every pre-filter word occurs, or an escape makes the
 * bytes inconclusive); false when some word is surely absent. See the file header. Chunks overlap by the
 * longest word (and escape) length so nothing is missed at a chunk edge.
 */
export async function mayContainAll(path: string, words: readonly string[]): Promise<boolean> {
  if (words.length === 0) return true;
  const pending = new Map(words.map((w) => [w, new RegExp(escapeRe(w), 'i')]));
  const slash = words.some((w) => w.includes('/'));
  const overlap = Math.max(...words.map((w) => w.length), 6) - 1;
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(PREFILTER_CHUNK + overlap);
    let carry = 0;
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, carry, PREFILTER_CHUNK, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const view = buf.subarray(0, carry + bytesRead);
      if (hasEscapedAscii(view) || (slash && view.indexOf(ESCAPED_SLASH) !== -1)) return true;
      const text = view.toString('latin1');
      for (const [w, re] of pending) if (re.test(text)) pending.delete(w);
      if (pending.size === 0) return true;
      carry = Math.min(overlap, view.length);
      view.copy(buf, 0, view.length - carry);
    }
    return false;
  } finally {
    await fh.close();
  }
}
