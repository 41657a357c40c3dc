/**
 * Paths from an agent's environment variable: a comma-separated list is accepted, but a value that names an
 * existing folder whole (a comma is legal in a path) is that one folder. Through each kind of root helper and
 * the CLI, on a real Copilot session copied under a folder whose name holds a comma.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getClaudeRoots } from '../codecs/claude/paths.js';
import { getCodexRoots } from '../codecs/codex/paths.js';
import { getCopilotRoots } from '../codecs/copilot/paths.js';
import { envDir, envPathList } from '../cursors/env-paths.js';
import { getGrokRoots } from '../codecs/grok/paths.js';
import { reasonixStateRoot } from '../codecs/reasonix/paths.js';
import { runCli } from '../src/cli/run.js';
import { sink } from './cost-history.js';
import { tempDirPerTest } from './helpers/sqlite-db.js';

const REAL_DIR = new URL('../../shared/fixtures/real/copilot/agent-sessions-session-state-dir/', import.meta.url).pathname;
const DIR_ID = 'aaaabbbb-1111-2222-3333-ccccddddeeee';

let dir: string;
tempDirPerTest('sf-envpaths-', (d) => {
  dir = d;
});

describe('envPathList', () => {
  it('unset or blank is none; a list is split and trimmed; an existing path holding a comma is one path', () => {
    expect(envPathList(undefined)).toEqual([]);
    expect(envPathList('  ')).toEqual([]);
    expect(envPathList(' /a , /b ,, ')).toEqual(['/a', '/b']);
    const comma = join(dir, 'my,home');
    mkdirSync(comma);
    expect(envPathList(comma)).toEqual([comma]);
    expect(envPathList(` ${comma} `)).toEqual([comma]);
    // the whole value does not exist: a list, even when a part of it does
    expect(envPathList(`${comma},${join(dir, 'gone')}`)).toEqual([join(dir, 'my'), 'home', join(dir, 'gone')]);
    // `~` expanded before the whole value is looked up
    expect(envPathList('~/my,home', (p) => p.replace(/^~/, dir))).toEqual(['~/my,home']);
  });

  it('each agent\u2019s roots: COPILOT_HOME, CODEX_HOME and CLAUDE_CONFIG_DIR naming a folder with a comma', () => {
    const comma = join(dir, 'a,b');
    mkdirSync(comma);
    expect(getCopilotRoots({ HOME: dir, COPILOT_HOME: comma })).toEqual([comma]);
    expect(getCodexRoots({ HOME: dir, CODEX_HOME: comma })).toEqual([comma]);
    expect(getClaudeRoots({ HOME: dir, CLAUDE_CONFIG_DIR: comma })).toEqual([join(comma, 'projects')]);
    expect(getClaudeRoots({ HOME: dir, CLAUDE_CONFIG_DIR: '~/a,b' })).toEqual([join(comma, 'projects')]);
    expect(getCopilotRoots({ HOME: dir, COPILOT_HOME: `${join(dir, 'x')},${join(dir, 'y')}` })).toEqual([join(dir, 'x'), join(dir, 'y')]);
  });
});

describe('envDir', () => {
  it('reads a folder variable trimmed, blank as unset, `~` expanded only with a home', () => {
    const env = { A: '  ~/x  ', B: '   ', C: '/abs/~/y' };
    expect(envDir(env, 'A')).toBe('~/x');
    expect(envDir(env, 'A', { home: '/h' })).toBe('/h/x');
    expect(envDir(env, 'B', { home: '/h' })).toBeUndefined();
    expect(envDir(env, 'missing', { home: '/h' })).toBeUndefined();
    expect(envDir(env, 'C', { home: '/h' })).toBe('/abs/~/y');
    expect(envDir({ D: 'rel' }, 'D', { absolute: true })).toBe(join(process.cwd(), 'rel'));
  });

  it('is how the codecs read their home variables', () => {
    expect(getGrokRoots({ HOME: '/h', GROK_HOME: ' ~/g ' })).toEqual(['/h/g/sessions']);
    expect(getGrokRoots({ HOME: '/h', GROK_HOME: ' ' })).toEqual(['/h/.grok/sessions']);
    expect(reasonixStateRoot({ HOME: '/h', REASONIX_STATE_HOME: ' ', REASONIX_HOME: '~/r' }, 'linux')).toBe('/h/r');
  });
});

describe('the CLI', () => {
  it('lists a Copilot session under a COPILOT_HOME whose name holds a comma, with no warning', async () => {
    const home = join(dir, 'my,home');
    cpSync(REAL_DIR + DIR_ID, join(home, 'session-state', DIR_ID), { recursive: true });
    const stdout = sink();
    const stderr = sink();
    const code = await runCli(['sessions', 'list', 'copilot', '--json'], { stdout, stderr, env: { HOME: dir, COPILOT_HOME: home } });
    expect(stderr.text()).toBe('');
    expect(code).toBe(0);
    expect((JSON.parse(stdout.text()) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([DIR_ID]);
    expect(stderr.text()).not.toContain('does not exist');
  });
});
