/**
 * Where Command Code keeps its transcripts: `~/.commandcode/projects/<slug of the cwd>/<session id>.jsonl`
 * (README "Where"). Beside each transcript Command Code 1.49 writes `<id>.checkpoints.jsonl` and
 * `<id>.meta.json`, which are not transcripts and are not listed.
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'commandcode';

const CHECKPOINTS = '.checkpoints.jsonl';

/** `~/.commandcode/projects`: Command Code has no variable that moves it (README "Where"). */
export function getCommandCodeRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [join(env.HOME || homedir(), '.commandcode', 'projects')];
}

/** The session id a transcript's file name gives (`<sessionId>.jsonl`). */
export function commandCodeStem(file: string): string {
  return basename(file).replace(/\.jsonl$/, '');
}

/** Every transcript under the roots (`<root>/<slug>/<id>.jsonl`), synchronously; missing roots are skipped. */
export function* discoverCommandCodeSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const project of listDir(root)) {
      if (project.kind !== DIR) continue;
      const dir = join(root, project.name);
      for (const e of listDir(dir)) {
        if (e.kind !== FILE || !e.name.endsWith('.jsonl') || e.name.endsWith(CHECKPOINTS)) continue;
        const s = fileStat(dir, e);
        if (s === undefined) continue;
        yield { agent: CODEC_ID, path: join(dir, e.name), root, sessionId: commandCodeStem(e.name), size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
      }
    }
  }
}
