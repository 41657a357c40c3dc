/**
 * Terminal display width, so tables cut and pad by the columns a text takes rather than by its code points: a
 * CJK title is two columns a character, and an emoji family (👨‍👩‍👧), a flag (🇫🇷) or `e` + U+0301 is one
 * character on screen made of several code points, which a cut must never split (it would print half a
 * sequence, or a U+FFFD).
 *
 * Text is taken a grapheme cluster at a time (`Intl.Segmenter`). A cluster is 2 columns when it is an emoji
 * shown as one (Emoji_Presentation, or any emoji followed by VS16) or its first visible code point is East Asian
 * Wide or Fullwidth; 0 when it has only marks, format characters (ZWJ, variation selectors) or controls;
 * else 1. The Wide/Fullwidth ranges are the blocks of EastAsianWidth.txt that matter for text people type, not
 * the whole file: a rare symbol outside them counts as 1, which is also what most terminals draw.
 */

/** East Asian Wide (W) and Fullwidth (F) ranges, inclusive, sorted; emoji are matched by property instead. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo Extended-A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x16fe4], // ideographic symbols
  [0x17000, 0x18cff], // Tangut
  [0x1b000, 0x1b2ff], // Kana supplement, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x3fffd], // CJK Extensions B and later, planes 2 and 3
];

function isWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = WIDE[mid] as readonly [number, number];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
const EMOJI_WIDE = /\p{Emoji_Presentation}|\p{Emoji}\uFE0F/u;
const ASCII = /^[\x20-\x7e]*$/;

let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of `text`, as the user sees its characters. */
export function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Columns one grapheme cluster takes (see the file header). */
export function clusterWidth(g: string): number {
  if (EMOJI_WIDE.test(g)) return 2;
  for (const ch of g) {
    if (ZERO.test(ch)) continue;
    return isWide(ch.codePointAt(0) as number) ? 2 : 1;
  }
  return 0;
}

/** Columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let w = 0;
  for (const g of graphemes(text)) w += clusterWidth(g);
  return w;
}

/** `text` cut to at most `max` columns, `…` marking the cut; whole clusters only, so a column may stay free. */
export function fitWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  if (max <= 1) return max === 1 ? '…' : '';
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const w = clusterWidth(g);
    if (used + w > max - 1) break;
    out += g;
    used += w;
  }
  return `${out}…`;
}

/**
 * The rule under a table's header (and above its totals row): one `─` run per column, two spaces apart as the
 * cells are, so every human table of the CLI is set the same way.
 */
export const ruleLine = (widths: readonly number[]): string => widths.map((w) => '─'.repeat(w)).join('  ');

/** `text` padded with spaces on the right to `width` columns. */
export const padEndWidth = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - displayWidth(text)));
/** `text` padded with spaces on the left to `width` columns. */
export const padStartWidth = (text: string, width: number): string => ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
