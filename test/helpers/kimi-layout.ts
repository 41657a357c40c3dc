/** The Kimi Code fixtures of ../shared/fixtures/real/kimi laid out as the CLI lays out its sessions folder. */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { REAL_FIXTURES } from './real-fixtures.js';

export const KIMI_REAL = `${REAL_FIXTURES}kimi/`;

export const S1 = 'wd_project_ac3bb318f98e/session_9eb1bf57-c1af-48a5-b658-0e8d9fe794f5';
export const S2 = 'wd_project_ac3bb318f98e/session_1bcbe023-4f7e-4971-9dc9-43b8756045b0';
/** Each wire fixture's place in a sessions folder, and the state.json of its session. */
export const KIMI_LAYOUT: Record<string, { wire: string; state: [string, string] }> = {
  'agent-sessions-wire-small.jsonl': { wire: `${S1}/agents/main/wire.jsonl`, state: ['agent-sessions-state.json', `${S1}/state.json`] },
  'agent-sessions-wire-assistant-tools.jsonl': { wire: `${S2}/agents/main/wire.jsonl`, state: ['agent-sessions-wire-assistant-tools.state.json', `${S2}/state.json`] },
  'agent-sessions-wire-subagent-agent-0.jsonl': { wire: `${S2}/agents/agent-0/wire.jsonl`, state: ['agent-sessions-wire-assistant-tools.state.json', `${S2}/state.json`] },
};

/** Copy every fixture into `<dir>/sessions` as Kimi Code lays it out; returns the sessions folder. */
export async function layOutKimi(dir: string): Promise<string> {
  const root = join(dir, 'sessions');
  for (const [name, { wire, state }] of Object.entries(KIMI_LAYOUT)) {
    await mkdir(join(root, wire, '..'), { recursive: true });
    await copyFile(join(KIMI_REAL, name), join(root, wire));
    await copyFile(join(KIMI_REAL, state[0]), join(root, state[1]));
  }
  return root;
}

