/**
 * Where Qwen Code keeps its chats. Qwen Code's `Storage` (packages/core/src/config/storage.ts in QwenLM/qwen-code)
 * writes session data under its runtime base dir: `$QWEN_RUNTIME_DIR`, else the global dir `$QWEN_HOME`, else
 * `~/.qwen`. A chat is `<base>/projects/<sanitized project path>/chats/<sessionId>.jsonl`.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';
import { expandHome } from '../../cursors/env-paths.js';

export const CODEC_ID = 'qwen';


/** `<base>/projects`, base = `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (Qwen Code's own order). */
export function getQwenRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const base = env.QWEN_RUNTIME_DIR?.trim() || env.QWEN_HOME?.trim() || join(home, '.qwen');
  return [join(expandHome(base, home), 'projects')];
}

/** The session id a chat's file name gives (`<sessionId>.jsonl`). */
export function qwenStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

/** Every chat under the roots (`<root>/<project>/chats/*.jsonl`), synchronously; missing roots are skipped. */
export function* discoverQwenSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const project of listDir(root)) {
      if (project.kind !== DIR) continue;
      const chats = join(root, project.name, 'chats');
      for (const e of listDir(chats)) {
        if (e.kind !== FILE || !e.name.endsWith('.jsonl')) continue;
        const s = fileStat(chats, e);
        if (s === undefined) continue;
        yield { agent: CODEC_ID, path: join(chats, e.name), root, sessionId: e.name.slice(0, -'.jsonl'.length), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
      }
    }
  }
}
