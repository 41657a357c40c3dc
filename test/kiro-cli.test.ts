/**
 * The kiro codec through the built CLI (dist/), as a subprocess, over a temporary HOME holding kiro-cli's
 * session files at `~/.kiro/sessions/cli` and its `data.sqlite3` (built from the CLI's DDL) at
 * `~/.local/share/kiro-cli`: `sessions list kiro`, `cost report --agent kiro` (no tokens counted, no $0 total:
 * Kiro records none) and `read`. The agent's folders are the same after every command.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kiro } from '../codecs/kiro/index.js';
import type { SessionFile } from '../cursors/protocol/codec.js';
import type { SessionfoldEvent } from '../cursors/protocol/events.js';
import { discoverAll, readEvents } from './helpers/codec-harness.js';
import { treeListing } from './helpers/files.js';
import { agentCli, agentCliOutput, buildIfStale } from './helpers/agent-cli.js';
import { layOutKiro } from './helpers/kiro-layout.js';

let home: string;
let before: string[];
let files: SessionFile[];

async function trees(): Promise<string[]> {
  return [...(await treeListing(join(home, '.kiro'))), ...(await treeListing(join(home, '.local', 'share', 'kiro-cli')))];
}

beforeAll(async () => {
  await buildIfStale(['kiro']);
  home = await mkdtemp(join(tmpdir(), 'sf-kiro-cli-'));
  layOutKiro(home);
  files = await discoverAll(kiro, kiro.defaultRoots({ HOME: home }));
  before = await trees();
}, 300_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const cli = agentCli(() => home, trees, () => before);
const cliBoth = agentCliOutput(() => home, trees, () => before);

describe('sessionfold CLI over a Kiro tree', () => {
  it('sessions list kiro lists the session files and the database conversations', async () => {
    const rows = JSON.parse(await cli(['sessions', 'list', 'kiro', '--json'])) as { sessionId: string; agent: string; cwd?: string }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(files.map((f) => f.sessionId).sort());
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.agent === 'kiro')).toBe(true);
    expect(rows.map((r) => r.cwd).sort()).toEqual(['/home/dev/api', '/home/dev/notes', '/home/dev/shop', '/home/dev/web']);
    expect(await cli(['sessions', 'list', 'kiro'])).toContain('Fix the cart total');
  });

  it('cost report --agent kiro counts no tokens and says the agent records none, never a $0 total', async () => {
    const { out, err } = await cliBoth(['cost', 'report', '--agent', 'kiro', '--json']);
    const report = JSON.parse(out) as { requestCount: number; totalUsd: number; inputTokens: number; breakdowns: object; sources: { agent?: string; files: number; usageRecorded?: false }[] };
    expect([report.requestCount, report.totalUsd, report.inputTokens, report.breakdowns]).toEqual([0, 0, 0, {}]);
    expect(report.sources.some((s) => s.files > 0)).toBe(true);
    for (const s of report.sources) expect(s.usageRecorded).toBe(false);
    expect(err).toMatch(/note: kiro: \d+ session files?; the agent records no token usage/);
    const { out: table } = await cliBoth(['cost', 'report', '--agent', 'kiro']);
    expect(table).not.toMatch(/Total|\$0\.00/);
    expect(table.trimEnd().split('\n').at(-1)).toBe('(no token usage counted: kiro records none)');
  });

  it('read --agent kiro streams the library events of a session file and of a conversation', async () => {
    for (const f of [files[0]!, files[2]!]) {
      const events = (await cli(['read', f.path, '--agent', 'kiro'])).split('\n').filter(Boolean).map((l) => JSON.parse(l) as SessionfoldEvent);
      expect(events).toEqual(await readEvents(kiro, f.path));
      expect(events.some((e) => e.type === 'message')).toBe(true);
    }
  });
});
