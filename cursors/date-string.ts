/**
 * Whether a string is a date `Date.parse` accepts, without its call for the form the agents write.
 *
 * Claude and Codex keep an event's timestamp only when `Date.parse` accepts it (sanitized fixtures hold
 * placeholders like `[trimmed]`), once per usage line and per Codex record read. `Date.parse` costs 1.5–2 µs a
 * call on the bench machine: about 70,000 calls, 0.1 s of CPU, in a cold report at scale 0.5 of the peers
 * profile, where every one of them is `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. That form is decided here: each
 * such string whose fields are in range (month 1–12, day 1–31, hour 0–23, minute and second 0–59; V8 does not
 * hold a day to its month's length) is one `Date.parse` accepts; anything else, including what is out of
 * range, is left to `Date.parse`. test/date-string.test.ts holds the two to the same answer over every month
 * and day, the range edges, fraction lengths and mutated strings.
 */

/** Longest fraction decided here (ISO digits after the seconds); a longer one goes to Date.parse. */
const MAX_FRACTION = 9;

/** Whether `Date.parse(s)` is not NaN. */
export function parsesAsDate(s: string): boolean {
  return isPlainUtc(s) || !Number.isNaN(Date.parse(s));
}

/** `YYYY-MM-DDTHH:MM:SS[.d{1,9}]Z` with every field in range: a string Date.parse accepts. */
function isPlainUtc(s: string): boolean {
  const len = s.length;
  if (len < 20 || len > 21 + MAX_FRACTION || s.charCodeAt(len - 1) !== 90) return false;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
  if (len > 20 && (len === 21 || s.charCodeAt(19) !== 46 || digits(s, 20, len - 1) < 0)) return false;
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const h = digits(s, 11, 13);
  const mi = digits(s, 14, 16);
  const sec = digits(s, 17, 19);
  return digits(s, 0, 4) >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59;
}

/** The decimal value of s[from, to), or -1 when a character there is not a digit. */
export function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}
