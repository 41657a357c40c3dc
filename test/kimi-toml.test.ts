/**
 * The TOML reader kimi-cli's config.toml goes through (codecs/kimi/toml.ts): the file as tomlkit writes it, the
 * hand-written shapes kimi-cli's docs show (inline tables, dotted and quoted keys, comments, the four kinds of
 * strings), each answer as Python's tomllib gives it for the same text (scalars other than strings and booleans
 * kept as their text); what tomllib refuses refused, and any text at all, broken at random or not TOML, answered
 * without a throw.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToml } from '../codecs/kimi/toml.js';

const CONFIG = readFileSync(new URL('../fixtures/kimi/share/config.toml', import.meta.url), 'utf8');

/** A plain copy (the reader's tables have no prototype), for messages that show the values. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

describe('kimi-cli config.toml through the small TOML reader', () => {
  it("reads the fixture as tomlkit wrote it, quoted table names and kimi-cli's fields as tomllib reads them", () => {
    expect(plain(parseToml(CONFIG))).toEqual({
      default_model: 'moonshot-ai/kimi-k2-thinking-turbo',
      default_thinking: true,
      default_yolo: false,
      models: {
        'kimi-code/kimi-for-coding': { provider: 'managed:kimi-code', model: 'kimi-for-coding', max_context_size: '262144', capabilities: ['thinking'] },
        'moonshot-ai/kimi-k2-thinking-turbo': { provider: 'managed:moonshot-ai', model: 'kimi-k2-thinking-turbo', max_context_size: '262144', capabilities: ['always_thinking', 'thinking'] },
      },
      providers: {
        'managed:kimi-code': { type: 'kimi', base_url: 'https://api.kimi.com/coding/v1', api_key: '', oauth: { storage: 'file', key: 'oauth/kimi-code' } },
        'managed:moonshot-ai': { type: 'kimi', base_url: 'https://api.moonshot.ai/v1', api_key: 'sk-fixture-not-a-key', custom_headers: { 'X-Title': 'a "quoted" \\ title — 設定' } },
      },
      loop_control: { max_steps_per_turn: '100', max_retries_per_step: '3', max_ralph_iterations: '0', reserved_context_size: '50000' },
      services: { moonshot_search: { base_url: 'https://api.kimi.com/coding/v1/search', api_key: '', oauth: { storage: 'file', key: 'oauth/kimi-code' } } },
      mcp: { client: { tool_call_timeout_ms: '60000' } },
    });
  });

  it('reads an inline table over several lines, comments inside, and leaves a multi-line string whole', () => {
    const doc = [
      "default_model = 'k2'   # a literal string",
      '[models]',
      'k2 = { provider = "p", model = "kimi-k2-turbo-preview", max_context_size = 131072, capabilities = [',
      '  "thinking", # a comment inside',
      '  "image_in",',
      '] }',
      '[providers.p]',
      'api_key = """',
      '[models.k2]',
      'model = "decoy"',
      '"""',
      '',
    ].join('\n');
    expect(plain(parseToml(doc))).toEqual({
      default_model: 'k2',
      models: { k2: { provider: 'p', model: 'kimi-k2-turbo-preview', max_context_size: '131072', capabilities: ['thinking', 'image_in'] } },
      providers: { p: { api_key: '[models.k2]\nmodel = "decoy"\n' } },
    });
  });

  it('reads dotted keys, quoted key parts with dots, numbers and dates as their text, CRLF lines', () => {
    const doc = ['default_model="x.y"', 'models."x.y".model = "kimi-k2-0905-preview"', 'models."x.y".max_context_size = 1_000', '[loop_control]', 'ts = 1979-05-27 07:32:00Z', 'f = -6.02e+23', 'n = nan', 'h = 0xdead_beef', ''].join('\r\n');
    expect(plain(parseToml(doc))).toEqual({
      default_model: 'x.y',
      models: { 'x.y': { model: 'kimi-k2-0905-preview', max_context_size: '1_000' } },
      loop_control: { ts: '1979-05-27 07:32:00Z', f: '-6.02e+23', n: 'nan', h: '0xdead_beef' },
    });
  });

  it('decodes escapes, line-ending backslashes, quotes before a closing delimiter and literal strings', () => {
    const doc = [
      'default_model = "a\\tb\\u00e9\\U0001F600\\\\\\""',
      '[models."a\\tbé😀\\\\\\""]',
      'model = """\\',
      '    line one \\',
      '    continued"""',
      's2 = """x""""',
      "s3 = 'C:\\path'",
      "s4 = '''''two'''''",
      '',
    ].join('\n');
    expect(plain(parseToml(doc))).toEqual({ default_model: 'a\tbé😀\\"', models: { 'a\tbé😀\\"': { model: 'line one continued', s2: 'x"', s3: 'C:\\path', s4: "''two''" } } });
  });

  it('reads arrays of tables, and takes __proto__ and constructor as keys only', () => {
    expect(plain(parseToml('[[servers]]\nname = "a"\n[[servers]]\nname = "b"\n[servers.extra]\nx = 1\n'))).toEqual({ servers: [{ name: 'a' }, { name: 'b', extra: { x: '1' } }] });
    const t = parseToml('__proto__ = "x"\n[constructor]\nprototype = "y"\n')!;
    expect(Object.getPrototypeOf(t)).toBeNull();
    expect(Object.entries(t).map(([k, v]) => [k, plain(v)])).toEqual([
      ['__proto__', 'x'],
      ['constructor', { prototype: 'y' }],
    ]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it.each([
    ['a key twice', 'a = 1\na = 2\n'],
    ['a table twice', '[a]\n[a]\n'],
    ['a table a dotted key defined', '[a]\nb.c = 1\n[a.b]\n'],
    ['an inline table extended', 'a = {b = 1}\n[a.c]\n'],
    ['an array extended as tables', 'a = [1]\n[[a]]\n'],
    ['an unterminated string', 'a = "x\n'],
    ['an unknown escape', 'a = "\\q"\n'],
    ['a surrogate escape', 'a = "\\uD800"\n'],
    ['no key', '= 1\n'],
    ['text after a value', 'default_model = "m" trailing\n'],
    ['a number with a leading zero', 'a = 007\n'],
    ['a bare word', 'a = kimi\n'],
  ])('refuses %s, as tomllib does', (_name, doc) => {
    expect(parseToml(doc)).toBeUndefined();
  });

  it('answers, never throws, for any text and for the fixture broken at random places', () => {
    const alphabet = ['"', "'", '[', ']', '{', '}', '=', '.', ',', '#', '\\', '\n', ' ', 'a', '1', '"""', "'''", '\\u00', '[['];
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        parseToml(s);
      }),
      { numRuns: 500, seed: 11 },
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(CONFIG.length), fc.nat(3), fc.constantFrom(...alphabet)), { minLength: 1, maxLength: 4 }), (edits) => {
        let s = CONFIG;
        for (const [at, len, put] of edits) s = s.slice(0, at) + put + s.slice(at + len);
        const t = parseToml(s);
        if (t !== undefined) expect(typeof t).toBe('object');
      }),
      { numRuns: 500, seed: 12 },
    );
  });

  it('refuses nesting deeper than it follows instead of overflowing the stack', () => {
    expect(parseToml(`a = ${'['.repeat(100_000)}`)).toBeUndefined();
    expect(plain(parseToml(`a = ${'['.repeat(8)}${']'.repeat(8)}`))).toEqual({ a: [[[[[[[[]]]]]]]] });
  });
});
