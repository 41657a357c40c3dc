/**
 * Where CodeBuddy Code (Tencent's coding CLI, npm `@tencent-ai/codebuddy-code`) keeps its transcripts: one
 * JSONL file per session, `<config>/projects/<cwd slug>/<sessionId>.jsonl`, where the config folder is
 * `$CODEBUDDY_CONFIG_DIR`, else `~/.codebuddy` (README.md "Where", with its sources). A root is a `projects`
 * folder; its files are walked a few levels deep, as tokscale's `projects/**\/*.jsonl` does, so a sub-agent's
 * transcript under its session's folder is found too.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { envDir } from '../../cursors/env-paths.js';

export const CODEC_ID = 'codebuddy';
/** The variable that moves CodeBuddy Code's whole config folder. */
export const CODEBUDDY_ENV = 'CODEBUDDY_CONFIG_DIR';

/** How deep under a root a transcript may lie: `<slug>/<id>.jsonl`, and a sub-agent's `<slug>/<id>/subagents/<a>.jsonl`. */
const MAX_DEPTH = 4;

/** `$CODEBUDDY_CONFIG_DIR/projects`, else `~/.codebuddy/projects`. */
export function getCodeBuddyRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  return [join(envDir(env, CODEBUDDY_ENV, { home }) ?? join(home, '.codebuddy'), 'projects')];
}

/** The session id a transcript's file name gives (`<sessionId>.jsonl`). */
export function codeBuddyStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

function* walk(agent: string, root: string, dir: string, depth: number, seen: Set<string>): Generator<SessionFile> {
  for (const e of listDir(dir)) {
    if (e.kind === DIR) {
      if (depth < MAX_DEPTH) yield* walk(agent, root, join(dir, e.name), depth + 1, seen);
      continue;
    }
    // a transcript sits in a project's folder, never at the root itself
    if (e.kind !== FILE || depth === 0 || !e.name.endsWith('.jsonl')) continue;
    const path = join(dir, e.name);
    const s = fileStat(dir, e);
    if (s === undefined || seen.has(path)) continue;
    seen.add(path);
    yield { agent, path, root, sessionId: codeBuddyStem(path), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
  }
}

/** Every transcript under `projects` roots laid out as the CLI writes them, listed for `agent`; missing roots are skipped. */
export function* discoverCodeBuddyLayout(agent: string, roots: readonly string[]): Generator<SessionFile> {
  const seen = new Set<string>();
  for (const root of roots) yield* walk(agent, root, root, 0, seen);
}

/** Every transcript under the roots, synchronously; missing roots are skipped. */
export function discoverCodeBuddySync(roots: readonly string[]): Generator<SessionFile> {
  return discoverCodeBuddyLayout(CODEC_ID, roots);
}
