/**
 * Where Qwen Code keeps its chats. Qwen Code's `Storage` (packages/core/src/config/storage.ts in QwenLM/qwen-code)
 * writes session data under its runtime base dir: `$QWEN_RUNTIME_DIR`, else the global dir `$QWEN_HOME`, else
 * `~/.qwen`. A chat is `<base>/projects/<sanitized project path>/chats/<sessionId>.jsonl`; a background
 * subagent's transcript is `<base>/projects/<project>/subagents/<sessionId>/agent-<agentId>.jsonl`
 * (packages/core/src/agents/agent-transcript.ts), beside its `agent-<agentId>.meta.json` and, while it runs,
 * `agent-<agentId>.jsonl.stream`, neither of which is a transcript.
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { envDir } from '../../cursors/env-paths.js';

export const CODEC_ID = 'qwen';


/** `<base>/projects`, base = `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (Qwen Code's own order). */
export function getQwenRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const base = envDir(env, 'QWEN_RUNTIME_DIR', { home }) ?? envDir(env, 'QWEN_HOME', { home }) ?? join(home, '.qwen');
  return [join(base, 'projects')];
}

/** The session id a chat's file name gives (`<sessionId>.jsonl`). */
export function qwenStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

/** The session that launched a subagent whose transcript is `file` (`subagents/<sessionId>/agent-<id>.jsonl`). */
export function qwenParentSession(file: string): string | undefined {
  const dir = dirname(file);
  return basename(dirname(dir)) === 'subagents' && basename(file).startsWith('agent-') ? basename(dir) : undefined;
}

/** The `.jsonl` files of `dir` whose names pass `keep`, as session files (`subagent` for a subagent's). */
function* jsonlIn(dir: string, root: string, keep: (name: string) => boolean, subagent: boolean): Generator<SessionFile> {
  for (const e of listDir(dir)) {
    if (e.kind !== FILE || !e.name.endsWith('.jsonl') || !keep(e.name)) continue;
    const s = fileStat(dir, e);
    if (s === undefined) continue;
    yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: e.name.slice(0, -'.jsonl'.length), ...(subagent && { subagent: true }), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
  }
}

/**
 * Every chat under the roots (`<root>/<project>/chats/*.jsonl`), then its project's subagent transcripts
 * (`<root>/<project>/subagents/<sessionId>/agent-*.jsonl`), synchronously; missing roots are skipped.
 */
export function* discoverQwenSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const project of listDir(root)) {
      if (project.kind !== DIR) continue;
      yield* jsonlIn(join(root, project.name, 'chats'), root, () => true, false);
      const subagents = join(root, project.name, 'subagents');
      for (const session of listDir(subagents)) if (session.kind === DIR) yield* jsonlIn(join(subagents, session.name), root, (n) => n.startsWith('agent-'), true);
    }
  }
}
