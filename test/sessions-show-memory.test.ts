/**
 * `sessions show` holds about one message, not the session: a generated 60 MB Claude session (two-byte text,
 * as most real sessions are somewhere) is shown whole (`--full`) by the built CLI in a process whose V8 old
 * generation is capped at 40 MB, far below what the session takes in memory. The whole-session path, `get()`
 * then one string (the library's `SessionManager.export`, what every format of the CLI took before), fails
 * under the same cap, so the cap is one the streaming makes pass; `renderMarkdown(get(…))` in this process is
 * the reference for the bytes. JSONL and JSON (show's and export's) stream under the same cap, to the
 * library's whole export's bytes.
 * Not timed. Build first: `npx tsc -p . && node scripts/bundle-cli.mjs`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createWriteStream, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSessionManager } from '../src/sessions/manager.js';
import { renderExport } from '../src/sessions/export.js';
import { renderMarkdown } from '../src/sessions/markdown.js';
import { type Home, makeHome } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const LIB = new URL('../dist/src/index.js', import.meta.url).href;
const ID = '6f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5';
const TARGET_BYTES = 60e6;
const HEAP_CAP_MB = 40;
let home: Home;
let file: string;

/** One turn: a prompt, a tool call with usage, and a 200-line result with arrows (two-byte strings in V8). */
function turn(i: number): string {
  const t = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const out = Array.from({ length: 200 }, (_, k) => `line ${k} of result ${i} → ${'x'.repeat(80)}`).join('\n');
  const base = { sessionId: ID, cwd: '/tmp/proj', version: '2.0.0', timestamp: t };
  return [
    { ...base, type: 'user', uuid: `u${i}`, message: { role: 'user', content: `prompt ${i}` } },
    {
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      requestId: `req_${i}`,
      message: {
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `cat file${i}` } }],
        usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
    { ...base, type: 'user', uuid: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: out }] } },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');
}

beforeAll(async () => {
  home = await makeHome();
  const proj = join(home.claude, 'projects', '-tmp-proj');
  await mkdir(proj, { recursive: true });
  file = join(proj, `${ID}.jsonl`);
  const w = createWriteStream(file);
  let bytes = 0;
  for (let i = 0; bytes < TARGET_BYTES; i++) {
    const text = `${turn(i)}\n`;
    bytes += Buffer.byteLength(text);
    if (!w.write(text)) await new Promise<void>((r) => w.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => w.end((e?: Error | null) => (e ? reject(e) : resolve())));
}, 120_000);

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

/** The CLI with `args` (or node with them), stdout to a file under the temp home; its exit status, stderr and output digest. */
function cli(name: string, nodeFlags: string[], args: string[], script = CLI): { status: number | null; stderr: string; sha: string; bytes: number } {
  const outPath = join(home.dir, `${name}.out`);
  const fd = openSync(outPath, 'w');
  try {
    const r = spawnSync(process.execPath, [...nodeFlags, ...(script === '' ? [] : [script]), ...args], { env: home.env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', maxBuffer: 16 << 20 });
    const out = readFileSync(outPath);
    return { status: r.status, stderr: r.stderr, sha: createHash('sha256').update(out).digest('hex'), bytes: out.length };
  } finally {
    closeSync(fd);
  }
}

it('shows a 60 MB session under a heap cap the whole-session path cannot meet', async () => {
  expect(statSync(file).size).toBeGreaterThanOrEqual(TARGET_BYTES);
  const cap = [`--max-old-space-size=${HEAP_CAP_MB}`];
  const sm = createSessionManager({ env: home.env });
  const full = await sm.get('claude', ID);
  const text = renderMarkdown(full);
  const reference = { sha: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) };
  expect(reference.bytes).toBeGreaterThan(TARGET_BYTES / 2);

  // the library's whole export holds the session and its text, as every format of the CLI did: it cannot meet the cap
  const whole = `import(${JSON.stringify(LIB)}).then(async (m) => process.stdout.write(await m.createSessionManager().export('claude', ${JSON.stringify(ID)}, 'json')))`;
  const old = cli('old', cap, ['--input-type=module', '-e', whole], '');
  expect(old.status).not.toBe(0);
  expect(old.stderr).toMatch(/heap out of memory|Allocation failed/i);

  const streamed = cli('streamed', cap, ['sessions', 'show', 'claude', ID, '--full', '--no-pager']);
  expect(streamed.status, streamed.stderr).toBe(0);
  expect(streamed.sha).toBe(reference.sha);

  // the default show (blocks cut at 40 lines) under the same cap, and smaller than the whole
  const cut = cli('cut', cap, ['sessions', 'show', 'claude', ID, '--no-pager']);
  expect(cut.status, cut.stderr).toBe(0);
  expect(cut.bytes).toBeGreaterThan(0);
  expect(cut.bytes).toBeLessThan(reference.bytes / 2);

  // JSONL and JSON stream as well: show's and export's (JSONL with every usage event's key) under the same cap
  const sha = (t: string): string => createHash('sha256').update(t).digest('hex');
  const json = sha(await sm.export('claude', ID, 'json'));
  const cases: [string[], string][] = [
    [['sessions', 'show', 'claude', ID, '--format', 'jsonl'], sha(renderExport(full, 'jsonl'))],
    [['sessions', 'export', 'claude', ID], sha(await sm.export('claude', ID, 'jsonl'))],
    [['sessions', 'show', 'claude', ID, '--format', 'json'], json],
    [['sessions', 'export', 'claude', ID, '--format', 'json'], json],
  ];
  for (const [args, expected] of cases) {
    const out = cli('streamed-export', cap, args);
    expect(out.status, out.stderr).toBe(0);
    expect(out.bytes).toBeGreaterThan(TARGET_BYTES / 2);
    expect(out.sha, args.join(' ')).toBe(expected);
  }
}, 480_000);
