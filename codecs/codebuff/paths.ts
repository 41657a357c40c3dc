/**
 * Where Codebuff (CodebuffAI/codebuff, formerly Manicode) keeps its chats. `getConfigDir()`
 * (`cli/src/utils/config-dir.ts`) is `os.homedir()/.config/manicode`, with `-<environment>` appended on a
 * development or staging build; `getProjectDataDir()` (`cli/src/project-files.ts`) is
 * `<config>/projects/<basename of the project root>`, and a chat is `<project>/chats/<chatId>/` holding
 * `chat-messages.json` (the conversation, read here) and `run-state.json` (`cli/src/utils/run-state-storage.ts`).
 * The chat id is the ISO time the chat began with `:` replaced by `-`. Codebuff honours no variable for this
 * folder: `os.homedir()` follows `HOME` (`USERPROFILE` on Windows).
 */
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFile } from '../../cursors/protocol/codec.js';
import { DIR, FILE, fileStat, listDir } from '../../cursors/list-dir.js';

export const CODEC_ID = 'codebuff';
export const CHAT_FILE = 'chat-messages.json';
const CHANNELS = ['manicode', 'manicode-dev', 'manicode-staging'];

/** `<home>/.config/manicode/projects` and the dev and staging builds' `manicode-<env>/projects`. */
export function getCodebuffRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  return CHANNELS.map((c) => join(home, '.config', c, 'projects'));
}

/** The chat id of a `chat-messages.json` path: its folder's name. */
export function codebuffChatId(file: string): string {
  return basename(dirname(file));
}

/** The project folder's name (the basename of the project root Codebuff ran in). */
export function codebuffProject(file: string): string {
  return basename(dirname(dirname(dirname(file))));
}

/** The time a chat id names (`2026-01-02T03-04-05.000Z`), as ISO-8601; undefined for another name. */
export function chatIdTime(chatId: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d+)?)Z$/.exec(chatId);
  if (m === null) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Every `<root>/<project>/chats/<chatId>/chat-messages.json`, synchronously; missing roots are skipped. */
export function* discoverCodebuffSync(roots: readonly string[]): Generator<SessionFile> {
  for (const root of roots) {
    for (const project of listDir(root)) {
      if (project.kind !== DIR) continue;
      const chats = join(root, project.name, 'chats');
      for (const chat of listDir(chats)) {
        if (chat.kind !== DIR) continue;
        const dir = join(chats, chat.name);
        const e = listDir(dir).find((x) => x.kind === FILE && x.name === CHAT_FILE);
        const s = e === undefined ? undefined : fileStat(dir, e);
        if (s === undefined) continue;
        yield { agent: CODEC_ID, path: join(dir, CHAT_FILE), root, sessionId: chat.name, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs };
      }
    }
  }
}
