import { statSync } from 'node:fs';
/**
 * Where the Claude codec looks (roots from CLAUDE_CONFIG_DIR or the two default config dirs), what it finds
 * (sessions and subagent transcripts in the real layout), how it locates one session by id, and the rest of
 * the codec contract (dependencies, resume command, registry).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude, getClaudePathInfo, getClaudeRoots, getSubagentMetaPath } from '../codecs/claude/index.js';
import type { SessionFile } from '../cursors/protocol/codec.js';
import { getCodec, loadCodec } from '../src/registry.js';
import { createSessionManager } from '../src/sessions/manager.js';
import { scanUsage } from '../src/scan/index.js';
import { FAKE_PRICER, makeHome } from './sessions-helpers.js';

const PROJECTS = fileURLToPath(new URL('../fixtures/claude/projects', import.meta.url));
const P = '11111111-2222-4333-8444-555555555555';
const F = '22222222-3333-4444-8555-666666666666';

async function collect(roots: string[]): Promise<SessionFile[]> {
  const out: SessionFile[] = [];
  for await (const f of claude.discover(roots)) out.push(f);
  return out;
}

describe('claude roots', () => {
  it('defaults to ~/.config/claude/projects and ~/.claude/projects under HOME', () => {
    expect(getClaudeRoots({ HOME: '/home/ann' })).toEqual(['/home/ann/.config/claude/projects', '/home/ann/.claude/projects']);
    expect(claude.defaultRoots({ HOME: '/home/ann', XDG_CONFIG_HOME: '/cfg' })).toEqual(['/cfg/claude/projects', '/home/ann/.claude/projects']);
  });

  it('takes every comma-separated CLAUDE_CONFIG_DIR entry, as a config dir or its projects/ dir', () => {
    const env = { HOME: '/home/ann', CLAUDE_CONFIG_DIR: '/a/claude, /b/conf/projects/ ,,~/work-claude,/a/claude/projects' };
    expect(getClaudeRoots(env)).toEqual(['/a/claude/projects', '/b/conf/projects', '/home/ann/work-claude/projects']);
  });

  it('uses only CLAUDE_CONFIG_DIR when it is set', () => {
    expect(getClaudeRoots({ HOME: '/home/ann', CLAUDE_CONFIG_DIR: '/only' })).toEqual(['/only/projects']);
    expect(getClaudeRoots({ HOME: '/home/ann', CLAUDE_CONFIG_DIR: '  ' })).toEqual(['/home/ann/.config/claude/projects', '/home/ann/.claude/projects']);
  });
});

describe('claude discovery', () => {
  it('finds sessions and subagent transcripts (2.1 subagents/ folders and older agent-*.jsonl files)', async () => {
    const files = await collect([PROJECTS]);
    expect(files.map((f) => [f.path.slice(PROJECTS.length + 1), f.sessionId, f.subagent === true])).toEqual([
      [`-Users-dev-app/${P}.jsonl`, P, false],
      [`-Users-dev-app/${F}.jsonl`, F, false],
      [`-Users-dev-app/${P}/subagents/agent-abc123.jsonl`, 'agent-abc123', true],
      ['-Users-dev-other/agent-deadbeef.jsonl', 'agent-deadbeef', true],
      ['-Users-dev-titles/44444444-5555-4666-8777-888888888888.jsonl', '44444444-5555-4666-8777-888888888888', false],
      ['-Users-dev-titles/44444444-5555-4666-8777-888888888888/subagents/agent-b2.jsonl', 'agent-b2', true],
    ]);
    expect(files.every((f) => f.agent === 'claude' && f.root === PROJECTS)).toBe(true);
  });

  it('reads a root given as the config dir through its projects/ folder, as the projects folder does', async () => {
    const config = join(PROJECTS, '..');
    const viaConfig = await collect([config]);
    expect(viaConfig.map((f) => f.path)).toEqual((await collect([PROJECTS])).map((f) => f.path));
    expect(viaConfig.every((f) => f.root === config)).toBe(true);
    expect((await claude.locate!([config], F))?.path).toBe(join(PROJECTS, '-Users-dev-app', `${F}.jsonl`));
  });

  it('skips missing roots and non-transcript files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-claude-roots-'));
    await mkdir(join(dir, 'proj', 'sess', 'subagents'), { recursive: true });
    await mkdir(join(dir, 'proj', 'sess', 'tool-results'), { recursive: true });
    await writeFile(join(dir, 'proj', 'notes.txt'), 'x');
    await writeFile(join(dir, 'proj', 'sess', 'subagents', 'agent-1.meta.json'), '{}');
    await writeFile(join(dir, 'proj', 'sess', 'tool-results', 'x.jsonl'), '{}\n');
    await writeFile(join(dir, 'stray.jsonl'), '{}\n');
    expect(await collect([join(dir, 'missing'), dir])).toEqual([]);
  });

  it('says what a path tells: the session id, subagent-ness and the parent', () => {
    expect(getClaudePathInfo(`/r/p/${P}.jsonl`)).toEqual({ stem: P, sessionId: P, subagent: false, parentSessionId: undefined });
    expect(getClaudePathInfo(`/r/p/${P}/subagents/agent-a0f.jsonl`)).toEqual({ stem: 'agent-a0f', sessionId: 'agent-a0f', subagent: true, parentSessionId: P });
    expect(getClaudePathInfo('/x/agent-sessions-v2.1-sanitized.jsonl').sessionId).toBeUndefined();
  });
});

describe('getSubagentMetaPath', () => {
  it('names the sidecar next to a subagent transcript, as join(dirname, stem.meta.json) does', () => {
    for (const f of ['/r/p/s/subagents/agent-a0f.jsonl', '/agent-x.jsonl', 'rel/agent-y.jsonl', '/r/p/agent-deadbeef.jsonl', '/r/p/./q/../agent-z.jsonl', 'agent-w.jsonl', './a/agent-v.jsonl', '/r//p/agent-u.jsonl', '/r/.p/agent-t.jsonl', '../up/agent-s.jsonl', '/home/u/.claude/projects/-p/s/subagents/agent-r.jsonl', '/r/..x/agent-q.jsonl', '/r/x../agent-p.jsonl', '/r/./agent-o.jsonl', '/r/x/./agent-n.jsonl']) {
      const stem = basename(f, '.jsonl');
      expect(getSubagentMetaPath(f)).toBe(join(dirname(f), `${stem}.meta.json`));
    }
    for (const f of ['/r/p/3f1c.jsonl', '/r/p/agent-a.json', '/r/p/agent-a.jsonl.bak', '/r/agent-dir/x.jsonl']) expect(getSubagentMetaPath(f)).toBeUndefined();
  });
});

describe('claude locate', () => {
  it('finds a session by id in any project folder', async () => {
    const path = join(PROJECTS, '-Users-dev-app', `${F}.jsonl`);
    const s = statSync(path);
    expect(await claude.locate!([join(PROJECTS, 'nope'), PROJECTS], F)).toEqual({ agent: 'claude', path, root: PROJECTS, sessionId: F, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs });
  });

  it('finds subagent transcripts in subagents/ folders and next to sessions', async () => {
    expect(await claude.locate!([PROJECTS], 'agent-abc123')).toMatchObject({ path: join(PROJECTS, '-Users-dev-app', P, 'subagents', 'agent-abc123.jsonl'), subagent: true });
    expect(await claude.locate!([PROJECTS], 'agent-deadbeef')).toMatchObject({ path: join(PROJECTS, '-Users-dev-other', 'agent-deadbeef.jsonl'), subagent: true });
  });

  it('returns undefined for an unknown id or one that is a path', async () => {
    expect(await claude.locate!([PROJECTS], 'ffffffff-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await claude.locate!([PROJECTS], `-Users-dev-app/${P}`)).toBeUndefined();
    expect(await claude.locate!([PROJECTS], '..')).toBeUndefined();
  });
});

describe('claude codec contract', () => {
  it('declares a subagent’s .meta.json as a parse dependency, and nothing for a session', () => {
    const sub = join(PROJECTS, '-Users-dev-app', P, 'subagents', 'agent-abc123.jsonl');
    expect(claude.getParseDependencies(sub)).toEqual([join(PROJECTS, '-Users-dev-app', P, 'subagents', 'agent-abc123.meta.json')]);
    expect(claude.getParseDependencies(join(PROJECTS, '-Users-dev-app', `${P}.jsonl`))).toEqual([]);
  });

  it('resumes with claude --resume <id>', () => {
    expect(claude.resumeCommand!(P)).toEqual(['claude', '--resume', P]);
  });

  it('is registered as claude, with its aliases, incremental over JSONL', async () => {
    // The registry holds the codec's descriptor and loads this module's codec behind it.
    const registered = await loadCodec(getCodec('claude'));
    expect(getCodec('claude-code')).toBe(registered);
    expect(registered.id).toBe(claude.id);
    expect(registered.lineCore).toBe(claude.lineCore);
    expect(claude.capabilities).toMatchObject({ incremental: true, persistence: 'jsonl' });
    expect(claude.lineCore).toBeDefined();
  });
});

describe('a transcript named otherwise than its id (renamed or copied)', () => {
  it('is listed, fetched and costed under the id its lines give, alike', async () => {
    const home = await makeHome();
    const proj = join(home.claude, 'projects', '-tmp-renamed');
    await mkdir(proj, { recursive: true });
    const id = '9a9a9a9a-1111-4222-8333-444444444444';
    const lines = [
      { type: 'user', sessionId: id, cwd: '/tmp/renamed', version: '2.1.30', uuid: 'u1', timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: 'hello there' } },
      { type: 'assistant', sessionId: id, cwd: '/tmp/renamed', uuid: 'a1', timestamp: '2026-03-01T10:00:05.000Z', requestId: 'req_r1', message: { id: 'msg_r1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 10, output_tokens: 5 } } },
    ];
    await writeFile(join(proj, 'backup of my session.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await writeFile(join(proj, `${P}.jsonl`), `${JSON.stringify({ ...lines[0], sessionId: P })}\n`);
    const sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER });
    const listed = (await sm.list('claude')).map((s) => s.sessionId).sort();
    expect(listed).toEqual([P, id].sort());
    const got = await sm.get('claude', id);
    expect(got.sessionId).toBe(id);
    expect(got.messages.map((m) => m.content)).toEqual(['hello there', 'hi']);
    const usage = [];
    for await (const r of scanUsage({ agents: ['claude'], env: home.env, cache: false })) usage.push(r.sessionId);
    expect(usage).toEqual([id]);
    expect((await claude.locate!([join(home.claude, 'projects')], id))?.path).toBe(join(proj, 'backup of my session.jsonl'));
    expect(await claude.locate!([join(home.claude, 'projects')], 'no-such-id')).toBeUndefined();
  });
});
