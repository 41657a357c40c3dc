/**
 * Resource limits (issue 17, case 6, the parts done): `sessions search` is linear in the text for any
 * query (the phrase bonus used a RegExp of the terms joined by `[\s\S]{0,40}?`, which backtracks
 * exponentially in their number: 13 one-letter terms on a 6 KB message took 8 s, 17 over a minute); a
 * price or tags file that is a FIFO or a device is refused at once (child processes: it used to hang).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync } from 'node:fs';
import xxhash from 'xxhash-wasm';
import { hasPhrase, parseTerms, SearchScorer } from '../src/sessions/search-match.js';
import { Xxh64, xxh32, xxh64 } from '../cursors/xxhash-js.js';
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

describe('under ulimit -v 1G', () => {
  it('the JavaScript xxhash gives xxhash-wasm\'s digests, whole and streamed', async () => {
    const api = await xxhash();
    for (let n = 0; n < 140; n++) {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = (i * 131 + n * 7) & 255;
      expect(xxh64(b)).toBe(api.h64Raw(b));
      expect(xxh32(b)).toBe(api.h32Raw(b, 0) >>> 0);
      const h = new Xxh64();
      for (let i = 0; i < n; i += 5) h.update(b.subarray(i, i + 5));
      expect(h.digest()).toBe(api.h64Raw(b));
    }
  });

  it('cost report runs and answers as without the limit (child process)', async () => {
    const home = await makeHome();
    homes.push(home);
    const project = join(home.claude, 'projects', '-tmp-p');
    mkdirSync(project, { recursive: true });
    cpSync(new URL('../fixtures/claude/projects/-Users-dev-app/', import.meta.url).pathname, project, { recursive: true });
    const env = { ...home.env, SESSIONFOLD_SOCKET: 'off' };
    const free = await runCliChild(['cost', 'report', '--json', '--no-cache'], { env, built: true });
    expect(free.code).toBe(0);
    for (const args of [['--no-cache'], []]) {
      const limited = await runCliChild(['cost', 'report', '--json', ...args], { env, shellPrefix: 'ulimit -v 1048576;', timeoutMs: 60_000, built: true });
      expect(limited.stderr).not.toMatch(/RangeError/);
      expect(limited.code).toBe(0);
      expect(JSON.parse(limited.stdout)).toEqual(JSON.parse(free.stdout));
    }
  }, 120_000);
});
