import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
import { isExportHeader, isExportMessage } from '../cursors/protocol/sessionfold-jsonl.js';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import { renderMarkdown } from '../src/sessions/markdown.js';
import type { Session, SessionMessage } from '../src/sessions/types.js';
import { CLAUDE_COPIES, CLAUDE_SUBAGENT_PARENT, EXPORT_IDS, FAKE_PRICER, HAS_CLAUDE, HAS_CODEX, type Home } from './sessions-helpers.js';
import { fixtureManager } from './helpers/fixture-manager.js';

const AGENT = 'sessionfold-jsonl';
let home: Home;
let sm: SessionManager;
let codexIds: string[] = [];

fixtureManager((f) => ({ home, sm, codexIds } = f));

/**
 * What a message must keep through export and re-import (the re-import names id-less messages itself).
 * A tool call id used twice in one session (the sanitized Codex fixture replaces every id with the same
 * placeholder) cannot tell which call a result belongs to, so those outputs are left out of the comparison.
 */
function comparable(m: SessionMessage, keepId: boolean, duplicated: ReadonlySet<string>): unknown {
  const { id, usage, toolCalls, ...rest } = m;
  return {
    ...rest,
    ...(keepId && id !== undefined && { id }),
    // `requests` counts the source's usage records merged into the message; a re-import has one per message.
    ...(usage !== undefined && { usage: { ...usage, requests: undefined } }),
    ...(toolCalls !== undefined && { toolCalls: toolCalls.map((c) => (duplicated.has(c.toolCallId) ? { ...c, output: undefined } : c)) }),
  };
}

function duplicatedCallIds(s: Session): Set<string> {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const c of s.messages.flatMap((m) => m.toolCalls ?? [])) (seen.has(c.toolCallId) ? dup : seen).add(c.toolCallId);
  return dup;
}

/** Export as JSONL, save it where the sessionfold-jsonl codec looks, and get() it back. */
async function roundTrip(agent: string, id: string): Promise<{ original: Session; back: Session; text: string }> {
  const original = await sm.get(agent, id);
  const text = await sm.export(agent, id, 'jsonl');
  const dir = join(home.dir, 'reimport', agent);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${id}.jsonl`), text);
  const back = await createSessionManager({ env: { ...home.env, SESSIONFOLD_EXPORT_DIR: dir }, pricer: FAKE_PRICER }).get(AGENT, id);
  return { original, back, text };
}

function expectSameSession(original: Session, back: Session): void {
  expect(back.messages.length).toBe(original.messages.length);
  const dup = duplicatedCallIds(original);
  back.messages.forEach((m, i) => {
    const o = original.messages[i] as SessionMessage;
    expect(comparable(m, o.id !== undefined, dup), `message ${i}`).toEqual(comparable(o, true, dup));
  });
  expect([back.title, back.cwd, back.forkedFrom, back.createdAt]).toEqual([original.title, original.cwd, original.forkedFrom, original.createdAt]);
  expect(back.model).toEqual(original.model);
  expect(back.cost?.totalUsd ?? 0).toBeCloseTo(original.cost?.totalUsd ?? 0, 12);
  expect(back.cost?.requestCount ?? 0).toBe(original.cost?.requestCount ?? 0);
  expect(back.raw?.orphanUsage.length).toBe(original.raw?.orphanUsage.length);
}

describe('export jsonl', () => {
  it('writes a header line then one message per line, in the sessionfold-jsonl schema', async () => {
    const text = await sm.export(AGENT, EXPORT_IDS.parent, 'jsonl');
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(isExportHeader(lines[0] as Record<string, unknown>)).toBe(true);
    expect(lines[0]).toMatchObject({ version: 1, agent: AGENT, sessionId: EXPORT_IDS.parent, unifiedId: `${AGENT}:${EXPORT_IDS.parent}`, messageCount: 6, turnCount: 2, createdAt: '2026-01-01T10:00:00.000Z' });
    expect(lines.slice(1).every((l) => isExportMessage(l))).toBe(true);
    expect(lines.slice(1).map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(lines[2]).toMatchObject({ role: 'assistant', id: 'msg_a1', usage: { model: 'claude-sonnet-4-5', inputTokens: 1000, outputTokens: 500, dedupKey: 'k:a1' } });
  });

  it('reads back through the sessionfold-jsonl codec into the same messages', async () => {
    for (const id of [EXPORT_IDS.parent, EXPORT_IDS.fork, EXPORT_IDS.big]) {
      const { original, back } = await roundTrip(AGENT, id);
      expectSameSession(original, back);
    }
  });

  it('yields the codec events a direct read of the export gives (usage keeps its dedup key)', async () => {
    const { text } = await roundTrip(AGENT, EXPORT_IDS.fork);
    const f = join(home.dir, 'reimport', AGENT, `${EXPORT_IDS.fork}.jsonl`);
    const keys: string[] = [];
    for await (const e of sessionfoldJsonl.read(f, { kinds: ['usage'] })) if (e.type === 'usage') keys.push(e.dedupKey);
    expect(keys).toEqual(['k:a1', 'k:a2', 'k:b3', 'k:b4']);
    expect(text.endsWith('\n')).toBe(true);
  });

  it.runIf(HAS_CLAUDE)('round-trips every real Claude fixture', async () => {
    for (const id of [...Object.values(CLAUDE_COPIES), CLAUDE_SUBAGENT_PARENT]) {
      const { original, back } = await roundTrip('claude', id);
      expectSameSession(original, back);
    }
  });

  it.runIf(HAS_CODEX)('round-trips every real Codex fixture', async () => {
    for (const id of codexIds) {
      const { original, back } = await roundTrip('codex', id);
      expectSameSession(original, back);
    }
  });
});

describe('export json', () => {
  it('is the Session with ISO dates', async () => {
    const s = await sm.get(AGENT, EXPORT_IDS.parent);
    const j = JSON.parse(await sm.export(AGENT, EXPORT_IDS.parent, 'json')) as Record<string, unknown> & { messages: Record<string, unknown>[] };
    expect(j.createdAt).toBe('2026-01-01T10:00:00.000Z');
    expect(j.messages[0]?.timestamp).toBe('2026-01-01T10:00:00.000Z');
    expect(j).toEqual(JSON.parse(JSON.stringify(s)));
  });

  it('rejects an unknown format', async () => {
    await expect(sm.export(AGENT, EXPORT_IDS.parent, 'yaml' as never)).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });
});

/** An untitled session of `messages` with no usage, dated at the epoch. */
function bareSession(messages: Session['messages']): Session {
  return { agent: AGENT, sessionId: 's', unifiedId: `${AGENT}:s`, title: '', createdAt: new Date(0), updatedAt: new Date(0), turnCount: 0, tags: [], messages };
}

describe('export markdown', () => {
  it('has the metadata header, role sections, fenced tool calls, folded thinking and a cost summary', async () => {
    const md = await sm.export(AGENT, EXPORT_IDS.parent, 'markdown');
    expect(md).toMatch(/^# Refactor the auth middleware\n/);
    for (const s of ['- **Agent:** sessionfold JSONL export (`sessionfold-jsonl`)', '- **Model:** `claude-sonnet-4-5`', '- **Created:** 2026-01-01T10:00:00.000Z', '- **Cost:** $0.01 (3 requests)']) expect(md).toContain(s);
    expect(md.match(/^### User$/gm)).toHaveLength(2);
    expect(md.match(/^### Assistant$/gm)).toHaveLength(3);
    expect(md.match(/^### Tool$/gm)).toHaveLength(1);
    expect(md).toContain('**Tool call:** `Bash` (`call_1`)\n\n```json\n{\n  "command": "ls src/auth"\n}\n```');
    expect(md).toContain('<details>\n<summary>Thinking</summary>\n\nLook at verifyToken first.\n\n</details>');
    expect(md).toContain('## Cost summary');
    expect(md).toMatch(/\| `claude-sonnet-4-5` \| 3 \| 6,000 \| 900 \| 0 \| 0 \| 0 \| \$0\.01 \|/);
  });

  it('keeps the document its own: text and thinking cannot close a block, fake a section or swallow the rest', () => {
    const thinking = 'plan </details>\n### User\nfake prompt & <b>bold</b>';
    const text = [
      '### User',
      'not a prompt',
      '## Cost summary',
      'Underlined',
      '---',
      '<details><summary>x</summary>',
      'inline `Array<string> & more` stays code',
      '```bash',
      '# a comment, <kept> & as is',
      '```',
      '~~~',
      'an unclosed fence',
    ].join('\n');
    const messages: Session['messages'] = [
      { role: 'assistant', content: text, thinking },
      { role: 'user', content: 'the real next prompt' },
    ];
    const session: Session = { ...bareSession(messages), title: 't', turnCount: 1 };
    const md = renderMarkdown(session);
    expect(md.match(/^### (User|Assistant|System|Tool)$/gm)).toEqual(['### Assistant', '### User']);
    expect(md.match(/^## Cost summary$/gm)).toHaveLength(1);
    expect(md.match(/<\/details>/g)).toHaveLength(1);
    expect(md.match(/<details>/g)).toHaveLength(1);
    expect(md).toContain('<summary>Thinking</summary>\n\nplan &lt;/details>\n\\### User\nfake prompt &amp; &lt;b>bold&lt;/b>\n\n</details>');
    expect(md).toContain('\\### User\nnot a prompt\n\\## Cost summary\nUnderlined\n\\---\n&lt;details>&lt;summary>x&lt;/summary>');
    expect(md).toContain('inline `Array<string> & more` stays code');
    expect(md).toContain('```bash\n# a comment, <kept> & as is\n```');
    // the open fence is closed before the next section
    expect(md).toContain('~~~\nan unclosed fence\n~~~\n\n### User\n\nthe real next prompt');
  });

  it('grows fences past backticks in the text and cuts long blocks only when asked', () => {
    const session = bareSession([
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'c', toolName: 'Write', input: 'has ``` inside\n'.repeat(50) }] },
    ]);
    const md = renderMarkdown(session);
    expect(md).toContain('# (untitled session)');
    expect(md).toContain('### System');
    expect(md).toContain('````\nhas ``` inside');
    expect(md).toContain('No token usage recorded.');
    const cut = renderMarkdown(session, { maxBlockLines: 5 });
    expect(cut).toContain('… 46 more lines');
  });
});
