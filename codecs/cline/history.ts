/**
 * What a task's sibling files tell about its requests: the model of each request, and the task's work dir and
 * title.
 *
 * - `history_item.json` (Roo Code): the task's `HistoryItem`, whose `workspace` is the task's work dir, whose
 *   `title`, when set, names the task, and whose `parentTaskId` and `rootTaskId` name the task that started it
 *   (`new_task`) and the first of its chain. Its token totals are sums over the task's `ui_messages.json`, not read.
 * - `api_conversation_history.json` (every flavor): the user message each request sends ends with
 *   `<environment_details>`, which names the work dir (`# Current Working Directory (<path>) Files` in Cline,
 *   `# Current Workspace Directory (<path>) Files` in Roo Code and Kilo Code) and, in Roo Code and Kilo Code,
 *   the model (`<model>id</model>`). The message carries `ts` (epoch ms). The document is an array of Anthropic
 *   `MessageParam`s, or in Roo Code also `{version: 2, messages}` of AI SDK `ModelMessage`s, whose user messages
 *   hold the same `{type: "text", text}` parts (tool results are `role: "tool"` messages, not read).
 * - `task_metadata.json` (Cline): `model_usage[]` `{ts, model_id, model_provider_id}`, appended when the
 *   model changes.
 */
import { readRegularFileSync } from '../../cursors/read-file.js';
import { API_HISTORY, HISTORY_ITEM, SDK_WRITEBACK, TASK_METADATA, siblingOf } from './paths.js';
import { siblingElements, siblingStrings } from './walk.js';
import { rec } from '../../cursors/json-value.js';

export { rec };

export type Rec = Record<string, unknown>;
/** `v` when it is a plain object. */
/** `v` trimmed when it is a non-blank string. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
/** `v` when it is a plausible epoch-milliseconds time (the family's `ts`). */
export const tsOf = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 8.64e15 ? v : undefined);

/** A model named at a time: from `ts` on, requests used `model` (through `provider`, when known). */
export interface ModelMark {
  ts: number;
  model: string;
  provider?: string;
}

export interface TaskSide {
  cwd: string | undefined;
  /** The title `history_item.json` gives the task (Roo Code), if any. */
  title: string | undefined;
  /** The task that started this one as a subtask, and the root of its chain (Roo Code `history_item.json`). */
  parentTaskId: string | undefined;
  rootTaskId: string | undefined;
  /** Models named in prompts, each stamped just after its request began (Roo Code, Kilo Code); by time. */
  promptModels: ModelMark[];
  /** `model_usage` marks, each stamped just before its request began (Cline); by time. */
  metadataModels: ModelMark[];
  /**
   * `sdk_writeback.json`'s `baseUiMessageCount` (Cline): the messages from this index on were written back from
   * an SDK session of the same id, whose own file holds their usage.
   */
  writebackBase: number | undefined;
}

const ENV_OPEN = '<environment_details>';
const CWD_RE = /# Current (?:Working|Workspace) Directory \((.+?)\) Files/;

/** The text of a message's content: a string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (rec(b)?.type === 'text' && typeof rec(b)!.text === 'string' ? (rec(b)!.text as string) : '')).join('\n');
}

/** The model named in the last environment details of a prompt, if any. */
export function environmentModel(text: string): string | undefined {
  const env = text.lastIndexOf(ENV_OPEN);
  if (env === -1) return undefined;
  const open = text.indexOf('<model>', env);
  if (open === -1) return undefined;
  const close = text.indexOf('</model>', open);
  return close === -1 ? undefined : str(text.slice(open + 7, close));
}

/** Which sibling files a flavor writes beyond `api_conversation_history.json`. */
export interface SideFiles {
  /** `task_metadata.json` `model_usage` (Cline). */
  metadata: boolean;
  /** `history_item.json` (Roo Code). */
  historyItem: boolean;
  /** `api_conversation_history.json` may be a `{version: 2, messages}` envelope (Roo Code). */
  apiEnvelope: boolean;
  /** `sdk_writeback.json` (Cline ≥ 4.1's VS Code extension). */
  writeback?: boolean;
}

/** A write-back record is five small numbers; one larger than this is not one. */
const MAX_WRITEBACK_BYTES = 64 << 10;

/**
 * `baseUiMessageCount` of a task's `sdk_writeback.json` (cline/cline `apps/vscode/src/sdk/legacy-task-writeback.ts`,
 * `LegacyWritebackState`, `version: 1`), when it is a regular file (a FIFO would block the read) that says it;
 * else undefined.
 */
export function readWritebackBase(path: string): number | undefined {
  try {
    const state = rec(JSON.parse(readRegularFileSync(path, MAX_WRITEBACK_BYTES)));
    const base = state?.baseUiMessageCount;
    return state?.version === 1 && typeof base === 'number' && Number.isInteger(base) && base >= 0 ? base : undefined;
  } catch {
    return undefined;
  }
}

/** Read the sibling files of the task whose `ui_messages.json` is `file`. */
export function readTaskSide(file: string, bufferSize: number, files: SideFiles): TaskSide {
  const side: TaskSide = { cwd: undefined, title: undefined, parentTaskId: undefined, rootTaskId: undefined, promptModels: [], metadataModels: [], writebackBase: files.writeback === true ? readWritebackBase(siblingOf(file, SDK_WRITEBACK)) : undefined };
  if (files.historyItem) {
    const item = siblingStrings(siblingOf(file, HISTORY_ITEM), ['workspace', 'title', 'parentTaskId', 'rootTaskId'], bufferSize);
    side.cwd = str(item.workspace);
    side.title = str(item.title);
    side.parentTaskId = str(item.parentTaskId);
    side.rootTaskId = str(item.rootTaskId);
  }
  for (const raw of siblingElements(siblingOf(file, API_HISTORY), files.apiEnvelope ? 'messages' : undefined, bufferSize, true)) {
    const m = rec(raw);
    if (m?.role !== 'user') continue;
    const text = textOf(m.content);
    if (!text.includes(ENV_OPEN)) continue;
    if (side.cwd === undefined) side.cwd = CWD_RE.exec(text)?.[1]?.trim() || undefined;
    const model = environmentModel(text);
    const ts = tsOf(m.ts);
    if (model !== undefined && ts !== undefined) side.promptModels.push({ ts, model });
  }
  if (files.metadata) {
    for (const raw of siblingElements(siblingOf(file, TASK_METADATA), 'model_usage', bufferSize)) {
      const u = rec(raw);
      const ts = tsOf(u?.ts);
      const model = str(u?.model_id);
      const provider = str(u?.model_provider_id);
      if (ts !== undefined && model !== undefined) side.metadataModels.push({ ts, model, ...(provider !== undefined && { provider }) });
    }
  }
  side.promptModels.sort((a, b) => a.ts - b.ts);
  side.metadataModels.sort((a, b) => a.ts - b.ts);
  return side;
}

/** The last mark stamped before `until` (`inclusive`: at or before), else undefined. */
export function markBefore(models: readonly ModelMark[], until: number, inclusive = false): ModelMark | undefined {
  let found: ModelMark | undefined;
  for (const m of models) {
    if (inclusive ? m.ts > until : m.ts >= until) break;
    found = m;
  }
  return found;
}
