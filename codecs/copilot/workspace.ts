/**
 * A session folder's `workspace.yaml` (beside `events.jsonl`), which the CLI keeps up to date: `id`, `cwd`,
 * `git_root`, `branch`, `created_at`, `updated_at`, and the session's title, `summary:` in older builds and
 * `name:` (with `user_named`) in newer ones (Arithmomaniac/copilot-session-tools#37 and #96; the title
 * event `session.title_changed` is ephemeral). Only top-level scalars are read, with a small reader of YAML's
 * scalar forms (plain, quoted, block); anything else is left alone.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EVENTS_FILE, WORKSPACE_FILE } from './paths.js';

export interface Workspace {
  /** `name`, else `summary`. */
  title?: string;
}

/** Larger than any real workspace.yaml: a bigger file is not one, and is not read. */
const MAX_WORKSPACE_BYTES = 1 << 20;

/** The `workspace.yaml` beside a folder session's `events.jsonl`; undefined for a flat session file. */
export function workspacePathOf(file: string): string | undefined {
  return basename(file) === EVENTS_FILE ? join(dirname(file), WORKSPACE_FILE) : undefined;
}

/** A quoted or plain YAML scalar's value; undefined for forms this reader does not take. */
function scalar(raw: string): string | undefined {
  const v = raw.trim();
  if (v.startsWith('"')) {
    try {
      const s = JSON.parse(v) as unknown;
      return typeof s === 'string' ? s : undefined;
    } catch {
      return undefined;
    }
  }
  if (v.startsWith("'")) return v.length >= 2 && v.endsWith("'") ? v.slice(1, -1).replace(/''/g, "'") : undefined;
  if (/^[[{&*!|>%@`]/.test(v)) return undefined;
  return v.replace(/\s+#.*$/, '');
}

/** The top-level scalars of a YAML mapping; block scalars (`|`, `>`) joined by newlines or spaces. */
export function topLevelScalars(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$/.exec(lines[i] as string);
    if (m === null) continue;
    const raw = (m[2] ?? '').trim();
    if (raw === '|' || raw === '>' || raw === '|-' || raw === '>-') {
      const block: string[] = [];
      while (i + 1 < lines.length && /^(\s+\S|\s*$)/.test(lines[i + 1] as string)) block.push((lines[++i] as string).trim());
      while (block.length > 0 && block[block.length - 1] === '') block.pop();
      out.set(m[1] as string, block.join(raw.startsWith('|') ? '\n' : ' '));
      continue;
    }
    const v = scalar(raw);
    if (v !== undefined && v !== '') out.set(m[1] as string, v);
  }
  return out;
}

/** What this codec takes from a workspace.yaml's text. */
export function parseWorkspace(text: string): Workspace {
  const s = topLevelScalars(text);
  const title = (s.get('name') ?? s.get('summary'))?.trim();
  return title === undefined || title === '' ? {} : { title };
}

/** The workspace of a session file, or undefined (a flat file, no yaml, an unreadable or oversized one). */
export function readWorkspace(file: string): Workspace | undefined {
  const path = workspacePathOf(file);
  if (path === undefined) return undefined;
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined || !st.isFile() || st.size > MAX_WORKSPACE_BYTES) return undefined;
    return parseWorkspace(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
