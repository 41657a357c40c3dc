/**
 * `sessions list codex` titles equal `sessions show` titles: over every real Codex fixture (copied as rollouts
 * under an isolated CODEX_HOME) and over a generated rollout whose first real prompt follows a 70 KB preamble
 * (Codex 0.137+ writes base instructions, a developer message and AGENTS.md before it), past the head window
 * `list` used to read.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionManager, type SessionManager } from '../src/sessions/manager.js';
import { FULL_PEEK_BYTES, HEAD_BYTES } from '../src/sessions/peek.js';
import { copyCodexFixtures, FAKE_PRICER, makeHome, type Home } from './sessions-helpers.js';

const PREAMBLE_ID = '019fd000-0000-7000-8000-000000000070';
const PROMPT = 'Fix the flaky retry test in the uploader';

/** A rollout as Codex 0.137+ lays it out: ~70 KB of instructions before the first typed prompt, then a long tail. */
function preambleRollout(): string {
  const ts = '2026-08-04T09:00:00.000Z';
  const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: ts, type, payload });
  const msg = (role: string, text: string) => line('response_item', { type: 'message', role, content: [{ type: 'input_text', text }] });
  const lines = [
    line('session_meta', { id: PREAMBLE_ID, timestamp: ts, cwd: '/tmp/repo', originator: 'codex_cli_rs', cli_version: '0.137.0', base_instructions: { text: 'You are Codex. '.repeat(3000) } }),
    msg('developer', '<permissions instructions>' + 'sandbox rules. '.repeat(1000) + '</permissions instructions>'),
    msg('user', '# AGENTS.md instructions for /tmp/repo\n\n<INSTRUCTIONS>\n' + 'Keep it tidy. '.repeat(800) + '</INSTRUCTIONS>'),
    msg('user', '<environment_context>\n  <cwd>/tmp/repo</cwd>\n</environment_context>'),
    msg('user', PROMPT),
    line('event_msg', { type: 'user_message', message: PROMPT, kind: 'plain' }),
  ];
  for (let i = 0; i < 200; i++) lines.push(msg('assistant', `step ${i}: ` + 'working on it. '.repeat(40)));
  return lines.join('\n') + '\n';
}

let home: Home;
let sm: SessionManager;
let realIds: string[] = [];

beforeAll(async () => {
  home = await makeHome();
  realIds = await copyCodexFixtures(home);
  const day = join(home.codex, 'sessions', '2026', '08', '04');
  await mkdir(day, { recursive: true });
  await writeFile(join(day, `rollout-2026-08-04T09-00-00-${PREAMBLE_ID}.jsonl`), preambleRollout());
  sm = createSessionManager({ env: home.env, pricer: FAKE_PRICER, cache: false });
});

afterAll(async () => {
  await rm(home.dir, { recursive: true, force: true });
});

describe('codex list titles', () => {
  it('the generated rollout is large enough to be read lazily and its prompt lies past the head window', () => {
    const text = preambleRollout();
    expect(Buffer.byteLength(text)).toBeGreaterThan(FULL_PEEK_BYTES);
    expect(Buffer.byteLength(text.slice(0, text.indexOf(PROMPT)))).toBeGreaterThan(HEAD_BYTES);
  });

  it('list titles equal show titles on every real fixture and the generated one', async () => {
    const rows = await sm.list('codex', { limit: 1000 });
    const listed = new Map(rows.map((r) => [r.sessionId, r]));
    for (const id of [...realIds, PREAMBLE_ID]) {
      const s = listed.get(id);
      if (s === undefined) continue; // a fixture with no session of its own is not listed, and not shown either
      const full = await sm.get('codex', id);
      expect(s.title, id).toBe(full.title);
    }
    expect(listed.get(PREAMBLE_ID)?.exact).toBe(false);
    expect(listed.get(PREAMBLE_ID)?.title).toBe(PROMPT);
    // The large real fixture (over FULL_PEEK_BYTES) is among those compared.
    expect(rows.filter((r) => !r.exact).length).toBeGreaterThanOrEqual(2);
  });
});
