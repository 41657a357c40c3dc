/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';

/**
 * Goes up whenever the pi engine would parse an unchanged file differently; the codecs of the family (omp,
 * Senpi, Kimchi, gajae-code, OpenClaw) read with the same engine and carry the same number (Cherry Studio,
 * which reads pi's files and Claude Code's, adds it to Claude's). 3: a `Usage`'s `reasoningTokens`,
 * `cttl.ephemeral1h` and `server.webSearch` (gajae-code's) are read.
 */
export const PI_PARSER_VERSION = 3;

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/**
 * The `sessions/` folder of a pi-style agent dir: `$<envVar>` when set (the agent dir), else
 * `~/<dotDir>/<agentDirName>` (`agent` for pi's own layout). Missing roots are kept: discovery skips them.
 */
export function agentSessionRoots(env: NodeJS.ProcessEnv, envVar: string, dotDir: string, agentDirName = 'agent'): string[] {
  const home = env.HOME || homedir();
  const explicit = env[envVar]?.trim();
  const agentDir = explicit ? expandHome(explicit, home) : join(home, dotDir, agentDirName);
  return [join(agentDir, 'sessions')];
}

/** pi's roots: `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`. */
export function getPiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return agentSessionRoots(env, 'PI_CODING_AGENT_DIR', '.pi');
}

/** A codec read by the pi engine (pi, omp, OpenClaw) under its own names and roots. */
export function piFamilyDescriptor(d: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>): CodecDescriptor {
  return { ...d, parserVersion: PI_PARSER_VERSION, capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true } };
}

export const piDescriptor: CodecDescriptor = piFamilyDescriptor({ id: 'pi', aliases: ['pi-agent', 'pi-coding-agent'], displayName: 'pi', defaultRoots: getPiRoots, rootVariables: ['PI_CODING_AGENT_DIR'] });
