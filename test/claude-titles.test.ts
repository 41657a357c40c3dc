/**
 * Claude titles and the subagent sidecar: `custom-title` / `ai-title` records and a subagent's
 * `agent-<id>.meta.json` turn into (repeated) session events; usage events carry provider, speed and web
 * searches. Over the constructed fixture `-Users-dev-titles` and small in-memory transcripts.
 */
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claude, claudeCore, extractSubagentMeta, getModelProvider, readSubagentMeta } from '../codecs/claude/index.js';
import { parseSync } from '../cursors/sync.js';
import { newReadInfo } from '../cursors/protocol/codec.js';
import type { EventKind, SessionEvent, UsageEvent } from '../cursors/protocol/events.js';
import { byKind, expectResumeEqualsFull, lineBoundaries, readEvents, resumeAcrossCuts } from './helpers/codec-harness.js';

const PROJECTS = fileURLToPath(new URL('../fixtures/claude/projects/', import.meta.url));
const T = '44444444-5555-4666-8777-888888888888';
const TITLED = join(PROJECTS, '-Users-dev-titles', `${T}.jsonl`);
const NESTED_AGENT = join(PROJECTS, '-Users-dev-titles', T, 'subagents', 'agent-b2.jsonl');
const SUBAGENT = join(PROJECTS, '-Users-dev-app', '11111111-2222-4333-8444-555555555555', 'subagents', 'agent-abc123.jsonl');

const SID = '0f0f0f0f-1111-4222-8333-444444444444';
const FILE = `/home/u/.claude/projects/-w/${SID}.jsonl`;
const user = (uuid: string, sessionId = SID) =>
  JSON.stringify({ parentUuid: null, cwd: '/w', sessionId, version: '2.1.30', type: 'user', uuid, timestamp: '2026-03-01T00:00:00.000Z', message: { role: 'user', content: 'hi' } });
const custom = (title: string, sessionId: string | undefined = SID) => JSON.stringify({ type: 'custom-title', customTitle: title, ...(sessionId !== undefined && { sessionId }) });
const ai = (title: string) => JSON.stringify({ type: 'ai-title', aiTitle: title, sessionId: SID });

function sessions(lines: string[], kinds?: EventKind[]): SessionEvent[] {
  return parseSync(claudeCore, lines.join('\n') + '\n', { file: FILE, ...(kinds !== undefined && { kinds }) }).filter((e): e is SessionEvent => e.type === 'session');
}

describe('claude titles', () => {
  it('emits the session event again with the title a custom-title record sets, at that record', () => {
    const lines = [user('u1'), custom('My work')];
    const s = sessions(lines);
    expect(s.map((e) => [e.offset, e.title])).toEqual([
      [0, undefined],
      [Buffer.byteLength(lines[0]!) + 1, 'My work'],
    ]);
    expect(s[1]).toEqual({ ...s[0], offset: s[1]!.offset, title: 'My work' });
  });

  it('puts a title recorded before the session event on that event, with no extra event', () => {
    expect(sessions([custom('Carried over by /clear'), user('u1')]).map((e) => e.title)).toEqual(['Carried over by /clear']);
  });

  it('ranks the user’s custom title over the AI title: an ai-title after it changes nothing, a new rename does', () => {
    const titles = sessions([user('u1'), ai('Generated'), custom('Mine'), ai('Generated again'), custom('Mine, renamed'), custom('Mine, renamed')]).map((e) => e.title);
    expect(titles).toEqual([undefined, 'Generated', 'Mine', 'Mine, renamed']);
  });

  it('lets the latest AI title win while there is no custom title', () => {
    expect(sessions([user('u1'), ai('First'), ai('Second')]).map((e) => e.title)).toEqual([undefined, 'First', 'Second']);
  });

  it('ignores a title record that names another session, and empty titles', () => {
    const other = '99999999-aaaa-4bbb-8ccc-dddddddddddd';
    expect(sessions([user('u1'), custom('Trash', other), custom(''), JSON.stringify({ type: 'ai-title', aiTitle: 42 })]).map((e) => e.title)).toEqual([undefined]);
    expect(sessions([user('u1'), custom('No session named', undefined)]).map((e) => e.title)).toEqual([undefined, 'No session named']);
  });

  it('keeps a copied title that names the origin of a forked or resumed copy', () => {
    const origin = '77777777-0000-4000-8000-000000000000';
    const s = sessions([user('u1', origin), custom('Origin title', origin)]);
    expect(s.map((e) => [e.forkedFrom, e.title])).toEqual([
      [origin, undefined],
      [origin, 'Origin title'],
    ]);
  });

  it('does not take a summary line as the title (its leafUuid may name another session’s branch)', () => {
    expect(sessions([JSON.stringify({ type: 'summary', summary: 'Other work', leafUuid: 'x' }), user('u1')]).map((e) => e.title)).toEqual([undefined]);
  });

  it('reads the titles of the constructed fixture, and the same session events in session-only and cost reads', async () => {
    const full = byKind(await readEvents(claude, TITLED)).session as SessionEvent[];
    expect(full.map((e) => e.title)).toEqual(['wezterm setup', 'tmux + wezterm']);
    expect(full[0]).toMatchObject({ sessionId: T, cwd: '/Users/dev/titles', version: '2.1.30' });
    const content = await readFile(TITLED);
    expect(full[1]!.offset).toBe(content.indexOf('{"type":"custom-title","customTitle":"tmux + wezterm"'));
    const info = newReadInfo();
    expect(await readEvents(claude, TITLED, { kinds: ['session'], info })).toEqual(full);
    expect(info.filteredLines).toBeGreaterThan(0);
    expect(byKind(await readEvents(claude, TITLED, { kinds: ['session', 'usage'] })).session).toEqual(full);
  });

  it('leaves title records unread after the session opens when titles are not wanted (the cost scan\'s read)', async () => {
    const full = byKind(await readEvents(claude, TITLED));
    const withTitles = newReadInfo();
    await readEvents(claude, TITLED, { kinds: ['session', 'usage'], info: withTitles });
    const info = newReadInfo();
    const scan = byKind(await readEvents(claude, TITLED, { kinds: ['session', 'usage'], titles: false, info }));
    // The first session event (its cwd) and every usage event as before; the title records are filtered.
    expect(scan.session).toEqual([full.session?.[0]]);
    expect(scan.usage).toEqual(full.usage);
    // Lines 6, 7, 10 and 11 of the fixture are title records after the session opens (line 1 comes before it).
    expect(info.filteredLines).toBe(withTitles.filteredLines + 4);
    expect(info.lines).toBe(withTitles.lines);
  });

  it('finds title records after the session event in a usage+session read whatever their spacing', () => {
    const spaced = '{ "type" : "custom-title" , "customTitle" : "Spaced" , "sessionId" : "' + SID + '" }';
    const lines = [user('u1'), spaced];
    expect(sessions(lines, ['session', 'usage'])).toEqual(sessions(lines));
    expect(sessions(lines, ['session']).map((e) => e.title)).toEqual([undefined, 'Spaced']);
  });

  it('reads a title record that holds the usage marker, and a usage line that holds the title marker, as a full read does', () => {
    const usageLine = (extra: Record<string, unknown>) =>
      JSON.stringify({
        parentUuid: 'u1', sessionId: SID, type: 'assistant', uuid: 'a1', timestamp: '2026-03-01T00:00:01.000Z', requestId: 'req_1',
        message: { id: 'msg_1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: extra }], usage: { input_tokens: 3, output_tokens: 5 } },
      });
    const lines = [
      user('u1'),
      custom('usage'), // a title whose value is the usage marker
      JSON.stringify({ type: 'ai-title', aiTitle: 'Generated', sessionId: SID, usage: { input_tokens: 1 } }),
      usageLine({ 'x-title': 'a key ending in the title marker', pad: 'y'.repeat(5000) }),
    ];
    const text = lines.join('\n') + '\n';
    const full = parseSync(claudeCore, text, { file: FILE });
    for (const kinds of [['session', 'usage'], ['usage']] as EventKind[][]) {
      const want = full.filter((e) => (kinds as string[]).includes(e.type));
      expect(parseSync(claudeCore, text, { file: FILE, kinds })).toEqual(want);
    }
    expect(sessions(lines, ['session', 'usage']).map((e) => e.title)).toEqual([undefined, 'usage']);
    expect(full.filter((e) => e.type === 'usage')).toMatchObject([{ inputTokens: 3, outputTokens: 5 }]);
  });

  it('keeps the title state across a resume: a title record after the cursor repeats the full session event', async () => {
    const content = await readFile(TITLED);
    await expectResumeEqualsFull(claude, content, lineBoundaries(content));
    await expectResumeEqualsFull(claude, content, lineBoundaries(content), { kinds: ['session'] });
    const run = await resumeAcrossCuts(claude, content, lineBoundaries(content), {}, `${T}.jsonl`);
    expect((run.kept.session as SessionEvent[]).map((e) => e.title)).toEqual(['wezterm setup', 'tmux + wezterm']);
  });
});

describe('claude subagent sidecar', () => {
  it('puts agentType, spawnDepth, the spawning subagent and the Task description on the session event', async () => {
    const [s] = byKind(await readEvents(claude, NESTED_AGENT)).session as SessionEvent[];
    expect(s).toEqual({
      type: 'session',
      agent: 'claude',
      sessionId: 'agent-b2',
      offset: 0,
      nativeId: 'agent-b2',
      cwd: '/Users/dev/titles',
      startedAt: '2026-03-02T09:00:10.000Z',
      title: 'Find tmux config files',
      forkedFrom: 'agent-a1',
      version: '2.1.30',
      gitBranch: 'main',
      subagent: true,
      agentType: 'Explore',
      spawnDepth: 2,
    });
    const [depth1] = byKind(await readEvents(claude, SUBAGENT)).session as SessionEvent[];
    expect(depth1).toMatchObject({ agentType: 'Explore', spawnDepth: 1, forkedFrom: '11111111-2222-4333-8444-555555555555', subagent: true });
    expect(depth1).not.toHaveProperty('title');
  });

  it('is declared as a parse dependency, and the pure core (no file) goes without it', async () => {
    expect(claude.getParseDependencies(NESTED_AGENT)).toEqual([NESTED_AGENT.replace(/\.jsonl$/, '.meta.json')]);
    const [s] = parseSync(claudeCore, await readFile(NESTED_AGENT), { file: NESTED_AGENT, kinds: ['session'] }) as SessionEvent[];
    expect(s).toMatchObject({ forkedFrom: T, subagent: true });
    expect(s).not.toHaveProperty('agentType');
  });

  it('lets a title recorded in the transcript win over the Task description', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-claude-meta-'));
    const sub = join(dir, 'proj', T, 'subagents');
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, 'agent-c3.meta.json'), JSON.stringify({ agentType: 'Plan', description: 'Plan it' }));
    await writeFile(join(sub, 'agent-c3.jsonl'), `${user('c-u1', T)}\n${JSON.stringify({ type: 'ai-title', aiTitle: 'Generated plan', sessionId: T })}\n`);
    const s = byKind(await readEvents(claude, join(sub, 'agent-c3.jsonl'))).session as SessionEvent[];
    expect(s.map((e) => [e.title, e.agentType])).toEqual([
      ['Plan it', 'Plan'],
      ['Generated plan', 'Plan'],
    ]);
  });

  it('reads on without a sidecar that is missing, not JSON, oversized or of the wrong shape', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-claude-meta-bad-'));
    expect(await readSubagentMeta(join(dir, 'missing.meta.json'))).toBeUndefined();
    await writeFile(join(dir, 'bad.meta.json'), '{"agentType":');
    expect(await readSubagentMeta(join(dir, 'bad.meta.json'))).toBeUndefined();
    await writeFile(join(dir, 'big.meta.json'), JSON.stringify({ agentType: 'x'.repeat(70_000) }));
    expect(await readSubagentMeta(join(dir, 'big.meta.json'))).toBeUndefined();
    expect(extractSubagentMeta([1])).toBeUndefined();
    expect(extractSubagentMeta({ agentType: 3, spawnDepth: 1.5, description: '', parentAgentId: 'p' })).toEqual({ parentAgentId: 'p' });
    await writeFile(join(dir, 'agent-d4.meta.json'), '[]');
    await writeFile(join(dir, 'agent-d4.jsonl'), `${user('d-u1')}\n`);
    const [s] = byKind(await readEvents(claude, join(dir, 'agent-d4.jsonl'))).session as SessionEvent[];
    expect(s).toMatchObject({ sessionId: 'agent-d4', cwd: '/w' });
    expect(s).not.toHaveProperty('agentType');
  });
});

describe('claude usage: provider, fast mode, web searches', () => {
  it('names the provider from the model id: gateway prefix, Bedrock, Vertex, Anthropic, else none', () => {
    expect(getModelProvider('claude-sonnet-4-5-20250929')).toBe('anthropic');
    expect(getModelProvider('claude-opus-4-6[1m]')).toBe('anthropic');
    expect(getModelProvider('anthropic/claude-sonnet-4.5')).toBe('anthropic');
    expect(getModelProvider('OpenRouter/anthropic/claude-sonnet-4')).toBe('openrouter');
    expect(getModelProvider('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('aws');
    expect(getModelProvider('anthropic.claude-3-5-haiku-20241022-v1:0')).toBe('aws');
    expect(getModelProvider('global.anthropic.claude-opus-4-5-20251101-v1:0')).toBe('aws');
    expect(getModelProvider('claude-opus-4-1@20250805')).toBe('google');
    expect(getModelProvider('glm-4.6')).toBeUndefined();
    expect(getModelProvider('deepseek-chat')).toBeUndefined();
  });

  it('carries speed "fast" and web search counts, and leaves standard speed and zero searches out', async () => {
    const usage = byKind(await readEvents(claude, TITLED)).usage as UsageEvent[];
    expect(usage.map((u) => [u.messageId, u.provider, u.speed, u.webSearchRequests])).toEqual([
      ['msg_T1', 'anthropic', 'fast', 2],
      ['msg_T2', 'anthropic', undefined, undefined],
      ['msg_T3', 'aws', undefined, undefined],
    ]);
    // Undefined on the one shape (blankUsageEvent), so left out of the event's JSON.
    expect(JSON.stringify(usage[1])).not.toMatch(/"speed"|"webSearchRequests"/);
    expect(await readEvents(claude, TITLED, { kinds: ['usage'] })).toEqual(usage);
  });

  it('sets no provider on a usage record without a model', () => {
    const line = JSON.stringify({ type: 'assistant', cwd: '/w', sessionId: SID, message: { id: 'm', usage: { input_tokens: 1, output_tokens: 1 } } });
    const [u] = parseSync(claudeCore, line + '\n', { file: FILE, kinds: ['usage'] }) as UsageEvent[];
    expect(u).toMatchObject({ model: 'unknown', modelFallback: true });
    expect(u!.provider).toBeUndefined();
    expect(JSON.stringify(u)).not.toContain('"provider"');
  });
});

describe('claude subagent sidecar in a session list', () => {
  it('a lazy list row carries the Task description and agent type, as a full read does', async () => {
    const { createSessionManager } = await import('../src/sessions/manager.js');
    const sm = createSessionManager({ roots: { claude: [PROJECTS] }, cache: false, env: { HOME: tmpdir() } });
    const lazy = (await sm.list('claude', { subagents: true, limit: 1000 })).find((r) => r.sessionId === 'agent-b2');
    const full = (await sm.list('claude', { subagents: true, full: true, limit: 1000 })).find((r) => r.sessionId === 'agent-b2');
    expect(lazy?.title).toBe('Find tmux config files');
    expect(lazy?.title).toBe(full?.title);
    expect(claude.lineCoreFor?.(TITLED)).toBe(claudeCore);
  });
});
