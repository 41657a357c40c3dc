/**
 * GitHub Copilot Chat in VS Code through the built CLI, as a subprocess, over a temporary HOME holding the
 * repo's sessions in VS Code's Linux user folder (`~/.config/Code/User`) and one in VSCodium's:
 * `sessions list copilot-vscode`, `sessions show`, `cost report --agent copilot-vscode` (tokens equal to the
 * golden files) and `read`. The tree is the same after every command.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copilotVscode } from '../codecs/copilot-vscode/index.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { readEvents } from './helpers/codec-harness.js';
import { agentCli, agentCliOutput, goldenUsage } from './helpers/agent-cli.js';
import { treeListing } from './helpers/files.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
const OWN = join(ROOT, 'fixtures', 'copilot-vscode', 'User');
const EXPECTED = join(ROOT, 'fixtures', 'expected', 'copilot-vscode');
const AGENT = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
const DOC = '0e4c2a18-7d3b-4f5e-9a6c-1b2d3e4f5a60';
const EMPTY = 'b7e5d3c1-a9f8-4e6d-8c2b-0a1f2e3d4c5b';
const OLD_EMPTY = '5a3c9e71-2b4d-4f60-8e1a-7c9d0b2e4f36';

let home: string;
let before: string[];
const config = () => join(home, '.config');

beforeAll(async () => {
  const newest = Math.max(...['index.ts', 'parse.ts', 'schema.ts', 'document.ts', 'paths.ts'].map((f) => statSync(join(ROOT, 'codecs', 'copilot-vscode', f)).mtimeMs));
  const built = join(ROOT, 'dist', 'codecs', 'copilot-vscode', 'index.js');
  if (!existsSync(CLI) || !existsSync(built) || statSync(built).mtimeMs < newest) await run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT });
  home = await mkdtemp(join(tmpdir(), 'sf-copilot-vscode-cli-'));
  await cp(join(OWN, 'workspaceStorage'), join(config(), 'Code', 'User', 'workspaceStorage'), { recursive: true });
  await cp(join(OWN, 'globalStorage'), join(config(), 'VSCodium', 'User', 'globalStorage'), { recursive: true });
  before = await treeListing(config());
}, 180_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, () => treeListing(config()), () => before);
const cliOutput = agentCliOutput(() => home, () => treeListing(config()), () => before);

describe('sessionfold CLI over VS Code chat sessions', () => {
  it('sessions list copilot-vscode lists every session with its title and workspace folder', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'copilot-vscode', '--json'])) as { sessionId: string; title?: string; cwd?: string; cost?: number; usageUnknown?: true; usageRecorded?: false }[];
    const by = new Map(rows.map((r) => [r.sessionId, r]));
    expect([...by.keys()].sort()).toEqual([DOC, AGENT, EMPTY, OLD_EMPTY].sort());
    expect(by.get(AGENT)).toMatchObject({ title: 'Build failure in strict mode', cwd: '/home/dev/app' });
    expect(by.get(DOC)).toMatchObject({ title: 'Daily notes', cwd: '/home/dev/notes' });
    expect(by.get(EMPTY)).toMatchObject({ usageUnknown: true });
    expect(by.get(EMPTY)!.usageRecorded).toBeUndefined(); // VS Code records tokens: these were not written
    expect(by.get(EMPTY)!.cost).toBeUndefined(); // unknown, never a measured $0
    expect(by.get(OLD_EMPTY)!.cwd).toBeUndefined(); // an older build's empty window: no workspace
    expect(by.get(OLD_EMPTY)!.usageUnknown).toBeUndefined();
  });

  it('sessions show prints the conversation with its tool calls', async () => {
    const out = await cli(['sessions', 'show', 'copilot-vscode', AGENT]);
    expect(out).toContain('Why does the build fail?');
    expect(out).toContain('copilot_readFile');
  });

  it('cost report --agent copilot-vscode: the golden tokens of every session', async () => {
    const report = JSON.parse(await cli(['cost', 'report', '--agent', 'copilot-vscode', '--json', '--group-by', 'agent'])) as { breakdowns: Record<string, Record<string, number>> };
    const usage = await goldenUsage([AGENT, DOC, EMPTY, OLD_EMPTY].map((id) => join(EXPECTED, `${id}.events.jsonl`)));
    const sum = (f: (u: (typeof usage)[number]) => number) => usage.reduce((a, u) => a + f(u), 0);
    expect(usage.length).toBe(4);
    expect(report.breakdowns['copilot-vscode']).toMatchObject({
      inputTokens: sum((u) => u.inputTokens),
      outputTokens: sum((u) => u.outputTokens),
      cacheReadTokens: sum((u) => u.cacheReadTokens),
      requestCount: usage.length,
    });
  });

  it('cost report names the sessions whose tokens were not written: one without any among them', async () => {
    const { err } = await cliOutput(['cost', 'report', '--agent', 'copilot-vscode']);
    expect(err).toContain('note: copilot-vscode: 2 sessions have tokens the agent has not recorded');
  });

  it('the aliases name the codec', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'vscode-copilot', '--json'])) as unknown[];
    expect(rows).toHaveLength(4);
  });

  it('read --agent copilot-vscode streams the library events', async () => {
    const path = join(config(), 'Code', 'User', 'workspaceStorage', '3c9e1f0a6b2d4e8f9a1b2c3d4e5f6a7b', 'chatSessions', `${AGENT}.jsonl`);
    const events = (await cli(['read', path, '--agent', 'copilot-vscode'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
    expect(events).toEqual(await readEvents(copilotVscode, path));
  });
});
