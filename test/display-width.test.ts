/**
 * Tables cut and pad by terminal columns (src/cli/render/width.ts), never inside a grapheme cluster: CJK is
 * two columns a character, an emoji ZWJ sequence, a flag and a letter with a combining accent are one
 * character each. Checked on the functions and through `sessions list --compact` and `store list`.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { ellipsize, renderTable } from '../src/cli/render/session-table.js';
import { displayWidth, graphemes } from '../src/cli/render/width.js';
import { CLAUDE_COPIES, copyClaudeFixtures, HAS_CLAUDE, makeHome, sink, type Home } from './sessions-helpers.js';

const FAMILY = '👨‍👩‍👧';
const FLAG = '🇫🇷';
const ACCENT = 'e\u0301';

describe('displayWidth', () => {
  it.each([
    ['plain', 'abc', 3],
    ['CJK ideographs', '幫我檢查', 8],
    ['Hangul and kana', '한국어かな', 10],
    ['fullwidth Latin', 'ＡＢ', 4],
    ['halfwidth katakana', 'ｱｲ', 2],
    ['an emoji ZWJ family', FAMILY, 2],
    ['a flag', FLAG, 2],
    ['an emoji with VS16', '❤️', 2],
    ['a combining accent', ACCENT, 1],
    ['a lone ZWJ and variation selector', '\u200d\ufe0f', 0],
  ])('%s', (_, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('ellipsize', () => {
  const texts = [`ab${FAMILY}cd${FLAG}${FLAG}x${ACCENT}${ACCENT}y`, '幫我檢查一下 go.mod 裡面', `${ACCENT.repeat(6)}`, `🚀🚀🚀🚀🚀🚀`];
  it.each(texts)('cuts %s at every width on a cluster boundary, within the width', (text) => {
    const clusters = graphemes(text);
    for (let max = 1; max <= displayWidth(text) + 1; max++) {
      const cut = ellipsize(text, max);
      expect(displayWidth(cut), `${max}`).toBeLessThanOrEqual(max);
      const kept = cut.endsWith('…') && cut !== text ? cut.slice(0, -1) : cut;
      expect(clusters.join('').startsWith(kept)).toBe(true);
      expect(graphemes(kept).every((g, i) => g === clusters[i])).toBe(true);
    }
  });

  it('keeps a text that fits whole', () => {
    expect(ellipsize(`x${FAMILY}`, 3)).toBe(`x${FAMILY}`);
  });
});

describe('renderTable', () => {
  it('lines up the columns after CJK and emoji cells', () => {
    const out = renderTable(['Name', 'State', 'Title'], [['store:會話記錄', 'active', 'a'], [`store:${FAMILY}`, 'archived', 'b'], ['store:plain', 'active', 'c']], 80);
    const [head, rule, ...rows] = out.trimEnd().split('\n');
    const starts = [head as string, ...rows].map((l) => displayWidth(l.slice(0, l.search(/  (State|active|archived)/) + 2)));
    expect(new Set(starts).size).toBe(1);
    // the rule's second run starts where the second column does
    expect(displayWidth((rule as string).slice(0, (rule as string).indexOf('  ─') + 2))).toBe(starts[0]);
  });

  it('keeps every line of a CJK title within the width', () => {
    const out = renderTable(['UPDATED', 'TITLE'], [['2026-01-01', '幫我檢查一下 go.mod 裡面 為何 go版本是 1.23, toolchain 卻是 1.24? 請幫我統一成1.23並且我希望1.23以上就能使用']], 40);
    for (const l of out.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

describe.runIf(HAS_CLAUDE)('the CLI', () => {
  let home: Home;
  beforeAll(async () => {
    process.env.TZ = 'UTC';
    home = await makeHome();
    await copyClaudeFixtures(home);
  });
  afterAll(async () => {
    await rm(home.dir, { recursive: true, force: true });
  });
  const cli = async (args: string[]) => {
    const stdout = sink();
    const stderr = sink();
    const code = await runCli(args, { stdout, stderr, env: { ...home.env, COLUMNS: '200' } });
    return { stdout: stdout.text(), stderr: stderr.text(), code };
  };

  it('sessions list --compact keeps a Chinese title row within 80 columns', async () => {
    const r = await cli(['sessions', 'list', 'claude', '--compact']);
    expect(r.code).toBe(0);
    const zh = r.stdout.split('\n').find((l) => l.includes('幫我'));
    expect(zh).toBeDefined();
    for (const l of r.stdout.trimEnd().split('\n')) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
  });

  it('store list lines up its columns after a CJK session name', async () => {
    const id = CLAUDE_COPIES['vibecodingtracker-real-session-v1.0.95-zh.jsonl'] as string;
    expect((await cli(['store', 'save', `claude:${id}`, '--name', '會話記錄'])).code).toBe(0);
    expect((await cli(['store', 'save', `claude:${id}`, '--name', 'plain'])).code).toBe(0);
    const r = await cli(['store', 'list']);
    const lines = r.stdout.trimEnd().split('\n').filter((l) => !l.startsWith('─'));
    const stateAt = lines.map((l) => displayWidth(l.slice(0, l.search(/ (State|active|archived) /) + 1)));
    expect(lines.length).toBe(3);
    expect(new Set(stateAt).size).toBe(1);
  });
});
