/**
 * Records what ccusage 20.0.24 answers over the real fixtures of every agent it reads besides Claude and
 * Codex (test/helpers/peer-tree.ts lays them out in one HOME), so test/ccusage-recorded.test.ts can hold
 * sessionfold's tokens to ccusage's without a network or the binary:
 *
 *   npm run build && node dist/bench/peers/record-ccusage.js [--peers-dir /tmp/sessionfold-peers]
 *
 * writes fixtures/peers/ccusage-20.0.24.json: per agent, `ccusage <agent> session --offline --json` reduced to
 * its totals and its sessions' tokens.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { layOutPeerTree, PEER_AGENTS } from '../../test/helpers/peer-tree.js';
import { findCcusageBinary, installPeer, PEER_PACKAGES } from './tools.js';

export interface RecordedTokens {
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  outputTokens: number;
}

export interface RecordedAgent {
  command: string[];
  totals: RecordedTokens;
  sessions: (RecordedTokens & { sessionId: string })[];
}

const OUT = fileURLToPath(new URL(`../../../fixtures/peers/ccusage-${PEER_PACKAGES.ccusage}.json`, import.meta.url));

function tokens(r: Record<string, unknown>): RecordedTokens {
  const n = (k: string) => (typeof r[k] === 'number' ? (r[k] as number) : 0);
  return { inputTokens: n('inputTokens'), cacheReadTokens: n('cacheReadTokens'), cacheCreationTokens: n('cacheCreationTokens'), outputTokens: n('outputTokens') };
}

const { values } = parseArgs({ options: { 'peers-dir': { type: 'string', default: process.env.PEERS_DIR ?? '/tmp/sessionfold-peers' } } });
const dir = values['peers-dir']!;
const failed = installPeer(dir, 'ccusage', (s) => process.stderr.write(`${s}\n`));
if (failed !== undefined) throw new Error(failed);
const bin = findCcusageBinary(dir);
if (typeof bin !== 'string') throw new Error(bin.reason);
const home = mkdtempSync(join(tmpdir(), 'sf-peer-tree-'));
try {
  const env = await layOutPeerTree(home);
  const out: Record<string, RecordedAgent> = {};
  for (const agent of PEER_AGENTS) {
    const args = [agent, 'session', '--offline', '--json'];
    const doc = JSON.parse(execFileSync(bin, args, { env, cwd: home, encoding: 'utf8' })) as { totals: Record<string, unknown>; sessions: Record<string, unknown>[] };
    out[agent] = {
      command: ['ccusage', ...args],
      totals: tokens(doc.totals),
      sessions: doc.sessions.map((s) => ({ sessionId: String(s.sessionId), ...tokens(s) })).sort((a, b) => a.sessionId.localeCompare(b.sessionId)),
    };
  }
  writeFileSync(OUT, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`wrote ${OUT}\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
