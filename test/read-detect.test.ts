/**
 * `sessionfold read` without `--agent`: the registry asks each codec (`Codec.detect`) about the path and the
 * first bytes, over the real fixtures of every agent sessionfold reads; and a codec handed another agent's
 * file refuses it with FORMAT_MISMATCH instead of turning it into a session (the Codex reader given pi,
 * OpenClaw, Claude or Copilot files). The CLI half needs a build (`npx tsc -p tsconfig.json`).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex } from '../codecs/codex/index.js';
import { isSessionfoldError } from '../cursors/protocol/errors.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { detectCodec, getCodec } from '../src/registry.js';

const run = promisify(execFile);
const REAL = new URL('../../shared/fixtures/real/', import.meta.url).pathname;
const CLI = new URL('../dist/src/cli/main.cjs', import.meta.url).pathname;

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out.sort();
}

/** Session files of an agent folder: what its codec reads (not sidecars, single messages or the storage tree's parts). */
function isSessionFile(agent: string, path: string): boolean {
  const rel = relative(join(REAL, agent), path);
  if (!/\.jsonl?$/.test(rel) || rel.endsWith('.meta.json')) return false;
  if (agent === 'pi') return rel.endsWith('.jsonl'); // the .json is one message, not a session
  if (agent === 'opencode') return rel.includes('/session/');
  return true;
}

/** Every agent folder sessionfold has a codec for, and the codec that in-place detection must pick. */
const EXPECTED: Record<string, string> = {
  claude: 'claude',
  codex: 'codex',
  copilot: 'copilot',
  cursor: 'cursor',
  gemini: 'gemini',
  hermes: 'hermes',
  opencode: 'opencode',
  pi: 'pi',
  // OpenClaw writes pi's format line for line: outside its own folder the first registered (pi) wins; in
  // its folder (below) the path decides.
  openclaw: 'pi',
};

async function events(agent: string, file: string): Promise<SessionfoldEvent[]> {
  const out: SessionfoldEvent[] = [];
  for await (const e of getCodec(agent).read(file)) out.push(e);
  return out;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sf-detect-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('detectCodec', () => {
  for (const [agent, id] of Object.entries(EXPECTED)) {
    it(`tells ${agent}'s real files, and the detected codec reads them as the named one does`, async () => {
      const files = (await walk(join(REAL, agent))).filter((f) => isSessionFile(agent, f));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const c = await detectCodec(f, {});
        expect(c.id, f).toBe(id);
        expect((await events(c.id, f)).length, f).toBeGreaterThan(0);
      }
    });
  }

  it('lets the path decide between formats shared by several agents (an OpenClaw file in its state folder)', async () => {
    const dir = join(tmp, 'state', 'agents', 'main', 'sessions');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'openclaw-stage0-small.jsonl');
    await cp(join(REAL, 'openclaw', 'agent-sessions-small.jsonl'), file);
    expect((await detectCodec(file, { HOME: tmp, OPENCLAW_STATE_DIR: join(tmp, 'state') })).id).toBe('openclaw');
    expect((await detectCodec(file, { HOME: tmp })).id).toBe('pi');
  });

  it('claims no file of an agent sessionfold does not read, and says so with AGENT_NOT_FOUND', async () => {
    const files = [...(await walk(join(REAL, 'amp'))), ...(await walk(join(REAL, 'antigravity'))), ...(await walk(join(REAL, 'droid'))), ...(await walk(join(REAL, 'kimi')))];
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const err = await detectCodec(f, {}).then(
        (c) => c.id,
        (e: unknown) => e,
      );
      expect(isSessionfoldError(err) && err.code, f).toBe('AGENT_NOT_FOUND');
    }
  });
});

describe('a codec refuses a file that is not its format', () => {
  it('the Codex reader refuses pi, OpenClaw, Claude and Copilot files with FORMAT_MISMATCH, emitting nothing', async () => {
    const files = [
      join(REAL, 'pi', 'agent-sessions-v3-tree.jsonl'),
      join(REAL, 'openclaw', 'agent-sessions-small.jsonl'),
      join(REAL, 'claude', 'vibecodingtracker-real-session-v1.0.95-zh.jsonl'),
      join(REAL, 'copilot', 'agent-sessions-sanitized-small.jsonl'),
    ];
    for (const f of files) {
      const seen: SessionfoldEvent[] = [];
      const err = await (async () => {
        for await (const e of codex.read(f)) seen.push(e);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSessionfoldError(err) && err.code, f).toBe('FORMAT_MISMATCH');
      expect(seen, f).toEqual([]);
    }
  });
});

describe('sessionfold read without --agent (built CLI)', () => {
  const cli = async (args: string[]) =>
    run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, HOME: tmp, NO_COLOR: '1' }, maxBuffer: 64 << 20 }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );

  it('reads each agent’s file as --agent <detected> does, and refuses a mismatched --agent with a code', async () => {
    for (const [agent, file] of [
      ['codex', join(REAL, 'codex', 'agent-sessions-v0.146-sanitized.jsonl')],
      ['claude', join(REAL, 'claude', 'agent-sessions-v2.1-sanitized-hooks-attachments.jsonl')],
      ['gemini', join(REAL, 'gemini', 'agent-sessions-chat-small.json')],
    ] as const) {
      const auto = await cli(['read', file]);
      const named = await cli(['read', file, '--agent', agent]);
      expect(auto.code, auto.stderr).toBe(0);
      expect(auto.stdout).toBe(named.stdout);
      expect(auto.stdout.length).toBeGreaterThan(0);
    }
    const wrong = await cli(['read', join(REAL, 'openclaw', 'agent-sessions-small.jsonl'), '--agent', 'codex']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/FORMAT_MISMATCH/);
    expect(wrong.stdout).toBe('');
    const unknown = await cli(['read', join(REAL, 'amp', 'llm-usage-metrics-e2e-thread.json')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/AGENT_NOT_FOUND.*--agent/);
  });
});
