/**
 * `sessions list` and `sessions search` in the cost report's formats and options (--format table|json|csv|
 * markdown, --json, --last, --order, --compact, --no-cost, --breakdown), through the built CLI over an isolated
 * HOME of generated Claude sessions whose titles hold quotes, commas, pipes and a line break. CSV is parsed
 * back with a small RFC 4180 reader written here; rows are checked against a plain sum over the written lines.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeLine, sumOf, type Req } from './claude-lines.js';
import { HAS_CLAUDE, makeHome, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);
const DAY = 86_400_000;
const now = Date.now();

interface Spec {
  sid: string;
  title: string;
  reqs: Req[];
}
const SONNET = 'claude-sonnet-4-5';
const OPUS = 'claude-opus-4-1';
const SESSIONS: Spec[] = [
  {
    sid: '11111111-1111-4111-8111-111111111111',
    title: 'Fix "quoted" names, commas | pipes\nand a second line about zebras',
    reqs: [
      { id: 'a1', ms: now - 40 * DAY, inp: 100, out: 200, cr: 1000, cw: 50, usd: 0.5, model: SONNET },
      { id: 'a2', ms: now - 40 * DAY + 60_000, inp: 300, out: 400, cr: 0, cw: 10, usd: 1.25, model: OPUS },
    ],
  },
  {
    sid: '22222222-2222-4222-8222-222222222222',
    title: 'Plain title about zebras and a rather long tail that will not fit in eighty columns at all, really',
    reqs: [{ id: 'b1', ms: now - 10 * DAY, inp: 7, out: 8, cr: 9, cw: 0, usd: 0.25, model: SONNET }],
  },
  {
    sid: '33333333-3333-4333-8333-333333333333',
    title: 'Today, zebras: a;b "c"',
    reqs: [
      { id: 'c1', ms: now - 60_000, inp: 11, out: 12, cr: 13, cw: 14, usd: 2, model: OPUS },
      { id: 'c2', ms: now - 30_000, inp: 21, out: 22, cr: 23, cw: 24, usd: 4, model: SONNET },
    ],
  },
];
const bySid = new Map(SESSIONS.map((s) => [s.sid, s]));

async function writeSession(claudeDir: string, s: Spec): Promise<void> {
  const dir = join(claudeDir, 'projects', '-w');
  await mkdir(dir, { recursive: true });
  const first = s.reqs[0] as Req;
  const user = JSON.stringify({ type: 'user', sessionId: s.sid, cwd: '/w', uuid: `u-${s.sid}`, timestamp: new Date(first.ms - 1000).toISOString(), message: { role: 'user', content: s.title } });
  await writeFile(join(dir, `${s.sid}.jsonl`), [user, ...s.reqs.map((r) => claudeLine(s.sid, r))].join('\n') + '\n');
}

let home: Home;
beforeAll(async () => {
  home = await makeHome();
  for (const s of SESSIONS) await writeSession(home.claude, s);
});
afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<string> {
  const r = await run(process.execPath, [CLI, 'sessions', ...args], { env: home.env });
  expect(r.stderr).toBe('');
  return r.stdout;
}

/** RFC 4180: quoted fields may hold commas, `""` and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\n') row.push(field), rows.push(row), (row = []), (field = '');
    else field += ch;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

function csvRecords(text: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(text);
  for (const r of rows) expect(r.length).toBe(head?.length);
  return rows.map((r) => Object.fromEntries((head as string[]).map((h, i) => [h, r[i] as string])));
}

/** Cells of a Markdown table row: split on `|` not escaped by a backslash. */
function mdCells(line: string): string[] {
  expect(line.startsWith('| ') && line.endsWith(' |')).toBe(true);
  return line.slice(2, -2).split(/(?<!\\) \| /);
}

const tokens = (r: Req) => r.inp + r.out + r.cr + r.cw;
type JsonRow = { sessionId: string; title: string; cost?: Record<string, number>; modelBreakdowns?: ({ model: string } & Record<string, number>)[] };

describe.skipIf(!HAS_CLAUDE)('sessions list/search formats (built CLI)', () => {
  it('--format json equals --json and holds every session with its cost', async () => {
    const j = JSON.parse(await cli(['list', 'claude', '--format', 'json'])) as JsonRow[];
    expect(await cli(['list', 'claude', '--json'])).toBe(await cli(['list', 'claude', '--format', 'json']));
    expect(j.map((r) => r.sessionId).sort()).toEqual([...bySid.keys()].sort());
    for (const r of j) {
      const s = bySid.get(r.sessionId) as Spec;
      expect(r.cost?.totalUsd).toBeCloseTo(sumOf(s.reqs, (q) => q.usd), 9);
      expect(r.cost?.requestCount).toBe(s.reqs.length);
    }
  });

  it('CSV parses back (RFC 4180): titles with quotes, commas and line breaks intact, costs exact', async () => {
    const json = JSON.parse(await cli(['list', 'claude', '--json'])) as JsonRow[];
    const recs = csvRecords(await cli(['list', 'claude', '--format', 'csv']));
    expect(recs.length).toBe(SESSIONS.length);
    for (const rec of recs) {
      const s = bySid.get(rec.session_id as string) as Spec;
      expect(rec.title).toBe(json.find((r) => r.sessionId === s.sid)?.title);
      expect(Number(rec.cost_usd)).toBeCloseTo(sumOf(s.reqs, (q) => q.usd), 9);
      expect(Number(rec.total_tokens)).toBe(sumOf(s.reqs, tokens));
      expect(rec.unified_id).toBe(`claude:${s.sid}`);
    }
    // The first title really needed the quoting.
    expect(recs.some((r) => r.title?.includes('"quoted"') && r.title.includes(','))).toBe(true);
  });

  it('--no-cost: no money in CSV, JSON or the table, tokens instead', async () => {
    const recs = csvRecords(await cli(['list', 'claude', '--format', 'csv', '--no-cost']));
    expect(Object.keys(recs[0] ?? {})).not.toContain('cost_usd');
    const j = JSON.parse(await cli(['list', 'claude', '--json', '--no-cost'])) as JsonRow[];
    for (const r of j) {
      expect(r.cost).not.toHaveProperty('totalUsd');
      expect(r.cost?.inputTokens).toBe(sumOf((bySid.get(r.sessionId) as Spec).reqs, (q) => q.inp));
    }
    const table = await cli(['list', 'claude', '--no-cost']);
    expect(table).toMatch(/^Updated .* Tokens  Title\n─/);
    expect(table).not.toMatch(/\$\d/);
    const s1 = SESSIONS[0] as Spec;
    expect(table).toContain(sumOf(s1.reqs, tokens).toLocaleString('en-US'));
  });

  it('--breakdown: per-model usage under each session, adding up to it (JSON, CSV, table)', async () => {
    const j = JSON.parse(await cli(['list', 'claude', '--json', '--breakdown'])) as JsonRow[];
    for (const r of j) {
      const s = bySid.get(r.sessionId) as Spec;
      const models = [...new Set(s.reqs.map((q) => q.model as string))].sort();
      expect(r.modelBreakdowns?.map((m) => m.model).sort()).toEqual(models);
      for (const m of models) {
        const mine = s.reqs.filter((q) => q.model === m);
        const b = r.modelBreakdowns?.find((x) => x.model === m);
        expect(b?.requestCount).toBe(mine.length);
        expect(b?.totalUsd).toBeCloseTo(sumOf(mine, (q) => q.usd), 9);
      }
    }
    const recs = csvRecords(await cli(['list', 'claude', '--format', 'csv', '--breakdown']));
    const modelRows = recs.filter((r) => r.usage_model !== '');
    expect(modelRows.length).toBe(SESSIONS.reduce((a, s) => a + new Set(s.reqs.map((q) => q.model)).size, 0));
    const table = await cli(['list', 'claude', '--breakdown']);
    expect(table.split('\n').filter((l) => l.includes(`↳ ${OPUS}`)).length).toBe(2);
  });

  it('Markdown: one header, a rule and a row per session (plus model rows), every row the same column count', async () => {
    for (const extra of [[], ['--breakdown'], ['--compact'], ['--no-cost']]) {
      const lines = (await cli(['list', 'claude', '--format', 'markdown', ...extra])).trimEnd().split('\n');
      const n = mdCells(lines[0] as string).length;
      expect(n).toBeGreaterThanOrEqual(5);
      for (const l of lines) expect(mdCells(l).length).toBe(n);
      const extraRows = extra.includes('--breakdown') ? 5 : 0;
      expect(lines.length).toBe(2 + SESSIONS.length + extraRows);
    }
    const search = (await cli(['search', 'zebras', '--format', 'markdown'])).trimEnd().split('\n');
    const n = mdCells(search[0] as string).length;
    for (const l of search) expect(mdCells(l).length).toBe(n);
    expect(search.length).toBe(2 + SESSIONS.length);
  });

  it('--compact fits 80 columns (list, list --breakdown, all agents, search) though the terminal is wider', async () => {
    for (const args of [['list', 'claude', '--compact'], ['list', 'claude', '--compact', '--breakdown'], ['list', '--compact'], ['search', 'zebras', '--compact']]) {
      const out = await cli(args);
      const lines = out.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(SESSIONS.length);
      for (const l of lines) expect(Array.from(l).length).toBeLessThanOrEqual(80);
    }
    const wide = (await cli(['list', 'claude'])).split('\n');
    expect(Math.max(...wide.map((l) => Array.from(l).length))).toBeGreaterThan(80);
  });

  it('--order asc turns the newest-first order round; --last 1 keeps only today\'s session', async () => {
    const ids = async (args: string[]) => (JSON.parse(await cli([...args, '--json'])) as JsonRow[]).map((r) => r.sessionId);
    const desc = await ids(['list', 'claude']);
    expect(desc).toEqual(['33333333-3333-4333-8333-333333333333', '22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111']);
    expect(await ids(['list', 'claude', '--order', 'asc'])).toEqual([...desc].reverse());
    expect(await ids(['list', 'claude', '--order', 'desc'])).toEqual(desc);
    expect(await ids(['list', 'claude', '--last', '1'])).toEqual(['33333333-3333-4333-8333-333333333333']);
    expect(await ids(['list', 'claude', '--last', '20'])).toEqual(desc.slice(0, 2));
    const found = await ids(['search', 'zebras', '--sort', 'date']);
    expect(found).toEqual(desc);
    expect(await ids(['search', 'zebras', '--sort', 'date', '--order', 'asc'])).toEqual([...desc].reverse());
    expect(await ids(['search', 'zebras', '--last', '1'])).toEqual(['33333333-3333-4333-8333-333333333333']);
  });

  it('--tz sets the zone of the table\u2019s dates (list and search); a bad zone is refused whatever else is asked', async () => {
    const updated = new Date((SESSIONS[2]!.reqs.at(-1) as Req).ms);
    // the UPDATED cell as the zone's wall clock, computed apart from the renderer (Intl)
    const wall = (zone: string) => {
      const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(updated).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
    };
    for (const zone of ['Pacific/Kiritimati', 'America/Adak']) {
      const row = (text: string) => text.split('\n').find((l) => l.includes('33333333'));
      expect(row(await cli(['list', 'claude', '--tz', zone]))).toContain(wall(zone));
      expect(row(await cli(['search', 'zebras', '--tz', zone]))).toContain(wall(zone));
    }
    expect(wall('Pacific/Kiritimati')).not.toBe(wall('America/Adak'));
    const r = await run(process.execPath, [CLI, 'sessions', 'list', 'claude', '--tz', 'Nowhere/Bogus'], { env: home.env }).catch((e: { code: number; stderr: string }) => e);
    expect((r as { code: number }).code).toBe(1);
    expect((r as { stderr: string }).stderr).toMatch(/INVALID_OPTION/);
  });

  it('search: CSV with score and snippet parses back; bad option values are refused', async () => {
    const recs = csvRecords(await cli(['search', 'zebras', '--format', 'csv', '--breakdown']));
    const sessionRows = recs.filter((r) => r.usage_model === '');
    expect(sessionRows.map((r) => r.session_id).sort()).toEqual([...bySid.keys()].sort());
    for (const r of sessionRows) {
      expect(Number(r.relevance_score)).toBeGreaterThan(0);
      expect(r.snippet?.toLowerCase()).toContain('zebras');
    }
    for (const bad of [['--format', 'xml'], ['--order', 'up'], ['--last', '0']]) {
      const r = await run(process.execPath, [CLI, 'sessions', 'list', 'claude', ...bad], { env: home.env }).catch((e: { code: number; stderr: string }) => e);
      expect((r as { code: number }).code).toBe(1);
      expect((r as { stderr: string }).stderr).toMatch(/INVALID_OPTION/);
    }
  });
});
