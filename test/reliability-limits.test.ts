/**
 * Resource limits (issue 17, case 6, the parts done): `sessions search` is linear in the text for any
 * query (the phrase bonus used a RegExp of the terms joined by `[\s\S]{0,40}?`, which backtracks
 * exponentially in their number: 13 one-letter terms on a 6 KB message took 8 s, 17 over a minute); a
 * price or tags file that is a FIFO or a device is refused at once (child processes: it used to hang).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasPhrase, parseTerms, SearchScorer } from '../src/sessions/search-match.js';
import { runCliChild, tempDirs } from './helpers/child.js';
import { makeHome, type Home } from './sessions-helpers.js';

const temps = tempDirs('sf-limits-');
const homes: Home[] = [];
afterAll(async () => {
  temps.remove();
  const { rm } = await import('node:fs/promises');
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

/** The old phrase test, as a reference on inputs small enough for it. */
function phraseByRegExp(terms: string[], text: string): boolean {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(terms.map((t) => t.split(' ').map(esc).join('\\s+')).join('[\\s\\S]{0,40}?'), 'i').test(text);
}

function occurrences(terms: string[], text: string): [number, number][][] {
  return parseTerms(terms.map((t) => (t.includes(' ') ? `"${t}"` : t)).join(' ')).regexes.map((re) => {
    re.lastIndex = 0;
    const out: [number, number][] = [];
    for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push([m.index, m.index + m[0].length]);
    return out;
  });
}

describe('search is linear for any query', () => {
  it('17 one-letter terms over a 6 KB message score in well under a second', () => {
    const letters = 'abcdefghijklmnopq'.split('');
    const text = 'zzzz '.repeat(1200) + letters.join(' ').slice(0, -2); // all but the last term near the end
    const terms = parseTerms(letters.join(' '));
    const t0 = performance.now();
    const s = new SearchScorer(terms);
    s.text(text);
    s.result('');
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('the phrase test agrees with the RegExp it replaces on small texts', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['ab', 'b', 'c', ' ', 'x', 'ab c'];
    let agreed = 0;
    for (let k = 0; k < 400; k++) {
      const text = Array.from({ length: 5 + rnd(40) }, () => alphabet[rnd(alphabet.length)]).join(rnd(3) === 0 ? ' '.repeat(rnd(50)) : '');
      const terms = [...new Set(Array.from({ length: 1 + rnd(3) }, () => ['ab', 'b', 'c', 'x'][rnd(4)] as string))];
      const occ = occurrences(terms, text);
      if (occ.some((o) => o.length === 0)) continue;
      expect(hasPhrase(occ, 40)).toBe(phraseByRegExp(terms, text));
      agreed++;
    }
    expect(agreed).toBeGreaterThan(100);
  });
});

describe('input files are checked for what they are', () => {
  const cases: [string, (dir: string) => string, Record<string, string>, RegExp][] = [
    ['a prices file that is a FIFO', (d) => fifo(d), {}, /PRICE_ERROR: Cannot read prices file .*not a regular file/],
    ['a prices file that is /dev/zero', () => '/dev/zero', {}, /PRICE_ERROR: Cannot read prices file \/dev\/zero/],
    ['a tags file that is a FIFO', (d) => fifo(d), { tags: '1' }, /INVALID_OPTION: Invalid tags file .*not a regular file/],
  ];
  function fifo(d: string): string {
    const p = join(d, 'input.fifo');
    execFileSync('mkfifo', [p]);
    return p;
  }
  it.each(cases)('%s: a coded error at once, no hang', async (_name, make, flags, expected) => {
    const home = await makeHome();
    homes.push(home);
    const path = make(await temps.make());
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off', ...(flags.tags === undefined ? { SESSIONFOLD_PRICES: path } : { SESSIONFOLD_TAGS: path }) };
    const args = flags.tags === undefined ? ['cost', 'report', '--json'] : ['cost', 'report', '--json', '--group-by', 'tag'];
    const r = await runCliChild(args, { env, timeoutMs: 20_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(expected);
  }, 30_000);
});
