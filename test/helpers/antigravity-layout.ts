/** The Antigravity CLI fixtures of ../shared/fixtures/real/antigravity laid out as `agy` lays out its brain folder. */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { REAL_FIXTURES } from './real-fixtures.js';

export const ANTIGRAVITY_REAL = `${REAL_FIXTURES}antigravity/`;

/** Each fixture's conversation id. */
export const ANTIGRAVITY_LAYOUT: Record<string, string> = {
  'agent-sessions-cli-small.jsonl': '6f0c2a51-small',
  'agent-sessions-cli-schema-drift.jsonl': '9d3e7b20-drift',
};

export const transcriptOf = (brain: string, conversation: string): string => join(brain, conversation, '.system_generated', 'logs', 'transcript.jsonl');

/** Copy every fixture into `<dir>/brain` as the CLI lays it out; returns the brain folder. */
export async function layOutAntigravity(dir: string): Promise<string> {
  const brain = join(dir, 'brain');
  for (const [name, conversation] of Object.entries(ANTIGRAVITY_LAYOUT)) {
    const path = transcriptOf(brain, conversation);
    await mkdir(join(path, '..'), { recursive: true });
    await copyFile(join(ANTIGRAVITY_REAL, name), path);
  }
  return brain;
}
