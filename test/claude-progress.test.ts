/**
 * Claude `progress` / `agent_progress` lines and subagent files: each response counted once
 * (codecs/claude/README.md, "`progress` / `agent_progress` lines and subagent files"). The real Claude files
 * hold no agent_progress line (checked here, as the README says); a report over copies of them counts what a
 * deliberately simple reader written here counts; a constructed parent whose `agent_progress` line copies a
 * response of its subagent's own file counts that response once, with the native engines on and off; and over
 * the constructed fixtures of fixtures/claude/progress, `cost report` counts each subagent response once, in
 * its subagent's session, whether the subagent's own file is there or not, cached or not, while `sessions
 * show` of the parent is what it is without its progress lines.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostSummary } from '../src/cost/types.js';
import { claudeLine, expectReqSums, type Req } from './claude-lines.js';
import { PARENT_ID, perSession, progressLine as progressOf, simpleResponses } from './claude-progress-helpers.js';
import { jsonlFiles } from './helpers/files.js';
import { statusLine } from '../src/cost/statusline.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES } from '../src/sessions/peek.js';
import { SCAN_MIN_FILES } from '../src/sessions/usage-scan.js';
import { copyClaudeFixtures, FAKE_PRICER, HAS_CLAUDE, makeHome, REAL, type Home } from './sessions-helpers.js';

const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;
const run = promisify(execFile);
const CLAUDE_REAL = join(REAL, 'claude');

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const homes: Home[] = [];
afterAll(async () => {
  for (const h of homes) await rm(h.dir, { recursive: true, force: true });
});

async function report(home: Home, extraEnv: NodeJS.ProcessEnv = {}): Promise<CostSummary> {
  const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--json', '--group-by', 'none', '--no-cache'], { env: { ...home.env, ...extraEnv } });
  return JSON.parse(r.stdout) as CostSummary;
}

describe('the real Claude files (the README\'s evidence)', () => {
  it('hold one progress line, a hook_progress without usage, and no agent_progress at all', async () => {
    const files = await jsonlFiles(CLAUDE_REAL);
    expect(files.length).toBe(6);
    const progress: string[] = [];
    let agentProgress = 0;
    for (const f of files) {
      const lines = (await readFile(f, 'utf8')).split('\n');
      lines.forEach((l, i) => {
        const rec = parsed(l);
        if (rec?.type === 'progress') progress.push(`${relative(CLAUDE_REAL, f)}:${i + 1}:${(rec.data as { type?: string }).type}:${'message' in (rec.data as object)}`);
        if (l.includes('agent_progress')) agentProgress++;
      });
    }
    expect(progress).toEqual(['agent-sessions-v2.1-sanitized-hooks-attachments.jsonl:11:hook_progress:false']);
    expect(agentProgress).toBe(0);
  });

  it('the parent + subagent pair shares no response and carries no usage', async () => {
    const dir = join(CLAUDE_REAL, 'agent-sessions-subagent');
    const parent = (await readFile(join(dir, '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl'), 'utf8')).split('\n').map(parsed);
    const sub = (await readFile(join(dir, '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl'), 'utf8')).split('\n').map(parsed);
    const reqs = (recs: (Record<string, unknown> | undefined)[]) => recs.filter((r) => r?.type === 'assistant').map((r) => r?.requestId);
    expect(reqs(parent)).toEqual(['preq1']);
    expect(reqs(sub)).toEqual(['creq1']);
    for (const r of [...parent, ...sub]) expect((r?.message as { usage?: unknown } | undefined)?.usage).toBeUndefined();
  });

  it.skipIf(!HAS_CLAUDE)('a report over copies of all of them counts each response once, as a simple reader does', async () => {
    const home = await makeHome();
    homes.push(home);
    await copyClaudeFixtures(home);
    // The simple reader: assistant lines (typed, or ccusage's typeless ones) with a usage object and a real
    // model; one response per message.id + requestId, a line without either its own.
    const keys = new Set<string>();
    let n = 0;
    for (const f of await jsonlFiles(CLAUDE_REAL)) {
      for (const l of (await readFile(f, 'utf8')).split('\n')) {
        const rec = parsed(l);
        const msg = rec?.message as { id?: string; role?: string; model?: string; usage?: unknown } | undefined;
        if (rec === undefined || msg === undefined || typeof msg.usage !== 'object' || msg.usage === null) continue;
        if (!(rec.type === 'assistant' || (rec.type === undefined && msg.role === 'assistant')) || msg.model === '<synthetic>') continue;
        const req = typeof rec.requestId === 'string' ? rec.requestId : undefined;
        keys.add(msg.id !== undefined || req !== undefined ? `${msg.id ?? ''}:${req ?? ''}` : `line:${n++}`);
      }
    }
    expect(keys.size).toBeGreaterThan(30); // the reader found the real responses (37 when written)
    for (const env of [{}, { SESSIONFOLD_NATIVE_ENGINES: '0' }]) expect((await report(home, env)).requestCount).toBe(keys.size);
  });
});

describe.skipIf(!HAS_CLAUDE)('a parent whose agent_progress line copies its subagent\'s response', () => {
  const PARENT = '99999999-9999-4999-8999-999999999999';
  const AGENT = 'agent-a1b2c3d4e5f6a7b8c';
  const R0: Req = { id: 'p0', ms: Date.UTC(2026, 1, 2, 9), inp: 10, out: 100, cr: 1000, cw: 50, usd: 0.5 };
  const R1: Req = { id: 's1', ms: Date.UTC(2026, 1, 2, 9, 1), inp: 20, out: 200, cr: 2000, cw: 0, usd: 0.25 };
  const R2: Req = { id: 's2', ms: Date.UTC(2026, 1, 2, 9, 2), inp: 30, out: 300, cr: 0, cw: 70, usd: 1 };
  let home: Home;

  /** The parent's progress line: Claude Code 2.1.x's layout, the subagent's assistant line nested under data.message. */
  const progressLine = (r: Req): string => progressOf(PARENT, AGENT, claudeLine(AGENT, r), new Date(r.ms).toISOString());

  beforeAll(async () => {
    home = await makeHome();
    homes.push(home);
    const proj = join(home.claude, 'projects', '-w');
    await mkdir(join(proj, PARENT, 'subagents'), { recursive: true });
    await writeFile(join(proj, `${PARENT}.jsonl`), [claudeLine(PARENT, R0), progressLine(R1), progressLine(R2)].join('\n') + '\n');
    await writeFile(join(proj, PARENT, 'subagents', `${AGENT}.jsonl`), [claudeLine(AGENT, R1), claudeLine(AGENT, R2)].join('\n') + '\n');
  });

  it('counts every response once, with the native engines on and off', async () => {
    for (const env of [{}, { SESSIONFOLD_NATIVE_ENGINES: '0' }]) expectReqSums(await report(home, env), [R0, R1, R2]);
  });

  it('counts the parent\'s own response and the subagent\'s in their own sessions', async () => {
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--json', '--group-by', 'session', '--no-cache'], { env: home.env });
    const s = JSON.parse(r.stdout) as CostSummary;
    expectReqSums(s, [R0, R1, R2]);
    const rows = Object.values(s.breakdowns ?? {});
    expect(rows.map((b) => b.requestCount).sort()).toEqual([1, 2]);
  });
});

describe.skipIf(!HAS_CLAUDE)('the constructed agent_progress fixtures through the CLI', () => {
  const PROJECTS = fileURLToPath(new URL('../fixtures/claude/progress/projects/', import.meta.url));
  const REL_PARENT = join('-Users-dev-progress', `${PARENT_ID}.jsonl`);
  const REL_SUBAGENT = join('-Users-dev-progress', PARENT_ID, 'subagents', 'agent-a1b2c3d4e5f6a7b8c.jsonl');
  let expected: ReturnType<typeof perSession>;

  /** A home holding the fixtures, with `edit` applied to its projects folder. */
  async function homeWith(edit: (projects: string) => Promise<void>): Promise<Home> {
    const home = await makeHome();
    homes.push(home);
    const projects = join(home.claude, 'projects');
    await cp(PROJECTS, projects, { recursive: true });
    await edit(projects);
    return home;
  }

  /** `cost report --group-by session` as per-session requests and [input, output, cache read, cache write]. */
  async function bySession(home: Home, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ReturnType<typeof perSession>> {
    const r = await run(process.execPath, [CLI, 'cost', 'report', '--agent', 'claude', '--json', '--group-by', 'session', ...args], { env: { ...home.env, ...env } });
    const s = JSON.parse(r.stdout) as CostSummary;
    const out: ReturnType<typeof perSession> = {};
    for (const [k, b] of Object.entries(s.breakdowns ?? {})) out[k.replace(/^claude:/, '')] = { requests: b.requestCount, tokens: [b.inputTokens, b.outputTokens, b.cacheReadTokens, b.cacheWriteTokens] };
    const total = Object.values(out).reduce((a, b) => a + b.requests, 0);
    expect(s.requestCount).toBe(total);
    return out;
  }

  beforeAll(async () => {
    // The simple reader over both files: the subagent's responses are in both, and count once.
    const files = [
      { text: await readFile(join(PROJECTS, REL_PARENT), 'utf8'), session: PARENT_ID },
      { text: await readFile(join(PROJECTS, REL_SUBAGENT), 'utf8'), session: 'agent-a1b2c3d4e5f6a7b8c' },
    ];
    expected = perSession(simpleResponses(files).values());
  });

  it('counts each subagent response once, in its session, with the subagent\'s own file there', async () => {
    expect(Object.keys(expected).sort()).toEqual([PARENT_ID, 'agent-a1b2c3d4e5f6a7b8c', 'agent-b9c8d7e6f5a4b3c2d'].sort());
    const home = await homeWith(async () => undefined);
    for (const env of [{}, { SESSIONFOLD_NATIVE_ENGINES: '0' }, { SESSIONFOLD_NATIVE: '0' }]) expect(await bySession(home, ['--no-cache'], env)).toEqual(expected);
    expect(await bySession(home, [])).toEqual(expected); // cold cache
    expect(await bySession(home, [])).toEqual(expected); // warm cache
    // Each session's row counts its own responses: the parent's copies are its subagents'.
    const r = await run(process.execPath, [CLI, 'sessions', 'list', 'claude', '--format', 'json', '--subagents'], { env: home.env });
    const rows = JSON.parse(r.stdout) as { sessionId: string; cost?: { requestCount: number } }[];
    expect(Object.fromEntries(rows.map((x) => [x.sessionId, x.cost?.requestCount]))).toEqual({ [PARENT_ID]: 2, 'agent-a1b2c3d4e5f6a7b8c': 2 });
  });

  it('counts the same without the subagent\'s own file: the parent\'s copies stand for it', async () => {
    const home = await homeWith((p) => rm(join(p, REL_SUBAGENT)));
    for (const env of [{}, { SESSIONFOLD_NATIVE_ENGINES: '0' }]) expect(await bySession(home, ['--no-cache'], env)).toEqual(expected);
    expect(await bySession(home, [])).toEqual(expected);
  });

  it('shows the parent session with the messages and cost it has without its progress lines', async () => {
    const show = async (home: Home) => {
      const r = await run(process.execPath, [CLI, 'sessions', 'show', `claude:${PARENT_ID}`, '--format', 'json', '--no-pager'], { env: home.env });
      return JSON.parse(r.stdout) as { messages: unknown[]; cost?: unknown; costByModel?: unknown; model?: unknown };
    };
    const withProgress = await show(await homeWith(async () => undefined));
    const stripped = await show(
      await homeWith(async (p) => {
        const file = join(p, REL_PARENT);
        const lines = (await readFile(file, 'utf8')).split('\n');
        await writeFile(file, lines.filter((l) => parsed(l)?.type !== 'progress').join('\n'));
      }),
    );
    expect(withProgress.messages.length).toBeGreaterThan(0);
    expect(withProgress.messages).toEqual(stripped.messages);
    expect(withProgress.cost).toMatchObject({ requestCount: 2 }); // the parent's own two responses
    expect([withProgress.cost, withProgress.costByModel, withProgress.model]).toEqual([stripped.cost, stripped.costByModel, stripped.model]);
  });

  it('lists many large parents (the scan engine) with each parent\'s own cost, as get() gives it', async () => {
    const text = await readFile(join(PROJECTS, REL_PARENT), 'utf8');
    const lines = text.split('\n');
    const filler = (i: number) => JSON.stringify({ type: 'user', sessionId: PARENT_ID, cwd: '/Users/dev/progress', uuid: `f${i}`, timestamp: '2026-02-18T09:57:15.000Z', message: { role: 'user', content: `note ${i} ${'x'.repeat(1200)}` } });
    // Filler after the first response, so the head and tail peeks see only part of each file.
    const big = [...lines.slice(0, 3), ...Array.from({ length: 150 }, (_, i) => filler(i)), ...lines.slice(3)].join('\n');
    expect(Buffer.byteLength(big)).toBeGreaterThan(FULL_PEEK_BYTES);
    const home = await homeWith(async (p) => {
      await rm(join(p, '-Users-dev-progress'), { recursive: true });
      await mkdir(join(p, '-big'), { recursive: true });
      // Each copy is a session of its own: its lines name it (lines naming another session are copies of that one's).
      for (let i = 0; i < SCAN_MIN_FILES + 2; i++) {
        const id = `aaaaaaaa-1111-4222-8333-${String(i).padStart(12, '0')}`;
        await writeFile(join(p, '-big', `${id}.jsonl`), big.replaceAll(PARENT_ID, id));
      }
    });
    const sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
    for (const pass of ['cold', 'warm']) {
      const rows = await sm.list('claude', { sort: 'cost', limit: 100 });
      expect(rows, pass).toHaveLength(SCAN_MIN_FILES + 2);
      for (const r of rows) {
        expect(r.exact).toBe(false);
        expect(r.cost?.requestCount, pass).toBe(2);
        expect(r.cost, pass).toEqual((await sm.get('claude', r.sessionId)).cost);
      }
    }
  });

  it('gives a running parent\'s status line its own model, context and cost, not its subagents\'', async () => {
    // The parent while its subagents run: its last own response started them, their copies come after it.
    const home = await homeWith(async (p) => {
      const file = join(p, REL_PARENT);
      const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
      await writeFile(file, lines.slice(0, -3).join('\n') + '\n');
    });
    const file = join(home.claude, 'projects', REL_PARENT);
    for (const q of [{ sessionId: PARENT_ID, file }, { file }]) {
      const s = await statusLine({ agent: 'claude', ...q, env: home.env, cache: false, now: new Date('2026-02-18T10:00:00Z'), timeZone: 'UTC' });
      expect(s.model.id).toBe('claude-opus-4-6');
      expect(s.context?.usedTokens).toBe(3 + 8809 + 7885); // msg_01ParentP1's prompt
      expect(s.session?.requests).toBe(1);
      expect(s.today.requests).toBe(5); // the subagents' four responses count for the day, once each
    }
  });
});
