/**
 * A Droid session's `<uuid>.settings.json`: the session's model and its running token totals
 * (`tokenUsage{inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens}`), which the
 * JSONL does not carry. Read whole (a few hundred bytes) before the session's lines; a missing or broken file
 * is no settings.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { jsonObject } from '../../cursors/core.js';
import { tokenCount } from '../../cursors/glued-json.js';
import { settingsPathFor } from './paths.js';

/** What the sidecar says that the events use. */
export interface DroidSettings {
  model?: string;
  provider?: string;
  /** When the provider was locked for the session (ISO-8601). */
  providerLockTimestamp?: string;
  tokens?: { input: number; output: number; cacheWrite: number; cacheRead: number; thinking: number };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The settings of a sidecar's text; undefined when it is not a JSON object. */
export function parseDroidSettings(text: string): DroidSettings | undefined {
  const d = jsonObject(text);
  if (d === undefined) return undefined;
  const out: DroidSettings = {};
  if (str(d.model) !== undefined) out.model = d.model as string;
  if (str(d.providerLock) !== undefined) out.provider = d.providerLock as string;
  if (str(d.providerLockTimestamp) !== undefined && !Number.isNaN(Date.parse(d.providerLockTimestamp as string))) out.providerLockTimestamp = d.providerLockTimestamp as string;
  const u = d.tokenUsage;
  if (u !== null && typeof u === 'object' && !Array.isArray(u)) {
    const t = u as Record<string, unknown>;
    out.tokens = { input: tokenCount(t.inputTokens), output: tokenCount(t.outputTokens), cacheWrite: tokenCount(t.cacheCreationTokens), cacheRead: tokenCount(t.cacheReadTokens), thinking: tokenCount(t.thinkingTokens) };
  }
  return out;
}

/** The sidecar of a session file, read now. */
export async function readDroidSettings(file: string): Promise<DroidSettings | undefined> {
  return readFile(settingsPathFor(file), 'utf8').then(parseDroidSettings, () => undefined);
}

/** The same, synchronously (`lineCoreFor`). */
export function readDroidSettingsSync(file: string): DroidSettings | undefined {
  try {
    return parseDroidSettings(readFileSync(settingsPathFor(file), 'utf8'));
  } catch {
    return undefined;
  }
}
