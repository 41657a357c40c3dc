/**
 * What the registry knows of this codec before it reads a file: names, version, capabilities and roots
 * (cursors/protocol/codec.ts `CodecDescriptor`). Nothing here imports the codec's parsers.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { CodecDescriptor } from '../../cursors/protocol/codec.js';
import { envDir, expandHome } from '../../cursors/env-paths.js';

/**
 * Goes up whenever the pi engine would parse an unchanged file differently; the codecs of the family (omp,
 * Senpi, Kimchi, gajae-code, OpenClaw) read with the same engine and carry the same number (Cherry Studio,
 * which reads pi's files and Claude Code's, adds it to Claude's). 3: a `Usage`'s `reasoningTokens`,
 * `cttl.ephemeral1h` and `server.webSearch` (gajae-code's) are read; 4: Kimchi's subagent entry marks its session.
 */
export const PI_PARSER_VERSION = 4;


/**
 * The `sessions/` folder of a pi-style agent dir: `$<envVar>` when set (the agent dir), else
 * `~/<dotDir>/<agentDirName>` (`agent` for pi's own layout). Missing roots are kept: discovery skips them.
 */
export function agentSessionRoots(env: NodeJS.ProcessEnv, envVar: string, dotDir: string, agentDirName = 'agent'): string[] {
  const home = env.HOME || homedir();
  const agentDir = envDir(env, envVar, { home }) ?? join(home, dotDir, agentDirName);
  return [join(agentDir, 'sessions')];
}

/**
 * The `sessionDir` of `<agent dir>/settings.json` (pi's `SettingsManager.getSessionDir`), `~` expanded.
 * Undefined when the file is missing or unreadable, or the value is not an absolute path: pi resolves a
 * relative one against the cwd it was started in, which a reader cannot know.
 */
export function settingsSessionDir(agentDir: string, home: string): string | undefined {
  let v: unknown;
  try {
    v = (JSON.parse(readFileSync(join(agentDir, 'settings.json'), 'utf8')) as { sessionDir?: unknown } | null)?.sessionDir;
  } catch {
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const dir = expandHome(v.trim(), home);
  return isAbsolute(dir) ? dir : undefined;
}

/**
 * The roots of a pi-style agent whose sessions folder can be moved: the folder pi writes new sessions to,
 * `$<sessionVar>` (the first set of several names, for a fork that kept an older one) else the global
 * settings' `sessionDir` (pi's `main.ts`: `--session-dir`, then the variable, then the setting), and the agent
 * dir's `sessions/`, which keeps what was written before.
 */
export function movableSessionRoots(env: NodeJS.ProcessEnv, agentVar: string, sessionVar: string | readonly string[], dotDir: string, agentDirName = 'agent'): string[] {
  const home = env.HOME || homedir();
  const roots = agentSessionRoots(env, agentVar, dotDir, agentDirName);
  const fromEnv = (typeof sessionVar === 'string' ? [sessionVar] : sessionVar).map((name) => envDir(env, name, { home })).find((d) => d !== undefined);
  const moved = fromEnv ?? settingsSessionDir(dirname(roots[0] as string), home);
  return [...new Set([...(moved === undefined ? [] : [moved]), ...roots])];
}

/**
 * The environment with pi's agent dir as pi has it outside Kimchi. Kimchi runs pi's engine and, for everything
 * it starts, sets `PI_CODING_AGENT_DIR` to its own harness (`~/.config/kimchi/harness`, also
 * `$KIMCHI_CODING_AGENT_DIR`), keeping a value it inherited in `KIMCHI_ORIGINAL_PI_CODING_AGENT_DIR`
 * (codecs/kimchi/README.md): read from such a shell, the variable names Kimchi's sessions, which the kimchi
 * codec reads, and pi's are in the original dir, else the default.
 */
function outsideKimchi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const piDir = env.PI_CODING_AGENT_DIR?.trim();
  if (!piDir) return env;
  const home = env.HOME || homedir();
  const full = (p: string) => resolve(expandHome(p, home));
  const kimchiDirs = [env.KIMCHI_CODING_AGENT_DIR?.trim(), join(home, '.config', 'kimchi', 'harness')].filter((d): d is string => !!d).map(full);
  if (!kimchiDirs.includes(full(piDir))) return env;
  return { ...env, PI_CODING_AGENT_DIR: env.KIMCHI_ORIGINAL_PI_CODING_AGENT_DIR };
}

/**
 * pi's roots: `$PI_CODING_AGENT_SESSION_DIR` else the settings' `sessionDir`, and `$PI_CODING_AGENT_DIR/sessions`
 * (else `~/.pi/agent/sessions`); a `PI_CODING_AGENT_DIR` that names Kimchi's harness is Kimchi's (`outsideKimchi`).
 */
export function getPiRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return movableSessionRoots(outsideKimchi(env), 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', '.pi');
}

/** A codec read by the pi engine (pi, omp, OpenClaw) under its own names and roots. */
export function piFamilyDescriptor(d: Pick<CodecDescriptor, 'id' | 'aliases' | 'displayName' | 'defaultRoots' | 'rootVariables'>): CodecDescriptor {
  return { ...d, parserVersion: PI_PARSER_VERSION, capabilities: { incremental: true, persistence: 'jsonl', eventsPrecedeMtime: true } };
}

export const piDescriptor: CodecDescriptor = piFamilyDescriptor({ id: 'pi', aliases: ['pi-agent', 'pi-coding-agent'], displayName: 'pi', defaultRoots: getPiRoots, rootVariables: ['PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR'] });
